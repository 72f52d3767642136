/**
 * @module bench/lib/nginx
 * A real nginx (Debian's /usr/sbin/nginx, installed by `npm test` (scripts/test-prereqs.mjs) when absent)
 * started in the foreground with a generated config in a private temp dir:
 * 127.0.0.1 only, round-robin over the given upstream ports, its pid file,
 * logs and temp paths all inside that dir. Each response names the upstream
 * that served it (`X-Upstream: 127.0.0.1:<port>`). `close()` ends it by its
 * pid and removes the dir.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Debian's nginx binary. */
export const NGINX = "/usr/sbin/nginx";

/** A running nginx in front of some upstreams. */
export interface TestNginx extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly port: number;
  /** Its process id (`master_process off`: the one process that serves). */
  readonly pid: number;
  /** Its access log: one line per request, `<method> <uri> <status> <upstream addr>`. */
  accessLog(): string[];
  close(): Promise<void>;
}

/** A port free on 127.0.0.1 right now (bound, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, "127.0.0.1");
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}

function config(dir: string, port: number, upstreams: readonly number[]): string {
  const p = (name: string) => join(dir, name);
  return `daemon off;
master_process off;
worker_processes 1;
pid ${p("nginx.pid")};
error_log ${p("error.log")} warn;
events { worker_connections 256; }
http {
  log_format upstreams '$request_method $uri $status $upstream_addr';
  access_log ${p("access.log")} upstreams;
  client_body_temp_path ${p("client_body")};
  proxy_temp_path ${p("proxy")};
  fastcgi_temp_path ${p("fastcgi")};
  uwsgi_temp_path ${p("uwsgi")};
  scgi_temp_path ${p("scgi")};
  upstream fleet {
${upstreams.map((u) => `    server 127.0.0.1:${u};`).join("\n")}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://fleet;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_read_timeout 60s;
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`;
}

/**
 * Start nginx on 127.0.0.1 (`port`, else a free one), round-robin over
 * `upstreams` (ports on 127.0.0.1). Rejects with its error log when it does
 * not come up in 10 s.
 */
export async function startNginx(upstreams: readonly number[], options: { port?: number } = {}): Promise<TestNginx> {
  if (!existsSync(NGINX))
    throw new Error(`${NGINX} is missing: install Debian's nginx (apt-get install -y nginx; npm test does it as root)`);
  const dir = mkdtempSync(join(tmpdir(), "agentkit-nginx-"));
  const port = options.port ?? (await freePort());
  writeFileSync(join(dir, "nginx.conf"), config(dir, port, upstreams), { mode: 0o600 });
  const child = spawn(NGINX, ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", join(dir, "error.log")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const errorLog = (): string => (existsSync(join(dir, "error.log")) ? readFileSync(join(dir, "error.log"), "utf8") : "");
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      const log = `${stderr}${errorLog()}`;
      await close();
      throw new Error(`nginx did not start on 127.0.0.1:${port}: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    accessLog: () => (existsSync(join(dir, "access.log")) ? readFileSync(join(dir, "access.log"), "utf8").split("\n").filter(Boolean) : []),
    close,
    [Symbol.asyncDispose]: close,
  };
}
