/**
 * @module cli/cli-process
 * One run of a CLI binary: spawned directly (never through npx or a shell) in
 * its own process group with stdin closed, stdout read as JSON lines, a
 * deadline and a cancellation signal that both kill the whole process tree.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { killTree } from "../wire/process-tree.js";

/** Environment variables for the child: a value of `undefined` removes the variable. */
export type EnvOverlay = Readonly<Record<string, string | undefined>>;

/**
 * The child's environment: `process.env` (unless `inherit` is false) with
 * `overlay` laid over it; an `undefined` value removes a variable.
 */
export function childEnv(overlay: EnvOverlay | undefined, inherit = true): Record<string, string> {
  const env: Record<string, string> = {};
  if (inherit) for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  for (const [k, v] of Object.entries(overlay ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** How a CLI run ended. */
export interface CliExit {
  /** `exit`: the process ended by itself; `timeout`, `cancelled`, `stopped`: we killed it; `spawn_error`: it never started. */
  readonly how: "exit" | "timeout" | "cancelled" | "stopped" | "spawn_error";
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The tail of stderr (at most 64 KiB). */
  readonly stderr: string;
  /** The spawn failure, for `spawn_error`. */
  readonly error?: Error;
}

/** What `runCli` needs. */
export interface CliRunSpec {
  readonly binary: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly env: Record<string, string>;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Called for every complete stdout line, in order. Call `stop()` to kill the tree early (ends as `stopped`). */
  readonly onLine: (line: string, stop: () => void) => void;
}

const STDERR_KEEP = 64 * 1024;

/**
 * Run a CLI to its end. Resolves (never rejects) once the child has exited and
 * its stdout was fully read. The child is `detached` (its own process group)
 * so a timeout, a cancellation or `stop()` can kill everything it started.
 */
export function runCli(spec: CliRunSpec): Promise<CliExit> {
  return new Promise<CliExit>((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(spec.binary, [...spec.args], {
        cwd: spec.cwd,
        env: spec.env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
        windowsHide: true,
      });
    } catch (err) {
      resolve({ how: "spawn_error", code: null, signal: null, stderr: "", error: err as Error });
      return;
    }
    new CliProcess(spec, child, resolve);
  });
}

/** One spawned CLI: its deadline and cancellation, its stdout split into lines, its stderr tail, and how it ended. */
class CliProcess {
  private how: CliExit["how"] = "exit";
  private stderr = "";
  private settled = false;
  private buffer = "";
  private readonly decoder = new StringDecoder("utf8");
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly spec: CliRunSpec,
    private readonly child: ChildProcess,
    private readonly resolve: (exit: CliExit) => void,
  ) {
    this.timer = spec.timeoutMs !== undefined ? setTimeout(() => this.kill("timeout"), spec.timeoutMs) : undefined;
    if (spec.signal?.aborted) queueMicrotask(this.onAbort);
    else spec.signal?.addEventListener("abort", this.onAbort, { once: true });
    child.stdout!.on("data", (chunk: Buffer) => {
      this.buffer += this.decoder.write(chunk);
      this.flushLines(false);
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString("utf8");
      if (this.stderr.length > STDERR_KEEP) this.stderr = this.stderr.slice(-STDERR_KEEP);
    });
    child.on("error", (err) => {
      if (child.pid === undefined) this.finish({ how: "spawn_error", code: null, signal: null, stderr: this.stderr, error: err });
    });
    // Once the leader exits, whatever it left in its group (a shell, a stdio
    // server) would hold stdout open and keep "close" from firing: end it.
    child.on("exit", () => this.killGroup());
    child.on("close", (code, signal) => {
      this.buffer += this.decoder.end();
      this.flushLines(true);
      this.finish({ how: this.how, code, signal, stderr: this.stderr });
    });
  }

  private readonly onAbort = (): void => this.kill("cancelled");
  private readonly stop = (): void => this.kill("stopped");

  private kill(why: CliExit["how"]): void {
    if (this.how === "exit") this.how = why;
    this.killGroup();
  }

  private killGroup(): void {
    if (this.child.pid !== undefined) killTree(this.child.pid);
  }

  private flushLines(final: boolean): void {
    let nl;
    while ((nl = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, "");
      this.buffer = this.buffer.slice(nl + 1);
      if (line.trim()) this.deliver(line);
    }
    if (final && this.buffer.trim()) {
      const line = this.buffer;
      this.buffer = "";
      this.deliver(line);
    }
  }

  private deliver(line: string): void {
    if (this.how !== "exit") return; // killed: the rest is noise
    try {
      this.spec.onLine(line, this.stop);
    } catch {
      // a handler bug must not leave the child running
      this.stop();
    }
  }

  private finish(exit: CliExit): void {
    if (this.settled) return;
    this.settled = true;
    if (this.timer) clearTimeout(this.timer);
    this.spec.signal?.removeEventListener("abort", this.onAbort);
    // the leader is gone; anything it left in its group goes too
    this.killGroup();
    this.resolve(exit);
  }
}
