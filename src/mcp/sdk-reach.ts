/**
 * @module mcp/sdk-reach
 * The only two places the package depends on how `@modelcontextprotocol/sdk`
 * works inside, rather than on its public API. Each stays because the public
 * path costs more than the per-call budget (measured, below), and each is
 * checked against the installed SDK by `test/mcp-client/sdk-reach.test.ts`,
 * which fails, naming what changed, on an SDK that uses them differently.
 *
 * 1. `CallSignal`: the SDK's `Protocol.request` (1.32.2) reads four members of
 *    a request's `signal` — `aborted`, `reason`, `throwIfAborted()`,
 *    `addEventListener("abort", fn)` — and never removes the listener it adds.
 *    So the signal must be per call (a run's long-lived signal would collect
 *    one listener per call). A real `AbortController` per call costs 7–12 µs
 *    of CPU on Node 20 (built, listened to and collected: measured against
 *    ~0.8 µs for this object), about a fifth of the client's ~45 µs per stdio
 *    call; the client-overhead goal is 1.05x.
 * 2. `watchSseBody`: the SDK's HTTP client transport reads an ok SSE response
 *    body only as `body.pipeThrough(new TextDecoderStream())`, or cancels it.
 *    Giving that one stream a `pipeThrough` that is the `pipeTo` it stands for
 *    tells how the body ended without wrapping it; a wrapping `ReadableStream`
 *    plus a new `Response` costs 30–60 µs of CPU per call more (measured;
 *    a `TransformStream` more still), 3–6 % of an HTTP call's client CPU.
 */

type AbortListener = (this: unknown, event: { readonly type: "abort" }) => void;

/** A one-shot abort flag with the `AbortSignal` members the SDK's request path uses (see the module note). */
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

/** The members of an SSE body stream the SDK is expected to use (checked by the reach test). */
export const SSE_BODY_MEMBERS_USED = ["pipeThrough", "cancel"] as const;

/**
 * Watch an ok SSE response `body` the SDK will read (see the module note):
 * `ended` when it was read to its end or cancelled, `broke` when it errored
 * first (the server died or the connection dropped). A consumer that cancels
 * the piped stream itself would read as broken; the SDK never does (it reads
 * every SSE body to its end). Node's fetch does, when the transport closes
 * and aborts its requests (a long-lived GET stream): then `ended` and `broke`
 * are both called, and a closing transport reports nothing.
 */
export function watchSseBody(body: ReadableStream<Uint8Array>, ended: () => void, broke: (err: unknown) => void): void {
  Object.defineProperties(body, {
    pipeThrough: {
      configurable: true,
      value: (transform: { writable: WritableStream<Uint8Array>; readable: ReadableStream<unknown> }, options?: Parameters<ReadableStream<Uint8Array>["pipeTo"]>[1]): ReadableStream<unknown> => {
        body.pipeTo(transform.writable, options).then(ended, broke);
        return transform.readable;
      },
    },
    cancel: {
      configurable: true,
      value: (reason?: unknown): Promise<void> => {
        ended();
        return ReadableStream.prototype.cancel.call(body, reason);
      },
    },
  });
}
