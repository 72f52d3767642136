/**
 * @module mcp/client/answer-grace
 * A 2026-07-28 `tools/call` that declared the tasks extension may already be
 * answered with a task handle (written by the server, on its way) when its
 * caller aborts. Aborted at that moment, the SDK closes the request's stream
 * and drops the answer: the task would go on (a person asked about it, a side
 * effect done once they approve) with nobody knowing its id. So the SDK's
 * request hears the caller's abort `ANSWER_GRACE_MS` later: an answer already
 * on its way arrives, and a task in it is cancelled with `tasks/cancel`; an
 * answer that has not come by then is given up as before (its request's
 * stream closes, or on stdio `notifications/cancelled` is sent, which cancels
 * the call on the server).
 */

/** How long an aborted call's answer may still arrive (loopback answers arrive within a millisecond; on a loaded machine, tens of milliseconds). */
export const ANSWER_GRACE_MS = 250;

/** `signal`, followed `ms` after it aborts (at once when it already has); `release()` when the request settled. */
export function graceSignal(
  signal: AbortSignal | undefined,
  ms = ANSWER_GRACE_MS,
): { readonly signal: AbortSignal | undefined; release(): void } {
  if (!signal || signal.aborted) return { signal, release: () => {} };
  const own = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const later = (): void => {
    timer = setTimeout(() => own.abort(signal.reason), ms);
  };
  signal.addEventListener("abort", later, { once: true });
  return {
    signal: own.signal,
    release: () => {
      signal.removeEventListener("abort", later);
      clearTimeout(timer);
    },
  };
}
