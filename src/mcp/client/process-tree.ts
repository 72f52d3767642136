/**
 * @module mcp/client/process-tree
 * Ending a whole process group: the stdio transport spawns its server as the
 * leader of a new group, so a launcher (`npx`, `uvx`, a shell script) and the
 * real server it starts share one group id and can be ended together.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Send `signal` to every process of group `pgid`. False when the group is gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
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
  if (process.platform !== "linux") return signalGroup(pgid, 0 as unknown as NodeJS.Signals) ? [pgid] : [];
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      // fields after "comm)": state ppid pgrp ...
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(rest[2]) === pgid && rest[0] !== "Z") found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
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

// Groups still running when this process exits without closing its clients.
const live = new Set<number>();
let hooked = false;

function onExit(): void {
  for (const pgid of live) signalGroup(pgid, "SIGTERM");
}

/**
 * Remember a group so that, if this process exits without closing the client
 * that owns it, the group still gets SIGTERM (synchronously, from the `exit` hook).
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
