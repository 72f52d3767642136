/**
 * @module cli/process-tree
 * Killing a CLI and everything it started. The CLIs spawn shells, `rg`, `git`,
 * hook commands and stdio MCP servers; killing only the direct child would
 * leave those behind.
 */
import { readdirSync, readFileSync } from "node:fs";

/** The pids of every live descendant of `root` (Linux: read from /proc; elsewhere empty). */
export function descendants(root: number): number[] {
  if (process.platform !== "linux") return [];
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      // "pid (comm) state ppid ...": comm may hold spaces and parens, so split after the last ")".
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // gone between readdir and read
    }
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    for (const c of children.get(queue.shift()!) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

/**
 * Kill `pid`, its process group (the CLIs are spawned `detached`, so the group
 * id is the pid) and every descendant that left the group, with `signal`
 * (default SIGKILL). Descendants are collected before anything is signalled,
 * so re-parented grandchildren are not missed. Never throws.
 */
export function killTree(pid: number, signal: NodeJS.Signals = "SIGKILL"): void {
  const all = descendants(pid);
  for (const target of [-pid, pid, ...all]) {
    try {
      process.kill(target, signal);
    } catch {
      // already gone, or not ours
    }
  }
}
