/**
 * @module bench/lib/child-server
 * Start a benchmark server in its own Node process and talk to it: the child
 * prints one `READY {json}` line on stdout (its URL and auth headers), answers
 * `MEM` on stdin with `MEM {json}` (heap and RSS after two full GCs) and `CPU`
 * with `CPU <µs>` (its user + system CPU so far), and exits
 * when its stdin closes or on SIGTERM. Every contender runs this way, so they
 * all pay the same process boundary.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The server kinds `servers/http-server.ts` knows. */
export type ServerKind =
  | "agentkit"
  | "agentkit-stateless"
  | "sdk"
  | "sdk2"
  | "sdk2-modern"
  | "sdk-json"
  | "sdk-stateless"
  | "fastmcp"
  | "express"
  | "approvals"
  | "sdk-approve"
  | "model-api"
  | "hosted"
  | "sdk-express";

/** What the child reported when ready. */
export interface Ready {
  readonly url: string;
  readonly headers: Record<string, string>;
}

/** Heap and RSS of the child after full GCs. */
export interface MemorySample {
  readonly heapUsed: number;
  readonly rss: number;
  readonly external: number;
  readonly arrayBuffers: number;
  /** Open sessions the server holds, when it can tell (-1 otherwise). */
  readonly sessions: number;
  /** Socket writes the child has made so far (all sockets). */
  readonly socketWrites: number;
  /** agentkit only: AbortSignal.any composites still registered on the served run's signal (-1 elsewhere). */
  readonly retained: number;
}

/** A running child server. */
export interface ChildServer extends Ready, AsyncDisposable {
  readonly kind: ServerKind;
  readonly pid: number;
  /** Ask the child for its memory after two full GCs. */
  memory(): Promise<MemorySample>;
  /** The child's user + system CPU so far, in µs (all its threads). */
  cpu(): Promise<number>;
  /** End the child (stdin closed, then SIGTERM, then SIGKILL) and wait for it. */
  stop(): Promise<void>;
}

const serverScript = fileURLToPath(new URL("../servers/http-server.js", import.meta.url));

/**
 * Node flags for every child server, from `BENCH_SERVER_FLAGS` (space-separated),
 * e.g. `BENCH_SERVER_FLAGS="--cpu-prof --cpu-prof-dir=prof"` to profile the
 * servers (`NODE_OPTIONS` refuses `--cpu-prof`).
 */
const serverFlags = (process.env["BENCH_SERVER_FLAGS"] ?? "").split(" ").filter(Boolean);

/** Spawn `node build/bench/servers/http-server.js <kind> [args...]` and wait for READY (at most 20 s). */
export async function startServer(kind: ServerKind, args: readonly string[] = []): Promise<ChildServer> {
  const child = spawn(process.execPath, ["--expose-gc", ...serverFlags, serverScript, kind, ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const waiters: Array<(line: string) => void> = [];
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  lines.on("line", (line) => {
    const w = waiters.shift();
    if (w) w(line);
  });
  const next = (prefix: string, timeoutMs: number): Promise<string> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`bench server '${kind}' (pid ${child.pid}) sent no ${prefix} line within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onExit = (): void => reject(new Error(`bench server '${kind}' exited before sending ${prefix}`));
      child.once("exit", onExit);
      const take = (line: string): void => {
        if (!line.startsWith(`${prefix} `)) {
          waiters.unshift(take); // a stray log line: keep waiting
          return;
        }
        clearTimeout(timer);
        child.off("exit", onExit);
        resolve(line.slice(prefix.length + 1));
      };
      waiters.push(take);
    });
  let ready: Ready;
  try {
    ready = JSON.parse(await next("READY", 20_000)) as Ready;
  } catch (err) {
    await end(child, exited);
    throw err;
  }
  let stopping: Promise<void> | undefined;
  const server: ChildServer = {
    kind,
    pid: child.pid!,
    url: ready.url,
    headers: ready.headers,
    async memory() {
      const reply = next("MEM", 30_000);
      child.stdin!.write("MEM\n");
      return JSON.parse(await reply) as MemorySample;
    },
    async cpu() {
      const reply = next("CPU", 10_000);
      child.stdin!.write("CPU\n");
      return Number(await reply);
    },
    stop() {
      return (stopping ??= end(child, exited));
    },
    [Symbol.asyncDispose]() {
      return server.stop();
    },
  };
  return server;
}

async function end(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.stdin?.end();
  const wait = (ms: number): Promise<boolean> =>
    Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
  if (await wait(3000)) return;
  child.kill("SIGTERM");
  if (await wait(3000)) return;
  child.kill("SIGKILL");
  await exited;
}
