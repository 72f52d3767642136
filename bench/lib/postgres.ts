/**
 * @module bench/lib/postgres
 * A real PostgreSQL server for a test file or a benchmark: `initdb` into a fresh temporary
 * directory, `pg_ctl start` on 127.0.0.1 and a free port (unix socket in that
 * directory, `trust` auth on loopback, fsync off), and `stop()` that ends it
 * and removes the directory. Run as the `postgres` user when this process is
 * root (initdb refuses root). The binaries: `$PG_BIN`, else the newest
 * `/usr/lib/postgresql/<major>/bin` (Debian's `postgresql` package, which
 * `npm test` installs when absent), else `initdb`/`pg_ctl` on the PATH.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { procCpuMs, withChildren } from "./proc-cpu.js";

/** A running server. */
export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (no password: trust on loopback). */
  readonly connectionString: string;
  readonly port: number;
  /** Stop the server but keep its data (a database outage); `start()` brings it back on the same port. */
  pause(): void;
  /** Start a paused server again. */
  start(): void;
  /** Stop the server and delete its directory. Idempotent. */
  stop(): void;
  /** User + system CPU (ms) the server's processes (postmaster and backends alive now) have used so far; Linux only. */
  cpuMs(): number;
}

function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const majors = readdirSync(root)
      .filter((d) => /^\d+$/.test(d))
      .sort((a, b) => Number(b) - Number(a));
    for (const m of majors) if (existsSync(join(root, m, "bin", "initdb"))) return join(root, m, "bin");
  }
  return "";
}

const asRoot = process.getuid?.() === 0;

/** Run a PostgreSQL binary, as `postgres` when root. */
function run(bin: string, args: string[]): void {
  const exe = binDir() ? join(binDir(), bin) : bin;
  const [cmd, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", exe, ...args]] : [exe, args];
  execFileSync(cmd, argv, { stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve, reject) => {
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = s.address() as { port: number };
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const running = new Set<TestPostgres>();
let exitHook = false;

/** Start a server (about one second: initdb, then start); `maxConnections` defaults to 200. Call `stop()` in `afterAll`. */
export async function startPostgres(options: { readonly maxConnections?: number } = {}): Promise<TestPostgres> {
  const dir = mkdtempSync(join(tmpdir(), "agentkit-pg-"));
  if (asRoot) {
    // the postgres user must be able to pass through the (private, 0700) temporary directory to reach its own
    chmodSync(tmpdir(), statSync(tmpdir()).mode | 0o011);
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8"]);
  const port = await freePort();
  const opts = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c max_connections=${options.maxConnections ?? 200}`;
  let up = false;
  let gone = false;
  const server: TestPostgres = {
    connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start() {
      if (up || gone) return;
      run("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-w", "-o", opts, "start"]);
      up = true;
    },
    pause() {
      if (!up) return;
      run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      up = false;
    },
    cpuMs() {
      const postmaster = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
      return withChildren(postmaster).reduce((sum, pid) => sum + procCpuMs(pid), 0);
    },
    stop() {
      if (gone) return;
      try {
        if (up) run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        up = false;
        gone = true;
        running.delete(server);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  try {
    server.start();
  } catch (err) {
    server.stop();
    throw err;
  }
  running.add(server);
  if (!exitHook) {
    exitHook = true;
    // a test file that failed before its afterAll still leaves no server behind
    process.once("exit", () => {
      for (const s of [...running]) s.stop();
    });
  }
  return server;
}
