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
 * `ms` scaled for the machine, or at once, with its error, if `check` throws.
 * The one polling loop of the tests: a test
 * waits for something it cannot await through this (or {@link untilValue}),
 * never through a loop of its own around a fixed sleep.
 */
export async function until(check: () => boolean | Promise<boolean>, what: string | (() => string), ms = 5000): Promise<void> {
  const timeout = scaledMs(ms);
  try {
    await vi.waitUntil(check, { timeout, interval: 20 });
  } catch (cause) {
    const named = typeof what === "function" ? what() : what;
    const timedOut = cause instanceof Error && cause.message === "Timed out in waitUntil!";
    throw new Error(timedOut ? `${named}: not within ${timeout} ms` : `${named}: the check failed: ${String(cause)}`, { cause });
  }
}

/**
 * Reads `read()` until `holds` its value, and resolves with that value (the
 * polling of {@link until}, for a wait whose result the test goes on to
 * check); rejects naming `what` and the last value read if it never holds.
 */
export async function untilValue<T>(
  read: () => T | Promise<T>,
  holds: (value: T) => boolean,
  what: string | (() => string),
  ms = 5000,
): Promise<T> {
  let last: { value: T } | undefined;
  await until(
    async () => holds((last = { value: await read() }).value),
    () => `${typeof what === "function" ? what() : what} (last read: ${last ? shown(last.value) : "nothing yet"})`,
    ms,
  );
  return last!.value;
}

/** A value for a failure message: JSON where it can be, else its string form, cut at 500 characters. */
function shown(value: unknown): string {
  let text: string;
  try {
    text = value instanceof Error ? `${value.name}: ${value.message}` : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
