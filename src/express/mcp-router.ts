/**
 * @module express/mcp-router
 * `mcpRouter(target, options)`: a module (or tools) on the user's express
 * app. Glue only, in request order: Host (and Origin) checks and the bearer
 * middleware from the SDK's express adapter, behind the limit on refused
 * requests per peer address; the JSON body under its limit; the rate limit
 * per principal (each message of a batch counted); the scope fence (a call,
 * read, get, completion or subscription the token does not cover); the
 * listen caps (`listen-streams`); then a `tasks/get` the SDK would serve as
 * it is answered directly (`task-get-shortcut`), the SDK v2's
 * per-request handler for the rest of the 2026-07-28 era, and agentkit's own node:http
 * transport for a sessionless 2025-era POST (`hosted-serving`). The
 * protected-resource metadata is served beside it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { RunContext } from "../context/run-context.js";
import { OptionsError } from "../errors/options.error.js";
import { ToolRegistry, type ToolLike } from "../tools/tool-registry.js";
import type { ModuleClass } from "../mcp/di/bootstrap-options.js";
import { getMcpServerMetadata } from "../mcp/di/mcp-server.decorator.js";
import { scanModule } from "../mcp/di/scan.js";
import { buildUnservedModule } from "../mcp/di/build.js";
import { servedExtras } from "../mcp/serve/served-extras.js";
import { sdkServer } from "../mcp/peers/sdk-server.js";
import { headerPairs, isModernEra, requestEra, writeResponse } from "../mcp/loopback/modern-leg.js";
import { RunContext as Ctx } from "../context/run-context.js";
import { errorLine } from "../util/format.js";
import { readBody } from "../listener/read-body.js";
import { isJsonContentType } from "../wire/media-type.js";
import { GLOBAL_LOGGER } from "../util/logger.js";
import { hostExpress, sdkExpress } from "./express-peers.js";
import { HostedServing, type HostedParts } from "./hosted-serving.js";
import { directTaskGet } from "./task-get-shortcut.js";
import { RateLimiter } from "./rate-limiter.js";
import { hostRefusal, principalOf, protectedResourceMetadata, tokenVerifier } from "./resource-server.js";
import type { ScopeRefusal } from "./scope-fence.js";
import {
  checkRouterOptions,
  type CheckedRouterOptions,
  type McpRouterDevOptions,
  type McpRouterOptions,
  type RateLimit,
} from "./router-options.js";
import { DEV_TOKEN_TTL_SEC, DevIssuer, type DevTokenFiles } from "./dev-issuer.js";
import { isLoopbackAddress } from "./dev-refusal.js";
import type { HostedCaller } from "../context/caller.js";

/** What `mcpRouter` serves: an `@McpServer` module class, tools, or a `ToolRegistry`. */
export type McpRouterTarget = ModuleClass | readonly ToolLike[] | ToolRegistry;

/**
 * An express router — mount it with `app.use(path, router)` — with its
 * lifecycle. Typed as the middleware function it is (so the declarations
 * need no `@types/express`); at run time it is an `express.Router()`.
 */
export interface McpRouter {
  /** The express middleware. */
  (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): void;
  /**
   * Resolves once the module is built (its remotes connected); rejects with the `BootstrapError`. Requests wait for it
   * (503 if it failed).
   */
  readonly ready: Promise<void>;
  /** The absolute URL of the RFC 9728 document, named in every 401's `WWW-Authenticate`. */
  readonly resourceMetadataUrl: string;
  /**
   * Development mode only (`dev: true`): where the router's current token is
   * (`authorization`: the header's value; `mcpConfig`: a ready MCP config),
   * written once `ready` resolves, renewed every 5 minutes, removed by
   * `stop()`. `undefined` for a router with an authorization server.
   */
  readonly devFiles: DevTokenFiles | undefined;
  /** End the calls in flight and stop the module (remote clients stopped). Idempotent. */
  stop(): Promise<void>;
  /** `await using` support: the same as `stop()`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** The metadata route, relative to the router's mount. */
const METADATA_PATH = "/.well-known/oauth-protected-resource";
/** JSON-RPC's "server error" code the SDK's express adapter uses for refusals before dispatch. */
const REFUSED = -32000;

function rpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: "2.0", error: { code, message }, id: null });
}

/** `target` as served parts: at once for tools, after the build for a module. Throws `OptionsError`/`BootstrapError` synchronously. */
function partsOf(target: McpRouterTarget, options: CheckedRouterOptions): HostedParts | Promise<HostedParts> {
  if (typeof target === "function" && getMcpServerMetadata(target)) {
    const plan = scanModule(target, {
      serve: false,
      timeoutMs: options.timeoutMs,
      ...(options.ctx ? { ctx: options.ctx } : {}),
      ...(options.container ? { container: options.container } : {}),
    });
    return buildUnservedModule(plan).then((built) => ({
      name: plan.meta.name,
      tools: built.registry.tools(),
      extras: servedExtras({
        resources: built.items.resources,
        ...(built.items.prompts ? { prompts: built.items.prompts } : {}),
        ...(built.items.skills ? { skills: built.items.skills } : {}),
      }),
      ...(built.guard ? { guard: built.guard } : {}),
      ctx: plan.ctx,
      closers: built.closers,
      ...(plan.meta.tasks ? { tasks: plan.meta.tasks } : {}),
      ...(plan.meta.results !== undefined ? { results: plan.meta.results } : {}),
    }));
  }
  const registry = target instanceof ToolRegistry ? target : Array.isArray(target) ? ToolRegistry.fromTools(target) : undefined;
  if (!registry) {
    throw new OptionsError(
      "mcpRouter",
      "target",
      "mcpRouter: the first argument must be an @McpServer module class, an array of tools (tool(...) or @Tool classes), or a ToolRegistry",
    );
  }
  return { name: options.name ?? "tools", tools: registry.tools(), extras: servedExtras({}), ctx: options.ctx ?? new Ctx(), closers: [] };
}

/**
 * Serve `target` on the user's express app, off loopback, as an OAuth
 * resource server, statelessly (see the package README, "Host your tools").
 * Mount it at the path of `options.resource`: `app.use("/mcp", mcpRouter(M, { resource: "https://host/mcp", ... }))`.
 *
 * - `POST /`: MCP, both eras, no sessions (GET and DELETE: 405).
 * - `GET /.well-known/oauth-protected-resource`: the RFC 9728 document.
 * - No token, or one `verifyAccessToken` throws for, that is expired, or
 *   whose audience is not `resource`: 401 `invalid_token` with
 *   `WWW-Authenticate: Bearer ... resource_metadata="<url>"`.
 * - A tool, resource, template or prompt the token's scopes do not cover is
 *   not listed for that token; calling, reading, getting, completing or
 *   subscribing to it is 403 `insufficient_scope` (each message of a batch
 *   is checked; nothing of a refused request runs).
 * - Host not allowed / Origin not allowed: 403. Over the rate limit of the
 *   token's principal, or past `preAuthLimit` refused requests from one
 *   address: 429 with `Retry-After`. Body over `maxBodyBytes`: 413.
 * - A 2026-07-28 `subscriptions/listen` past `listen.maxStreamsPerCaller`
 *   (per client and end user) or `listen.maxStreams` (the router): 429
 *   naming the option. A stream ends with the protocol's graceful close at
 *   `listen.maxLifetimeMs`, or when its token expires if sooner.
 *
 * @throws OptionsError for a bad option (naming it); `BootstrapError` for a
 *   module that does not scan; `MissingPeerError` with the install line when
 *   express or `@modelcontextprotocol/express` is missing.
 */
export function mcpRouter(target: McpRouterTarget, options: McpRouterOptions | McpRouterDevOptions): McpRouter {
  const base = checkRouterOptions(options);
  const express = hostExpress();
  const adapter = sdkExpress();
  const parts = partsOf(target, base);
  // Made last: a refused target or a missing peer leaves no token directory behind.
  const { checked, dev } = withDevIssuer(base);
  const onerror = (err: Error): void => GLOBAL_LOGGER.debug(`mcpRouter: ${errorLine(err)}`);
  let serving: HostedServing | undefined;
  let stopping: Promise<void> | undefined;
  const started = (p: HostedParts): void => {
    serving = new HostedServing(p, checked, onerror);
    if (dev) startDev(dev, p.name, serving.fence.scopes);
  };
  const ready: Promise<void> = parts instanceof Promise ? parts.then(started) : Promise.resolve(started(parts));
  ready.catch(() => {}); // a failed build answers each request 503; the caller sees it through `ready`

  const router = express.Router();
  if (dev) router.use(loopbackOnly());
  const awaitReady: RequestHandler = (_req, res, next) => {
    if (serving) return next();
    ready.then(
      () => next(),
      (err: unknown) => rpcError(res, 503, REFUSED, `the hosted MCP server could not start: ${errorLine(err)}`),
    );
  };
  const host = adapter.hostHeaderValidation([...checked.allowedHosts]);
  const origin = checked.corsOrigins ? exactOrigin(new Set(checked.corsOrigins)) : adapter.originValidation([...checked.allowedHosts]);
  // The SDK's two checks in one layer (Host first, then Origin): one dispatch by express instead of two.
  // Our own sentence first for a foreign Host (the SDK's says only "Invalid Host: <name>"); the SDK's check still runs.
  router.use((req, res, next) => {
    const refused = hostRefusal(req.headers.host, checked.allowedHosts);
    if (refused) return rpcError(res, 403, REFUSED, refused);
    host(req, res, (err?: unknown) => (err === undefined ? origin(req, res, next) : next(err)));
  });
  if (checked.corsOrigins) router.use(corsHeaders);
  const bearer = preAuthLimited(
    adapter.requireBearerAuth({
      verifier: tokenVerifier(checked, (m) => GLOBAL_LOGGER.warn(m)),
      resourceMetadataUrl: checked.resourceMetadataUrl,
      expectedResource: checked.resource,
    }),
    checked.preAuthLimit,
  );
  const limiter = checked.rateLimit ? new RateLimiter(checked.rateLimit) : undefined;
  /**
   * After the body: wait for the build, count the request against its principal, refuse what the token does not cover,
   * serve. One handler, so express dispatches once for them all.
   */
  const answer: RequestHandler = (req, res, next) => {
    const go = (): void => {
      if (limiter && !withinRate(limiter, req, res)) return;
      const refused = serving!.fence.refusal(req.body, req.auth!.scopes);
      if (refused) return insufficientScope(res, refused, checked);
      void serve(serving!, checked, req, res).catch(next);
    };
    if (serving) return go();
    ready.then(go, (err: unknown) => rpcError(res, 503, REFUSED, `the hosted MCP server could not start: ${errorLine(err)}`));
  };
  const body = jsonBody(express.json({ limit: checked.maxBodyBytes }), checked);
  router.all("/", bearer, body, answer);
  router.get(METADATA_PATH, awaitReady, (_req, res) => {
    res.set("Access-Control-Allow-Origin", "*").json(protectedResourceMetadata(checked, serving!.fence.scopes));
  });
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => bodyError(err, res, next, checked));

  const stop = (): Promise<void> =>
    (stopping ??= ready
      .then(
        () => serving!.stop(),
        () => {},
      )
      .finally(() => dev?.stop()));
  return Object.assign(router, {
    ready,
    resourceMetadataUrl: checked.resourceMetadataUrl,
    devFiles: dev?.files,
    stop,
    [Symbol.asyncDispose]: stop,
  }) as unknown as McpRouter;
}

/** In development mode, the router's own issuer, its verifier in place of `verifyAccessToken`; else the options as they are. */
function withDevIssuer(checked: CheckedRouterOptions): { checked: CheckedRouterOptions; dev?: DevIssuer } {
  if (!checked.dev) return { checked };
  const dev = new DevIssuer(checked.resource);
  return { checked: { ...checked, verifyAccessToken: dev.verify }, dev };
}

/** Start the development issuer once the module is built (its scopes known), and say loudly where its token is. */
function startDev(dev: DevIssuer, name: string, scopes: readonly string[]): void {
  dev.start(name, scopes);
  const { authorization, mcpConfig } = dev.files;
  process.stderr.write(
    `mcpRouter: DEVELOPMENT MODE (dev: true) for ${dev.resource.href}: this process issues its own access tokens ` +
      `(every scope: ${scopes.length ? scopes.join(" ") : "none declared"}; valid ${DEV_TOKEN_TTL_SEC / 60} min, ` +
      `renewed every ${DEV_TOKEN_TTL_SEC / 120} min) and answers on loopback only; never ship it (refused when ` +
      `NODE_ENV=production). ` +
      `The current token is in ${authorization} and a ready MCP config in ${mcpConfig} (mode 0600): claude ` +
      `--mcp-config ${mcpConfig}, or AGENTKIT_DEV_AUTH="$(cat ${authorization})" npx agentkit call --url ` +
      `${dev.resource.href} --header-env Authorization=AGENTKIT_DEV_AUTH <tool>\n`,
  );
}

/**
 * Development mode's guard on every request: the server it reached must be
 * bound to a loopback address (not 0.0.0.0, not a public one), else 403
 * saying so — whatever its Host header says.
 */
function loopbackOnly(): RequestHandler {
  let warned = false;
  return (req, res, next) => {
    const bound = (req.socket as { server?: { address(): AddressInfo | string | null } }).server?.address();
    const address = bound && typeof bound === "object" ? bound.address : req.socket.localAddress;
    if (isLoopbackAddress(address)) return next();
    const message =
      `mcpRouter: dev: true answers on loopback only, and this server is bound to ` +
      `${address ?? "an unknown address"}, which other machines may reach; bind 127.0.0.1 (hostedServer's default ` +
      `host), or drop dev and configure an authorization server (authorizationServers, verifyAccessToken)`;
    if (!warned) process.stderr.write(`${message}\n`);
    warned = true;
    rpcError(res, 403, REFUSED, message);
  };
}

/** 429 with `Retry-After` (whole seconds, at least 1) and a JSON-RPC error saying which limit. */
function tooMany(res: Response, retryAfterMs: number, message: (wait: number) => string): void {
  const wait = Math.max(1, Math.ceil(retryAfterMs / 1000));
  res.set("Retry-After", String(wait));
  rpcError(res, 429, REFUSED, message(wait));
}

/**
 * Count one request against its principal (a batch: each message): true
 * when it fits, else the 429 is sent. The key was computed when the token
 * was verified, so this is one Map lookup however the token is spelled.
 */
function withinRate(limiter: RateLimiter, req: Request, res: Response): boolean {
  const body: unknown = req.body;
  const n = Array.isArray(body) ? Math.max(1, body.length) : 1;
  const verdict = limiter.take(principalOf(req.auth), Date.now(), n);
  if (verdict.ok) return true;
  const { requests, windowMs } = limiter.limit;
  const what = n > 1 ? `a batch of ${n} message(s) counts each one; ` : "";
  tooMany(
    res,
    verdict.retryAfterMs,
    (wait) =>
      `rate limit: ${what}at most ${requests} requests per ${windowMs} ms for one principal (issuer, client and ` +
      `subject of the access token); retry after ${wait}s`,
  );
  return false;
}

/**
 * The bearer check behind the limit on refused requests per peer address:
 * an address past `limit` refusals is answered 429 before its token is
 * read (one Map lookup, skipped while no address was refused); a request
 * the bearer check refuses (no `req.auth` once it is done) is counted.
 */
function preAuthLimited(bearer: RequestHandler, limit: RateLimit | false): RequestHandler {
  if (!limit) return bearer;
  const refused = new RateLimiter(limit);
  return (req, res, next) => {
    if (refused.size !== 0) {
      const verdict = refused.held(peerOf(req));
      if (!verdict.ok)
        return tooMany(
          res,
          verdict.retryAfterMs,
          (wait) =>
            `too many refused requests from this address: at most ${limit.requests} per ${limit.windowMs} ms ` +
            `without a valid access token; retry after ${wait}s`,
        );
    }
    // The SDK's middleware is async: once it settles, a request without `req.auth` was answered 401.
    void Promise.resolve(bearer(req, res, next)).then(() => {
      if (req.auth === undefined) refused.take(peerOf(req));
    });
  };
}

/** The peer address express names (`trust proxy` decides whether a proxy's forwarded address counts). */
function peerOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? "";
}

/** The Origin check with CORS on: no Origin (not a browser), or one of `origins` exactly — scheme, host and port. */
function exactOrigin(origins: ReadonlySet<string>): RequestHandler {
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined || origins.has(origin)) return next();
    rpcError(
      res,
      403,
      REFUSED,
      `Invalid Origin header: ${JSON.stringify(origin.slice(0, 200))} is not one of the allowed origins (cors.origins)`,
    );
  };
}

/** CORS for the configured origins (the Origin check ran before): the headers a browser MCP client needs, and the preflight. */
const corsHeaders: RequestHandler = (req, res, next) => {
  const origin = req.headers.origin;
  if (!origin) return next();
  res.set({
    "Access-Control-Allow-Origin": origin,
    Vary: "Origin",
    "Access-Control-Expose-Headers": "WWW-Authenticate, Mcp-Protocol-Version, Retry-After",
  });
  if (req.method !== "OPTIONS") return next();
  res
    .set({
      "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
      "Access-Control-Allow-Headers": "Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Method, Mcp-Name",
      "Access-Control-Max-Age": "600",
    })
    .status(204)
    .end();
};

/** 403 `insufficient_scope` with the challenge naming the scopes the refused item needs. */
function insufficientScope(res: Response, missing: ScopeRefusal, options: CheckedRouterOptions): void {
  const { OAuthError, OAuthErrorCode, bearerAuthChallengeResponse } = sdkServer();
  const err = new OAuthError(
    OAuthErrorCode.InsufficientScope,
    `${missing.item} needs the scope(s) ${missing.scopes.join(" ")}; the access token does not carry them all`,
  );
  const challenge = bearerAuthChallengeResponse(err, {
    requiredScopes: [...missing.scopes],
    resourceMetadataUrl: options.resourceMetadataUrl,
  });
  res
    .status(challenge.status)
    .set("WWW-Authenticate", challenge.headers.get("WWW-Authenticate") ?? "Bearer")
    .json(err.toResponseObject());
}

/**
 * One MCP request. A sessionless 2025-era POST with a JSON body is answered
 * on node:http by agentkit's own transport (`HostedServing.serveLegacy`);
 * everything else — the 2026-07-28 era, other methods, a body that is not
 * JSON — goes through the SDK's handler: the parsed body and the verified
 * token handed over, the web `Response` written back.
 */
async function serve(serving: HostedServing, options: CheckedRouterOptions, req: Request, res: Response): Promise<void> {
  const body: unknown = req.body;
  // A POST's era is classified once, here; each step below reads this outcome. (Anything else goes to the SDK's handler.)
  const era = req.method === "POST" && body !== undefined ? requestEra(req.headers, body) : undefined;
  if (era) {
    // A client polls its task with tasks/get: answered without a server for the request when the SDK would serve it as it is.
    const get = directTaskGet(req.headers, era);
    if (get && (await serving.answerTaskGet(get, req, res))) return;
    if (!isModernEra(era)) return serving.serveLegacy(req, res, body);
  }
  const listen = listenId(body);
  const slot = listen === undefined ? undefined : serving.listenSlot(req.auth);
  if (slot && !slot.ok) return rpcError(res, 429, REFUSED, slot.message);
  const path = req.originalUrl;
  const url = path.startsWith("/") && !path.startsWith("//") ? options.resource.origin + path : new URL(path, options.resource).href;
  // No signal on the Request: a client that leaves before its answer ends the exchange through `leave()` (see there).
  const request = new Request(url, { method: req.method, headers: headerPairs(req) });
  const gone = (): void => {
    if (!res.writableFinished) serving.leave(request);
  };
  res.once("close", gone);
  try {
    const response = await serving.handler.fetch(request, {
      ...(req.auth ? { authInfo: req.auth } : {}),
      ...(req.body !== undefined ? { parsedBody: req.body } : {}),
    });
    // The SDK answers a call whose server closed under it (the router closing: a drain past its deadline) with an empty
    // 499; a client still there is told why.
    if (response.status === 499 && !res.destroyed) return cutOff(res, body);
    // A listen stream ends at its lifetime, or when its token expires if sooner.
    await writeResponse(res, slot ? slot.bound(response, listen, (req.auth?.expiresAt ?? Infinity) * 1000) : response);
  } finally {
    res.off("close", gone);
    slot?.release();
  }
}

/** The id of a `subscriptions/listen` request (one message, not a batch), or `undefined` for any other body. */
function listenId(body: unknown): unknown {
  const m = body as { method?: unknown; id?: unknown } | null;
  return m &&
    typeof m === "object" &&
    !Array.isArray(m) &&
    m.method === "subscriptions/listen" &&
    (typeof m.id === "string" || typeof m.id === "number")
    ? m.id
    : undefined;
}

/** 503 for a call the router's stop cut: a JSON-RPC error with the call's id, and `Retry-After` (another process may answer). */
function cutOff(res: Response, body: unknown): void {
  const id = (body as { id?: unknown } | null)?.id;
  res.set({ "Retry-After": "1", Connection: "close" });
  res.status(503).json({
    jsonrpc: "2.0",
    error: {
      code: REFUSED,
      message: "the server stopped before the call finished (it is shutting down); retry — another process behind the same URL will answer",
    },
    id: typeof id === "string" || typeof id === "number" ? id : null,
  });
}

/** The size in bytes of a body another parser produced (a JSON value measured as JSON text). */
function bodySize(body: unknown): number {
  if (typeof body === "string") return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.byteLength;
  try {
    return Buffer.byteLength(JSON.stringify(body) ?? "");
  } catch {
    return Infinity; // a value JSON cannot write (a cycle) is no MCP message
  }
}

/** The 413 of a body over `maxBodyBytes`. */
function tooLarge(res: Response, options: CheckedRouterOptions): void {
  rpcError(res, 413, -32600, `the request body is larger than ${options.maxBodyBytes} bytes (maxBodyBytes)`);
}

/** The 400 of a body that is not a JSON object or array. */
function notJson(res: Response): void {
  rpcError(res, 400, -32700, "parse error: the request body is not valid JSON");
}

/**
 * True for the body every MCP client sends: a declared length, no content
 * coding, and `application/json` with no parameter but a UTF-8 charset. Such
 * a body is read by the listener's bounded reader; anything else (chunked,
 * compressed, another charset) by express.json, which handles it all.
 */
function plainJson(req: Request): boolean {
  const h = req.headers;
  if (
    h["content-length"] === undefined ||
    h["transfer-encoding"] !== undefined ||
    (h["content-encoding"] !== undefined && h["content-encoding"].toLowerCase() !== "identity")
  )
    return false;
  const type = h["content-type"];
  if (type === "application/json") return true;
  if (!isJsonContentType(type)) return false;
  const params = type!
    .slice(type!.indexOf(";") + 1)
    .trim()
    .toLowerCase();
  return params === "charset=utf-8" || params === 'charset="utf-8"';
}

/**
 * The JSON body under `maxBodyBytes`, as express.json parses it (strict: an
 * object or an array; an empty body is `{}`; a leading BOM skipped), without
 * its decoder and content-type machinery on the common body (`plainJson`).
 * A body the app's own parser already read is kept, but held to the same
 * limit (its size as JSON): a parser in front with a larger limit does not
 * lift `maxBodyBytes`.
 */
function jsonBody(json: RequestHandler, options: CheckedRouterOptions): RequestHandler {
  return (req, res, next) => {
    if (req.body !== undefined) return bodySize(req.body) > options.maxBodyBytes ? tooLarge(res, options) : json(req, res, next);
    if (req.readableEnded || !plainJson(req)) return json(req, res, next);
    void readBody(req, res, options.maxBodyBytes).then((read) => {
      if (!read.ok) return read.reason === "too_large" ? tooLarge(res, options) : undefined; // aborted: nobody is left to answer
      const text = read.text.charCodeAt(0) === 0xfeff ? read.text.slice(1) : read.text;
      if (text.length === 0) {
        req.body = {};
        return next();
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return notJson(res);
      }
      if (typeof value !== "object" || value === null) return notJson(res);
      req.body = value;
      next();
    });
  };
}

/** A body the JSON parser refused (too large, not JSON) as a JSON-RPC error; anything else a 500 that names nothing inside. */
function bodyError(err: unknown, res: Response, next: NextFunction, options: CheckedRouterOptions): void {
  if (res.headersSent) return next(err);
  const type = (err as { type?: unknown } | null)?.type;
  if (type === "entity.too.large") return tooLarge(res, options);
  if (type === "entity.parse.failed") return notJson(res);
  if (typeof (err as { status?: unknown } | null)?.status === "number" && (err as { status: number }).status < 500)
    return rpcError(res, (err as { status: number }).status, -32600, `the request was refused: ${errorLine(err)}`);
  GLOBAL_LOGGER.error(`mcpRouter: a request failed: ${errorLine(err)}`);
  rpcError(res, 500, -32603, "internal error");
}

/** The hosted caller of `ctx` (set by `mcpRouter` on each call's context), or `undefined` outside a hosted call. */
export function hostedCaller(ctx: RunContext): HostedCaller | undefined {
  return ctx.caller?.kind === "hosted" ? ctx.caller : undefined;
}
