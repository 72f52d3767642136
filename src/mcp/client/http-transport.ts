/**
 * @module mcp/client/http-transport
 * The client transport for `StreamableHttpServer`: the SDK's current
 * `StreamableHTTPClientTransport` with a `fetch` that gives each request its
 * own `AbortSignal` and a close that ends the session and waits for every
 * request it started.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { sdkHttpClient } from "../sdk.js";
import type { StreamableHttpServer } from "./servers.js";

/**
 * A `fetch` that wraps each request's signal in `AbortSignal.any([signal])`.
 * The SDK transport hands one shared signal to every request; undici adds an
 * abort listener to it per request and removes it only at GC, so under load
 * Node prints `MaxListenersExceededWarning`. A fresh dependent signal per
 * request keeps the shared one clean. Every pending request is added to
 * `inflight` until it settles.
 */
export function isolatingFetch(inflight: Set<Promise<unknown>>, base: FetchLike = fetch): FetchLike {
  return (url, init) => {
    const p = base(url, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init);
    inflight.add(p);
    const forget = () => inflight.delete(p);
    p.then(forget, forget);
    return p;
  };
}

/** How long `close()` waits for the session's DELETE before giving up on it. */
const TERMINATE_MS = 2000;

/**
 * `StreamableHTTPClientTransport` over `server`: its `headers` on every
 * request, the isolating fetch, and a `close()` that (1) asks the server to
 * end the session (HTTP DELETE, bounded, errors ignored), (2) aborts every
 * stream, and (3) resolves only once no request it started is pending.
 * Idempotent.
 */
export class StreamableHttpTransport extends sdkHttpClient.StreamableHTTPClientTransport {
  private readonly inflight: Set<Promise<unknown>>;
  private closing?: Promise<void>;

  constructor(readonly server: StreamableHttpServer) {
    const inflight = new Set<Promise<unknown>>();
    super(new URL(server.url), { requestInit: { headers: { ...server.headers } }, fetch: isolatingFetch(inflight) });
    this.inflight = inflight;
  }

  override close(): Promise<void> {
    return (this.closing ??= this.teardown());
  }

  private async teardown(): Promise<void> {
    if (this.sessionId !== undefined) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.terminateSession().catch(() => {}),
        new Promise<void>((r) => (timer = setTimeout(r, Math.min(TERMINATE_MS, this.server.timeoutMs)))),
      ]);
      clearTimeout(timer);
    }
    await super.close();
    // Aborted requests settle promptly; wait for them so nothing we started outlives close().
    await Promise.allSettled([...this.inflight]);
  }
}
