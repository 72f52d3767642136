/**
 * @module test/helpers/procs
 * Test helpers: find live processes by a substring of their command line (Linux /proc).
 */
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
