/**
 * @module test/agentkit-cli/agentkit-process
 * Driving the built `agentkit` command as a real subprocess: one-shot runs
 * (`runAgentkit`) and a long-lived `agentkit serve` (`ServeProcess`), each in
 * its own process group so the whole tree can be ended by pid.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { until } from "../helpers/wait.js";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The built entry (`npm run build`). */
export const AGENTKIT = join(ROOT, "dist/bin/agentkit.js");
/** The built sample modules. */
export const MODULES = join(ROOT, "build/samples/modules");
/** Plain-JS module fixtures (no build step). */
export const FIXTURES = join(ROOT, "test/fixtures/modules");
/** The reference server, over stdio. */
export const EVERYTHING = ["node", join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"];

/** Fail loudly (not with a confusing ENOENT) when the build is missing. */
export function requireBuild(): void {
  for (const f of [AGENTKIT, join(MODULES, "ops-module.js"), join(MODULES, "two-modules.js")]) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run npm run build first (npm test does)`);
  }
}

/** What a finished run produced. */
export interface RunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** End a process group: SIGTERM, then SIGKILL after `graceMs`. */
export async function killGroup(child: ChildProcess, graceMs = 2000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // gone
    }
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Run `node dist/bin/agentkit.js ...args` to completion (killed after
 * `timeoutMs`, default 30 s) and collect its output.
 */
export async function runAgentkit(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; input?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  const child = spawn(process.execPath, [AGENTKIT, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  child.stdin!.end(options.input ?? "");
  const timer = setTimeout(() => void killGroup(child), options.timeoutMs ?? 30_000);
  try {
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (c, s) => resolve([c, s]));
    });
    return { code, signal, stdout, stderr };
  } finally {
    clearTimeout(timer);
    await killGroup(child);
  }
}

/** A running `agentkit serve`. `await using s = await ServeProcess.start([...])`. */
export class ServeProcess implements AsyncDisposable {
  stdout = "";
  stderr = "";
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (this.stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => child.once("close", (code, signal) => resolve({ code, signal })));
  }

  /**
   * Spawn `agentkit serve ...args` and wait until stdout contains `ready`
   * (default: the "stops the server" line printed once serving); `bin` is
   * another agentkit.js (default: this checkout's), `cwd` where it runs
   * (default: the checkout), `command` the subcommand (default `serve`; `host`). Rejects with
   * its output if it exits first or `timeoutMs` passes.
   */
  static async start(
    args: readonly string[],
    options: { ready?: RegExp; timeoutMs?: number; env?: Record<string, string>; cwd?: string; bin?: string; command?: string } = {},
  ): Promise<ServeProcess> {
    const child = spawn(process.execPath, [options.bin ?? AGENTKIT, options.command ?? "serve", ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const s = new ServeProcess(child);
    const ready = options.ready ?? /stops the server/;
    let done: { code: number | null } | undefined;
    void s.exited.then((e) => (done = e));
    try {
      // Stops at once (the check throws) when the process exits before it is ready.
      const isReady = (): boolean => {
        if (ready.test(s.stdout)) return true;
        if (done) throw new Error(`exit ${done.code}`);
        return false;
      };
      await until(isReady, "ready", options.timeoutMs ?? 20_000);
    } catch {
      await s.kill();
      throw new Error(
        `agentkit ${options.command ?? "serve"} did not become ready (${done ? `exit ${done.code}` : "timeout"}):\nstdout: ${s.stdout}\nstderr: ${s.stderr}`,
      );
    }
    return s;
  }

  /** The URL it serves at (from its first stdout line). */
  get url(): string {
    const m = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(this.stdout);
    if (!m) throw new Error(`no URL in serve output:\n${this.stdout}`);
    return m[1]!;
  }

  /** The config file the printed Claude line names. */
  get configPath(): string {
    const m = /--mcp-config (\S+)/.exec(this.stdout);
    if (!m) throw new Error(`no --mcp-config in serve output:\n${this.stdout}`);
    return m[1]!;
  }

  /** The entry the config file (`configPath`) has for server `name`: its URL and headers (the bearer token). */
  serverEntry(name: string): { url: string; headers: Record<string, string> } {
    const config = JSON.parse(readFileSync(this.configPath, "utf8")) as {
      mcpServers: Record<string, { url: string; headers: Record<string, string> }>;
    };
    const entry = config.mcpServers[name];
    if (!entry) throw new Error(`no server '${name}' in ${this.configPath}: ${Object.keys(config.mcpServers).join(", ")}`);
    return entry;
  }

  /** The one-time inbox login link `--approve web` printed on stderr (waits up to `timeoutMs` for it). */
  async loginLink(timeoutMs = 10_000): Promise<string> {
    const pattern = /log in to the approval inbox with: (http:\S+)/;
    await until(
      () => pattern.test(this.stderr),
      () => `the inbox login link on stderr (stderr: ${this.stderr})`,
      timeoutMs,
    );
    return pattern.exec(this.stderr)![1]!;
  }

  /** The port it listens on. */
  get port(): number {
    return Number(new URL(this.url).port);
  }

  /** Send `signal` to the serve process itself and wait for it to exit (killed after `timeoutMs`). */
  async stop(signal: NodeJS.Signals = "SIGTERM", timeoutMs = 15_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.kill(signal);
    const timer = setTimeout(() => void this.kill(), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Wait for the process to exit by itself (after a signal already sent); killed after `timeoutMs`. */
  async exit(timeoutMs = 15_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const timer = setTimeout(() => void this.kill(), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** End the whole process group. */
  async kill(): Promise<void> {
    await killGroup(this.child);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.kill();
  }
}

/** True when nothing listens on 127.0.0.1:`port` any more (we can bind it ourselves). */
export async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
