/**
 * @module wire/process-tree
 * Ending a process and everything it started. Both the stdio MCP client and
 * the CLI cognitions spawn their child as the leader of a new process group
 * (`detached`), so a launcher (`npx`, `uvx`, a shell script) or a CLI and what
 * it starts (shells, `rg`, hook commands, stdio MCP servers) share one group
 * id and can be ended together; a descendant that left the group is found
 * through its parent chain. On Linux the process table is read from /proc.
 */
import { readdirSync, readFileSync } from "node:fs";

/** One row of the process table. */
interface ProcRow {
  readonly pid: number;
  /** The state letter (`R`, `S`, `Z`, ...). */
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
}

/** Every process in /proc (Linux; empty elsewhere or when /proc cannot be read). */
function processTable(): ProcRow[] {
  if (process.platform !== "linux") return [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const rows: ProcRow[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      // "pid (comm) state ppid pgrp ...": comm may hold spaces and parens, so split after the last ")".
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      rows.push({ pid: Number(entry), state: rest[0] ?? "", ppid: Number(rest[1]), pgrp: Number(rest[2]) });
    } catch {
      // the process ended while we looked
    }
  }
  return rows;
}

/** Send `signal` to every process of group `pgid`. False when the group is gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * The live (non-zombie) members of group `pgid`. On Linux this reads /proc, so
 * zombies that nobody reaps (PID 1 in some containers does not) do not count;
 * elsewhere a signal-0 probe answers "some member exists" with `[pgid]`.
 */
export function groupMembers(pgid: number): number[] {
  if (process.platform !== "linux") return signalGroup(pgid, 0) ? [pgid] : [];
  return processTable()
    .filter((p) => p.pgrp === pgid && p.state !== "Z")
    .map((p) => p.pid);
}

/** The pids of every live descendant of `root` (Linux: read from /proc; elsewhere empty). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const p of processTable()) {
    if (p.state === "Z") continue;
    const list = children.get(p.ppid) ?? [];
    list.push(p.pid);
    children.set(p.ppid, list);
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
 * The pids of live processes (not this one) started with `entry` (`NAME=value`)
 * in their environment (Linux: read from /proc/<pid>/environ; elsewhere
 * empty). Processes that are not ours to read are skipped.
 */
export function findProcessesWithEnv(entry: string): number[] {
  const out: number[] = [];
  for (const p of processTable()) {
    if (p.state === "Z" || p.pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${p.pid}/environ`, "utf8").split("\0").includes(entry)) out.push(p.pid);
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/** Wait until none of `pids` is alive (a zombie counts as gone), polling, for at most `ms`. True when all are gone. */
export async function waitPidsGone(pids: readonly number[], ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  for (;;) {
    const live = new Set(
      processTable()
        .filter((p) => p.state !== "Z")
        .map((p) => p.pid),
    );
    if (!pids.some((pid) => live.has(pid))) return true;
    if (performance.now() >= deadline) return false;
    await sleep(25);
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Wait until group `pgid` has no live member, polling, for at most `ms`. True when it is empty. */
export async function waitGroupGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  for (;;) {
    if (groupMembers(pgid).length === 0) return true;
    if (performance.now() >= deadline) return false;
    await sleep(25);
  }
}

/**
 * End group `pgid`: SIGTERM, wait up to `graceMs`, then SIGKILL and wait up to
 * `graceMs` again. Resolves true when no live member is left.
 */
export async function endGroup(pgid: number, graceMs: number): Promise<boolean> {
  if (groupMembers(pgid).length === 0) return true;
  signalGroup(pgid, "SIGTERM");
  if (await waitGroupGone(pgid, graceMs)) return true;
  signalGroup(pgid, "SIGKILL");
  return waitGroupGone(pgid, graceMs);
}

/**
 * Kill `pid`, its process group (spawned `detached`, so the group id is the
 * pid) and every descendant that left the group, with `signal` (default
 * SIGKILL), at once. Descendants are collected before anything is signalled,
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

// Groups still running when this process exits without closing their owners.
const live = new Set<number>();
let hooked = false;

function onExit(): void {
  for (const pgid of live) signalGroup(pgid, "SIGTERM");
}

/**
 * Remember a group so that, if this process exits without ending it, the
 * group still gets SIGTERM (synchronously, from the `exit` hook).
 */
export function trackGroup(pgid: number): void {
  live.add(pgid);
  if (!hooked) {
    hooked = true;
    process.once("exit", onExit);
  }
}

/** Forget a group once it has been ended. */
export function untrackGroup(pgid: number): void {
  live.delete(pgid);
}
