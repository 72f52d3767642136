/**
 * @module cli/cli-process
 * One run of a CLI binary: spawned directly (never through npx or a shell) in
 * its own process group with stdin closed, stdout read as JSON lines, a
 * deadline and a cancellation signal that both kill the whole process tree.
 */
import { spawn } from "node:child_process";
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
    let how: CliExit["how"] = "exit";
    let stderr = "";
    let settled = false;
    let child;
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
    const kill = (why: CliExit["how"]) => {
      if (how === "exit") how = why;
      if (child.pid !== undefined) killTree(child.pid);
    };
    const timer = spec.timeoutMs !== undefined ? setTimeout(() => kill("timeout"), spec.timeoutMs) : undefined;
    const onAbort = () => kill("cancelled");
    if (spec.signal?.aborted) queueMicrotask(onAbort);
    else spec.signal?.addEventListener("abort", onAbort, { once: true });
    const stop = () => kill("stopped");

    const decoder = new StringDecoder("utf8");
    let buffer = "";
    const flushLines = (final: boolean) => {
      let nl;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, "");
        buffer = buffer.slice(nl + 1);
        if (line.trim()) deliver(line);
      }
      if (final && buffer.trim()) {
        const line = buffer;
        buffer = "";
        deliver(line);
      }
    };
    const deliver = (line: string) => {
      if (how !== "exit") return; // killed: the rest is noise
      try {
        spec.onLine(line, stop);
      } catch {
        // a handler bug must not leave the child running
        stop();
      }
    };
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += decoder.write(chunk);
      flushLines(false);
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      if (stderr.length > STDERR_KEEP) stderr = stderr.slice(-STDERR_KEEP);
    });
    const finish = (exit: CliExit) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
      // the leader is gone; anything it left in its group goes too
      if (child.pid !== undefined) killTree(child.pid);
      resolve(exit);
    };
    child.on("error", (err) => {
      if (child.pid === undefined) finish({ how: "spawn_error", code: null, signal: null, stderr, error: err });
    });
    // Once the leader exits, whatever it left in its group (a shell, a stdio
    // server) would hold stdout open and keep "close" from firing: end it.
    child.on("exit", () => {
      if (child.pid !== undefined) killTree(child.pid);
    });
    child.on("close", (code, signal) => {
      buffer += decoder.end();
      flushLines(true);
      finish({ how, code, signal, stderr });
    });
  });
}
