/**
 * @module mcp/client/call-signal
 * The per-call cancellation handle `MCPClient.callTool` gives the SDK.
 *
 * The SDK's `Protocol.request` (pinned `@modelcontextprotocol/sdk` 1.32.2)
 * reads four members of a request's signal: `aborted`, `reason`,
 * `throwIfAborted()` and `addEventListener("abort", fn)` — and never removes
 * the listener it adds. So the signal must be per call (a run's long-lived
 * signal would collect one listener per call), and a real `AbortController`
 * per call costs ~8 µs of CPU on Node 20 (an `EventTarget` built and
 * collected each time: measured at 50 vs 42 µs client CPU per stdio call).
 * `CallSignal` is the same contract as a plain object: it is dropped with the
 * call, listener and all. The mid-call cancellation tests run through it, so
 * an SDK that needed more of `AbortSignal` would fail them.
 */

type AbortListener = (this: unknown, event: { readonly type: "abort" }) => void;

/** A one-shot abort flag with the `AbortSignal` members the SDK's request path uses. */
export class CallSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners?: AbortListener[];

  /** Abort once: set `aborted`/`reason`, then call every listener (a throwing one is ignored). */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const event = { type: "abort" } as const;
    const all = this.listeners ?? [];
    this.listeners = undefined;
    for (const fn of all) {
      try {
        fn.call(this, event);
      } catch {
        // as an EventTarget does: one listener's error does not stop the others
      }
    }
  }

  /** Throw `reason` if aborted (as `AbortSignal.throwIfAborted()`). */
  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** Listen for `"abort"` (other types are ignored: nothing else is dispatched). */
  addEventListener(type: string, fn: AbortListener | null): void {
    if (type !== "abort" || typeof fn !== "function" || this.aborted) return;
    (this.listeners ??= []).push(fn);
  }

  /** This object, typed as what the SDK's `RequestOptions.signal` declares. */
  asSignal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}
