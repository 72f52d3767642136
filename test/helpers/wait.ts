/**
 * @module test/helpers/wait
 * Waiting for something a test cannot await directly (a notification that
 * arrives on its own, a process's output), with a deadline that scales with
 * the machine: on a loaded machine (load average above its cores) the
 * deadline grows by the same factor, up to ten times, so a busy CI box waits
 * longer instead of failing; a quiet one fails as fast as written.
 *
 * It polls on the real clock even while a test has vitest's fake timers on
 * (the timers are taken when this module loads, before any test fakes them),
 * and never moves a fake clock itself (vi.waitUntil would: it advances fake
 * timers by its interval on every check), so a fake-clock test decides alone
 * when its time passes. It needs no `vi`: vitest's main process (a global
 * setup's teardown) can use it too.
 */
import { availableParallelism, loadavg } from "node:os";

const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;
const realNow = performance.now.bind(performance);

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
  const named = (): string => (typeof what === "function" ? what() : what);
  const deadline = realNow() + timeout;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => (timer = realSetTimeout(() => resolve("late"), timeout)));
  try {
    for (;;) {
      let held: boolean | "late";
      try {
        held = await Promise.race([check(), late]);
      } catch (cause) {
        throw new Error(`${named()}: the check failed: ${String(cause)}`, { cause });
      }
      if (held === true) return;
      if (held === "late" || realNow() >= deadline) throw new Error(`${named()}: not within ${timeout} ms`);
      await new Promise((resolve) => realSetTimeout(resolve, 20));
    }
  } finally {
    realClearTimeout(timer);
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

/**
 * For a test on vitest's fake timers whose work also needs real I/O (a
 * loopback socket): advances the fake clock `stepMs` at a time, with a real
 * event-loop turn between steps so sockets are read, until `pending` settles;
 * its result. Rejects if it is still pending after `limitMs` of fake time.
 */
export async function settledOnFakeTime<T>(pending: Promise<T>, stepMs: number, limitMs = 60_000): Promise<T> {
  const { vi } = await import("vitest");
  let settled = false;
  void pending.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let advanced = 0; !settled; advanced += stepMs) {
    if (advanced >= limitMs) throw new Error(`still pending after ${limitMs} ms of fake time`);
    await vi.advanceTimersByTimeAsync(stepMs);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return pending;
}
