/**
 * @module mcp/client/http-transport
 * The client transport for `StreamableHttpServer`: the SDK's current
 * `StreamableHTTPClientTransport` with a `fetch` that gives each request its
 * own `AbortSignal` and a close that ends the session and waits for every
 * request it started.
 */
import type { FetchLike, JSONRPCMessage, OAuthClientProvider, Transport, TransportSendOptions } from "@modelcontextprotocol/client";
import { cappedAuthFetch } from "../oauth/capped-fetch.js";
import { AgentkitOAuthProvider } from "../oauth/oauth-provider.js";
import { getLogger, ignoreRejection } from "../../util/logger.js";
import { watchSseBody } from "../sdk-reach.js";
import type { ClientSdk } from "../peers/sdk-client.js";
import type { StreamableHttpServer } from "./servers.js";

/**
 * The requests in flight under each shared signal, aborted together by the
 * one listener the signal gets: adding and removing a listener on an
 * `AbortSignal` costs ~6 µs per request on Node 20 (measured), a set entry
 * next to nothing.
 */
const followers = new WeakMap<AbortSignal, Set<AbortController>>();

/** Abort `own` when `shared` aborts, until the returned function is called. */
function follow(shared: AbortSignal, own: AbortController): () => void {
  let set = followers.get(shared);
  if (!set) {
    const all = (set = new Set());
    followers.set(shared, all);
    shared.addEventListener(
      "abort",
      () => {
        const now = [...all];
        all.clear();
        for (const c of now) c.abort(shared.reason);
      },
      { once: true },
    );
  }
  set.add(own);
  const mine = set;
  return () => void mine.delete(own);
}

/**
 * A `fetch` that gives each request its own signal. The SDK transport hands
 * one shared signal to every request; undici adds an abort listener to it per
 * request and removes it only at GC, so under load Node prints
 * `MaxListenersExceededWarning`. Each request gets its own controller, linked
 * to the shared signal until its response body ends. Every pending request is
 * added to `inflight` until it settles; with `onLost`, a POST whose SSE
 * response breaks before it ends reports its request ids.
 */
export function isolatingFetch(inflight: Set<Promise<unknown>>, base: FetchLike = fetch, onLost?: LostResponses): FetchLike {
  return (url, init) => {
    // A per-request controller that follows the shared signal until the
    // response body ends. Not AbortSignal.any: on Node 20 the long-lived
    // shared signal keeps every composite made from it (nodejs/node#55351),
    // one per request for the client's whole life.
    const shared = init?.signal ?? undefined;
    let unlink = (): void => {};
    let requestInit = init;
    if (shared) {
      const own = new AbortController();
      if (shared.aborted) own.abort(shared.reason);
      else unlink = follow(shared, own);
      requestInit = { ...init, signal: own.signal };
    }
    const p = base(url, requestInit);
    inflight.add(p);
    const forget = () => inflight.delete(p);
    p.then(forget, forget);
    // The request ids are read from the body only if its response stream breaks (rare): not per request.
    const body = onLost && init?.method === "POST" && typeof init.body === "string" ? init.body : undefined;
    return p.then(
      (res) => watchStream(res, body, onLost, unlink),
      (err: unknown) => {
        unlink();
        throw err;
      },
    );
  };
}

/** Told the ids of requests whose response stream broke before it was read to the end. */
export type LostResponses = (ids: ReadonlyArray<string | number>, cause: unknown) => void;

function requestIds(body: string): Array<string | number> {
  try {
    const msg = JSON.parse(body) as unknown;
    const all = Array.isArray(msg) ? msg : [msg];
    return all
      .filter(
        (m): m is { id: string | number } =>
          !!m && typeof m === "object" && "method" in m && (typeof m.id === "string" || typeof m.id === "number"),
      )
      .map((m) => m.id);
  } catch {
    return [];
  }
}

/**
 * Let a response through, but (1) unlink its request from the shared signal
 * once its body has been read to the end, and (2) notice when an SSE body
 * errors (the server died or the connection dropped) before it ended: the
 * SDK's transport would otherwise leave those requests waiting for their
 * timeout.
 *
 * An ok SSE body is not wrapped but watched in place (`watchSseBody`, one
 * of the two SDK reaches: see sdk-reach.ts for why and what it costs).
 * Other bodies (JSON — every answer on 2026-07-28 —, errors, a failed
 * status) are read with `json()`/`text()`: those methods are watched in
 * place (`watchConsumed`), not wrapped either.
 */
function watchStream(res: Response, requestBody: string | undefined, onLost: LostResponses | undefined, done: () => void): Response {
  const source = res.body;
  if (!source) {
    done();
    return res;
  }
  const failed = (err: unknown): void => {
    done();
    if (requestBody === undefined || onLost === undefined) return;
    try {
      const ids = requestIds(requestBody);
      if (ids.length) onLost(ids, err);
    } catch (e) {
      getLogger().debug(`MCP HTTP transport: reporting a broken response stream failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  if (res.ok && (res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    // The SDK pipes an ok SSE body through its parser, or cancels it (a POST
    // that carried no request); both ends are seen here. Any other body is
    // watched through its reading methods.
    watchSseBody(source, done, failed);
    return res;
  }
  watchConsumed(res, done, failed);
  return res;
}

/** Where a watched response keeps what to call when its body ends or breaks. */
const WATCH = Symbol("watch");

/** A response watched by `watchConsumed`. */
interface Watched extends Response {
  [WATCH]: { readonly done: () => void; readonly failed: (err: unknown) => void };
}

/** The body-reading methods of a `Response` that `watchConsumed` watches. */
const READERS = ["json", "text", "arrayBuffer", "blob", "formData", "bytes"].filter(
  (name) => typeof (Response.prototype as unknown as Record<string, unknown>)[name] === "function",
);

/**
 * The prototype a watched response is given: `Response.prototype` with each
 * body-reading method reporting the end (or the break) of the body, and a
 * `body` getter that unlinks at once (a reader of the raw stream is not
 * followed to its end). Made once: watching a response is then one property
 * and one prototype change, not a closure per method.
 */
const WATCHED: object = (() => {
  const body = Object.getOwnPropertyDescriptor(Response.prototype, "body")!.get!;
  const props: PropertyDescriptorMap = {
    body: {
      configurable: true,
      get(this: Watched) {
        this[WATCH].done();
        return body.call(this) as ReadableStream<Uint8Array> | null;
      },
    },
  };
  for (const name of READERS) {
    const read = (Response.prototype as unknown as Record<string, (this: Response) => Promise<unknown>>)[name]!;
    props[name] = {
      configurable: true,
      value(this: Watched) {
        const { done, failed } = this[WATCH];
        return read.call(this).then(
          (v) => (done(), v),
          (err: unknown) => {
            failed(err);
            throw err;
          },
        );
      },
    };
  }
  return Object.create(Response.prototype, props) as object;
})();

/**
 * Watch a non-SSE response in place (the SDK reads JSON and error bodies with
 * `json()` and `text()`): it gets the `WATCHED` prototype, so reading its body
 * reports the end (`done`) or a break (`failed`). A wrapping `ReadableStream`
 * plus a new `Response` cost ~30–50 µs of CPU per call more, and on
 * 2026-07-28 every call's answer is such a body.
 */
function watchConsumed(res: Response, done: () => void, failed: (err: unknown) => void): void {
  (res as Watched)[WATCH] = { done, failed };
  Object.setPrototypeOf(res, WATCHED);
}

/** How long `close()` waits for the session's DELETE before giving up on it. */
const TERMINATE_MS = 2000;

/** Authorizations one request may go through (a first login, then one scope step-up). */
const MAX_AUTHORIZATIONS = 2;

/** The HTTP client transport of one `StreamableHttpServer` (see `httpTransport`). */
export interface HttpTransport extends Transport {
  readonly server: StreamableHttpServer;
}

/** The transport class made from each loaded SDK (one in practice: the app's copy). */
const classes = new WeakMap<ClientSdk, new (server: StreamableHttpServer) => HttpTransport>();

/**
 * The SDK's `StreamableHTTPClientTransport` over `server`: its `headers` on
 * every request, the isolating fetch, and a `close()` that (1) asks the
 * server to end the session (HTTP DELETE, bounded, errors ignored), (2)
 * aborts every stream, and (3) resolves only once no request it started is
 * pending. Idempotent. The class extends the SDK's, so it is made from the
 * SDK `import()` loaded (once per SDK copy).
 */
export function httpTransport(sdk: ClientSdk, server: StreamableHttpServer): HttpTransport {
  let Made = classes.get(sdk);
  if (!Made) classes.set(sdk, (Made = transportClass(sdk)));
  return new Made(server);
}

function transportClass(sdk: ClientSdk): new (server: StreamableHttpServer) => HttpTransport {
  return class StreamableHttpTransport extends sdk.StreamableHTTPClientTransport implements HttpTransport {
    readonly inflight: Set<Promise<unknown>>;
    /**
     * The shipped OAuth provider, when the server uses it: its redirect listener runs while the transport does (read on
     * every send: looked up once).
     */
    readonly oauth: AgentkitOAuthProvider | undefined;
    closing?: Promise<void>;

    constructor(readonly server: StreamableHttpServer) {
      const inflight = new Set<Promise<unknown>>();
      const self: { t?: StreamableHttpTransport } = {};
      super(new URL(server.url), {
        requestInit: { headers: { ...server.headers } },
        // OAuth and metadata responses (any URL but the endpoint's) are read capped at 1 MiB.
        fetch: isolatingFetch(inflight, server.auth ? cappedAuthFetch(fetch, server.url) : fetch, (ids, cause) => self.t?.lost(ids, cause)),
        ...(server.auth ? { authProvider: server.auth as OAuthClientProvider } : {}),
        // The shipped login's opt-out of the RFC 8414 issuer echo (security-weakening; off by default).
        ...(server.auth instanceof AgentkitOAuthProvider && server.auth.options.allowIssuerMismatch === true
          ? { skipIssuerMetadataValidation: true }
          : {}),
      });
      self.t = this;
      this.inflight = inflight;
      this.oauth = server.auth instanceof AgentkitOAuthProvider ? server.auth : undefined;
    }

    override async start(): Promise<void> {
      await this.oauth?.start();
      await super.start();
    }

    /**
     * Send, and when the SDK's auth step sent a person to authorize (the
     * shipped provider only), wait for the redirect back, exchange the code on
     * this same transport (it holds the challenge's resource metadata and
     * scope), and send again — the first login and a scope step-up alike, at
     * most `MAX_AUTHORIZATIONS` times per request.
     */
    override async send(message: JSONRPCMessage | JSONRPCMessage[], options?: TransportSendOptions): Promise<void> {
      const oauth = this.oauth;
      for (let round = 0; ; round++) {
        try {
          return await super.send(message, options);
        } catch (err) {
          if (!oauth || !(err instanceof sdk.UnauthorizedError) || round >= MAX_AUTHORIZATIONS) throw err;
          // The whole redirect back (code and iss, or error): the SDK checks iss before it reads either.
          await oauth.finishLogin((params) => this.finishAuth(params));
        }
      }
    }

    /**
     * A response stream broke before it answered: answer those requests with a
     * JSON-RPC error now (the session's pending promise rejects with it) rather
     * than leaving them to their timeout. A late real answer for the same id is
     * ignored by the session.
     */
    lost(ids: ReadonlyArray<string | number>, cause: unknown): void {
      if (this.closing) return;
      const why =
        cause instanceof Error
          ? cause.cause instanceof Error
            ? `${cause.message}: ${cause.cause.message}`
            : cause.message
          : String(cause);
      for (const id of ids) {
        this.onmessage?.({
          jsonrpc: "2.0",
          id,
          error: { code: -32000, message: `the connection to ${this.server.url} was lost before the server answered (${why})` },
        });
      }
    }

    override close(): Promise<void> {
      return (this.closing ??= this.teardown());
    }

    async teardown(): Promise<void> {
      if (this.sessionId !== undefined) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          this.terminateSession().catch(ignoreRejection("DELETE of the session while closing; the server expires it anyway")),
          new Promise<void>((r) => (timer = setTimeout(r, Math.min(TERMINATE_MS, this.server.timeoutMs)))),
        ]);
        clearTimeout(timer);
      }
      await super.close();
      await this.oauth?.stop();
      // Aborted requests settle promptly; wait for them so nothing we started outlives close().
      await Promise.allSettled([...this.inflight]);
    }
  };
}
