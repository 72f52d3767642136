/**
 * @module test/helpers/procs
 * Test helpers: find live processes by a substring of their command line
 * (Linux /proc), and run a node process to its end with a kill deadline.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Pids of live (non-zombie) processes whose command line contains `needle`. */
export function pidsMatching(needle: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ");
      const state = readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]?.[0];
      if (cmd.includes(needle) && state !== "Z") out.push(Number(pid));
    } catch {
      // gone
    }
  }
  return out;
}

/** Wait until no process matches `needle` (or the deadline passes); returns the survivors. */
export async function waitGone(needle: string, ms = 5000): Promise<number[]> {
  const end = Date.now() + ms;
  let left = pidsMatching(needle);
  while (left.length && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    left = pidsMatching(needle);
  }
  return left;
}

/** What a finished `runNode` produced. */
export interface NodeRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Run `node ...args` to its end in its own process group, collecting stdout
 * and stderr; the whole group is SIGKILLed after `ms` (the run then ends
 * with a null code).
 */
export function runNode(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; ms?: number }): Promise<NodeRun> {
  return runProgram(process.execPath, args, options);
}

/** `runNode` for any program: `file` spawned directly (no shell), to its end, its group SIGKILLed after `ms` (default 60 s). */
export function runProgram(
  file: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; ms?: number },
): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      ...(options.env ? { env: options.env } : {}),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }, options.ms ?? 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
