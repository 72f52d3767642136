/**
 * @module util/quietly
 * One best-effort call: an event observer cannot break the run that emits
 * the event, a cancellation callback cannot stop the cancellation.
 */

/** Call `fn(arg)`, ignoring a throw (best-effort by contract: the callers document it). */
export function callQuietly<T>(fn: (arg: T) => void, arg: T): void {
  try {
    fn(arg);
  } catch {
    // best-effort by contract
  }
}
