/**
 * @module mcp/sdk-reach
 * The one place the package depends on how the MCP client SDK
 * (`@modelcontextprotocol/client` 2.x) works inside, rather than on its
 * public API. It stays because the public path costs more than the per-call
 * budget (measured, below), and it is checked against the installed SDK by
 * `test/mcp-client/sdk-reach.test.ts`, which fails, naming what changed, on
 * an SDK that works differently.
 *
 * `watchSseBody`: the SDK's HTTP client transport reads an ok SSE response
 * body only as `body.pipeThrough(new TextDecoderStream())`, or cancels it.
 * Giving that one stream a `pipeThrough` that is the `pipeTo` it stands for
 * tells how the body ended without wrapping it; a wrapping `ReadableStream`
 * plus a new `Response` costs 30–60 µs of CPU per call more (measured;
 * a `TransformStream` more still), 3–6 % of an HTTP call's client CPU.
 *
 * (SDK 1.x needed a second reach, `CallSignal`: its request path never
 * removed the abort listener it added to a call's signal. SDK 2.x removes
 * it, so `MCPClient.callTool` hands the run's own signal over; the reach
 * test keeps checking that the listener is removed.)
 */

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
