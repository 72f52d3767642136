/**
 * @module express/listen-streams
 * The `subscriptions/listen` streams (MCP 2026-07-28) of one hosted router,
 * counted: per principal (the token's client and end user, so a caller
 * holding many tokens counts once) and router-wide, each under its own
 * option; and bounded in time: a stream ends at `maxLifetimeMs`, or at its
 * token's expiry if that is sooner, with the protocol's graceful close (the
 * empty `subscriptions/listen` result), as the SDK ends one on shutdown.
 * The SDK's handler serves the stream itself; this only admits and ends it.
 */
import type { ListenLimits } from "./router-options.js";
import { sdkServer } from "../mcp/peers/sdk-server.js";
import { ignoreRejection } from "../util/logger.js";
import { PACKAGE_VERSION } from "../util/package-version.js";

/** An admitted stream: end it in time with `bound`, and `release` its slot once its response is over. */
export interface ListenSlot {
  readonly ok: true;
  /**
   * The SDK's listen response with its body ended gracefully at `endsAtMs` (epoch ms); a response that is not a stream
   * is returned as it is.
   */
  bound(response: Response, id: unknown, endsAtMs: number): Response;
  /** Give the slot back (idempotent). */
  release(): void;
}

/** A refused stream: the message names the limit and its option. */
export interface ListenRefusal {
  readonly ok: false;
  readonly message: string;
}

/** The open streams of one router (see the module note). */
export class ListenStreams {
  private open = 0;
  private readonly byCaller = new Map<string, number>();

  constructor(
    private readonly limits: Required<ListenLimits>,
    /** The server's identity, stamped on the graceful close as the SDK stamps it. */
    private readonly serverName: string,
  ) {}

  /** A slot for one more stream of `principal`, or the refusal naming the cap it would pass. */
  take(principal: string): ListenSlot | ListenRefusal {
    const { maxStreams, maxStreamsPerCaller } = this.limits;
    const held = this.byCaller.get(principal) ?? 0;
    if (held >= maxStreamsPerCaller) {
      return {
        ok: false,
        message:
          `subscriptions/listen refused: at most ${maxStreamsPerCaller} open subscriptions/listen streams for one ` +
          `caller (listen.maxStreamsPerCaller), and this caller holds them all; close one (or raise the option)`,
      };
    }
    if (this.open >= maxStreams)
      return {
        ok: false,
        message:
          `subscriptions/listen refused: at most ${maxStreams} open subscriptions/listen streams (listen.maxStreams) ` +
          `on this server, all taken; retry later (or raise the option)`,
      };
    this.open++;
    this.byCaller.set(principal, held + 1);
    let released = false;
    return {
      ok: true,
      bound: (response, id, endsAtMs) => this.bound(response, id, endsAtMs),
      release: () => {
        if (released) return;
        released = true;
        this.open--;
        const n = (this.byCaller.get(principal) ?? 1) - 1;
        if (n > 0) this.byCaller.set(principal, n);
        else this.byCaller.delete(principal);
      },
    };
  }

  /** Streams open now (for tests and health lines). */
  get size(): number {
    return this.open;
  }

  private bound(response: Response, id: unknown, endsAtMs: number): Response {
    if (!response.body || !response.headers.get("content-type")?.startsWith("text/event-stream")) return response;
    const lifetime = Math.min(this.limits.maxLifetimeMs, Math.max(0, endsAtMs - Date.now()));
    return new Response(endAfter(response.body, lifetime, this.closing(id)), { status: response.status, headers: response.headers });
  }

  /** The graceful close of stream `id`: the empty listen result, `_meta` naming the subscription and the server (the SDK's own frame). */
  private closing(id: unknown): Uint8Array {
    const { SUBSCRIPTION_ID_META_KEY, SERVER_INFO_META_KEY } = sdkServer();
    const result = {
      resultType: "complete",
      _meta: { [SUBSCRIPTION_ID_META_KEY]: id, [SERVER_INFO_META_KEY]: { name: this.serverName, version: PACKAGE_VERSION } },
    };
    return new TextEncoder().encode(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id, result })}\n\n`);
  }
}

/**
 * `source` passed through until `ms` have passed; then `source` is cancelled
 * (the SDK's listen stream unsubscribes) and `last` is written before the
 * end. A reader that leaves first cancels `source` and the timer.
 */
function endAfter(source: ReadableStream<Uint8Array>, ms: number, last: Uint8Array): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let timer: NodeJS.Timeout | undefined;
  let ended = false;
  const end = (controller: ReadableStreamDefaultController<Uint8Array>, frame?: Uint8Array): void => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    if (frame) controller.enqueue(frame);
    controller.close();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      timer = setTimeout(() => {
        reader.cancel().catch(ignoreRejection("ending a subscriptions/listen stream past its lifetime"));
        end(controller, last);
      }, ms);
    },
    async pull(controller) {
      const r = await reader.read();
      if (ended) return;
      if (r.done) return end(controller);
      controller.enqueue(r.value);
    },
    cancel(reason) {
      ended = true;
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  });
}
