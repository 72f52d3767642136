/**
 * @module test/helpers/wait
 * Waiting for something a test cannot await directly (a notification that
 * arrives on its own, a process's output), with a deadline that scales with
 * the machine: on a loaded machine (load average above its cores) the
 * deadline grows by the same factor, up to ten times, so a busy CI box waits
 * longer instead of failing; a quiet one fails as fast as written.
 */
import { availableParallelism, loadavg } from "node:os";
import { vi } from "vitest";

/** How much longer than written a deadline is on this machine now: the 1-minute load per core, from 1 to 10. */
export function machineScale(): number {
  return Math.min(10, Math.max(1, loadavg()[0]! / availableParallelism()));
}

/** `ms` scaled for this machine's load (see {@link machineScale}). */
export function scaledMs(ms: number): number {
  return Math.round(ms * machineScale());
}

/**
 * Resolves once `check` is true (polled every 20 ms); rejects, naming `what`
 * (a function: read when it fails) and the deadline, if it is not true within
 * `ms` scaled for the machine.
 */
export async function until(check: () => boolean | Promise<boolean>, what: string | (() => string), ms = 3000): Promise<void> {
  const timeout = scaledMs(ms);
  try {
    await vi.waitUntil(check, { timeout, interval: 20 });
  } catch {
    throw new Error(`${typeof what === "function" ? what() : what}: not within ${timeout} ms`);
  }
}
