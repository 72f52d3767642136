/**
 * @module test/mcp-client/support
 * Shared helpers of the MCP client tests: fixture paths, subprocess servers
 * started and stopped by pid, process-tree inspection, warning and log capture.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { setLogger, type Logger } from "../../src/util/logger.js";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const NODE = process.execPath;

/** Absolute path of a fixture under test/fixtures/servers. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`../fixtures/servers/${name}`, import.meta.url));
}

export const EVERYTHING = `${ROOT}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
export const FILESYSTEM = `${ROOT}node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`;

/** A fresh tag for `AGENTKIT_TREE_TAG`, so a test can find every process it caused. */
export function newTag(): string {
  return randomUUID();
}

/** Live (non-zombie) processes whose environment carries `AGENTKIT_TREE_TAG=<tag>`. */
export function taggedProcesses(tag: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${pid}/environ`, "latin1");
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      const state = stat.slice(stat.lastIndexOf(")") + 2)[0];
      if (state !== "Z" && env.split("\0").includes(`AGENTKIT_TREE_TAG=${tag}`)) out.push(Number(pid));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/** Kill every process carrying `tag` (cleanup for control experiments). */
export function killTagged(tag: string): void {
  for (const pid of taggedProcesses(tag)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

/** A server subprocess the test owns: killed by pid (SIGTERM, then SIGKILL) on dispose. */
export class ServerProcess implements AsyncDisposable {
  constructor(
    readonly child: ChildProcess,
    readonly url: string,
    readonly stderr: () => string,
  ) {}

  async stop(): Promise<void> {
    const c = this.child;
    if (c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once("exit", r));
    c.kill("SIGTERM");
    const t = setTimeout(() => c.kill("SIGKILL"), 3000);
    await exited;
    clearTimeout(t);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}

function startServer(
  args: string[],
  env: Record<string, string>,
  portFrom: (out: string, err: string) => number | undefined,
  path: string,
): Promise<ServerProcess> {
  const child = spawn(NODE, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], cwd: ROOT });
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server ${args.join(" ")} did not report a port in 15 s; stderr: ${err}`));
    }, 15_000);
    const check = () => {
      const port = portFrom(out, err);
      if (port !== undefined) {
        clearTimeout(timer);
        resolve(new ServerProcess(child, `http://127.0.0.1:${port}${path}`, () => err));
      }
    };
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      check();
    });
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      check();
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server ${args.join(" ")} exited early with ${code}; stderr: ${err}`));
    });
  });
}

/** test/fixtures/servers/bearer-http-server.mjs as a subprocess; `url` is its /mcp endpoint. */
export function startBearerHttpServer(token: string): Promise<ServerProcess> {
  return startServer(
    [fixture("bearer-http-server.mjs")],
    { TOKEN: token },
    (out) => {
      const m = /\{"port":(\d+)\}/.exec(out);
      return m ? Number(m[1]) : undefined;
    },
    "/mcp",
  );
}

/** test/fixtures/servers/modern-http-server.mjs (SDK v2 createMcpHandler, legacy "reject": 2026-07-28 only) behind bearer `token`; `url` is its /mcp endpoint. */
export function startModernHttpServer(token: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  return startServer(
    [fixture("modern-http-server.mjs")],
    { ...env, MODERN_TOKEN: token },
    (out) => {
      const m = /\{"port":(\d+)\}/.exec(out);
      return m ? Number(m[1]) : undefined;
    },
    "/mcp",
  );
}

/** test/fixtures/servers/oauth-http-server.mjs (an MCP server and its OAuth authorization server); `url` is its /mcp endpoint. */
export function startOAuthHttpServer(): Promise<ServerProcess> {
  return startServer(
    [fixture("oauth-http-server.mjs")],
    {},
    (out) => {
      const m = /\{"port":(\d+)\}/.exec(out);
      return m ? Number(m[1]) : undefined;
    },
    "/mcp",
  );
}

/** test/fixtures/servers/session-loss-http-server.mjs (loses its sessions when told); `url` is its /mcp endpoint. */
export function startSessionLossServer(): Promise<ServerProcess> {
  return startServer(
    [fixture("session-loss-http-server.mjs")],
    {},
    (out) => {
      const m = /\{"port":(\d+)\}/.exec(out);
      return m ? Number(m[1]) : undefined;
    },
    "/mcp",
  );
}

/** server-everything over streamableHttp, kept on 127.0.0.1 by the force-loopback preload; `url` is its /mcp endpoint. */
export function startEverythingHttp(): Promise<ServerProcess> {
  return startServer(
    ["--import", fixture("force-loopback.mjs"), EVERYTHING, "streamableHttp"],
    { PORT: "0" },
    (_out, err) => {
      const m = /force-loopback: listening on 127\.0\.0\.1:(\d+)/.exec(err);
      return m ? Number(m[1]) : undefined;
    },
    "/mcp",
  );
}

/** GET <base>/stats of the bearer fixture. */
export async function httpStats(server: ServerProcess): Promise<{
  openRequests: number;
  sessions: number;
  rpc: Record<string, number>;
  http: Record<string, number>;
  slowStarted: number;
  slowCancelled: number;
  seenAuth: string[];
}> {
  const r = await fetch(new URL("/stats", server.url));
  return (await r.json()) as never;
}

/** Collect process warnings until the returned `stop()` is called. */
export function captureWarnings(): { warnings: Error[]; stop: () => void } {
  const warnings: Error[] = [];
  const on = (w: Error) => warnings.push(w);
  process.on("warning", on);
  return { warnings, stop: () => process.off("warning", on) };
}

/** Route the package logger into an array until `restore()`. */
export function captureLog(): { warnings: string[]; restore: () => void } {
  const warnings: string[] = [];
  const logger: Logger = { debug: () => {}, info: () => {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
  const prev = setLogger(logger);
  return { warnings, restore: () => void setLogger(prev) };
}
