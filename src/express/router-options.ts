/**
 * @module express/router-options
 * The options of `mcpRouter` and what a user's token verifier returns: the
 * public shapes of `arc-agentkit/express`, checked once when the router is
 * made (a bad option throws `OptionsError` naming it, never on a request).
 */
import { checkTasksOption, type TasksOptions } from "../mcp/serve/served-tasks.js";
import { checkResultsOption, type ResultsOptions } from "../mcp/serve/served-results.js";
import { randomBytes } from "node:crypto";
import type { DependencyContainer } from "tsyringe";
import type { RunContext } from "../context/run-context.js";
import { OptionsError } from "../errors/options.error.js";
import { describeValue, pyStr } from "../util/format.js";
import { devRefusal, isLoopbackHost } from "./dev-refusal.js";
import {
  checkOptions,
  checkPositiveInt,
  opt,
  unknownKey,
  unknownOptionMessage,
  type OptionRule,
  type OptionSpec,
} from "../options/option-checks.js";

/**
 * What `verifyAccessToken` returns for a good token. A verifier that throws
 * (anything) means the token is refused: `401 invalid_token`, never a 500.
 */
export interface AccessTokenInfo {
  /** The OAuth client the token was issued to. */
  readonly clientId: string;
  /** The token's scopes (a tool needs every scope it declares). */
  readonly scopes: readonly string[];
  /** Expiry in seconds since the epoch (JWT `exp`). Required: a token without one, or past it, is refused. */
  readonly expiresAt: number;
  /**
   * The token's audience / RFC 8707 resource (JWT `aud`). Required: it must
   * equal the router's `resource` (a fragment and one trailing slash
   * ignored), otherwise the token is refused (`401 invalid_token`).
   */
  readonly resource: string | URL;
  /** The end user (JWT `sub`), when the token names one. */
  readonly subject?: string;
  /**
   * Anything else tools should see, under `ctx.caller.extra`. A string
   * `issuer` here (`jwtVerifier` sets it) is part of the principal the rate
   * limit counts, with `clientId` and `subject`.
   */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** A fixed-window rate limit: at most `requests` per `windowMs`. */
export interface RateLimit {
  /** Requests allowed per window (a positive integer). */
  readonly requests: number;
  /** The window, in ms (a positive integer). */
  readonly windowMs: number;
}

/**
 * Limits on the `subscriptions/listen` streams (MCP 2026-07-28) of one
 * router. A stream is counted against its principal — the token's client
 * and end user, however many tokens it holds — and against the router; past
 * either cap a new one is refused with 429 naming the option.
 */
export interface ListenLimits {
  /** Streams open at once on this router, all callers together. Default 1,024. */
  readonly maxStreams?: number;
  /** Streams one caller (client and end user) may hold open at once. Default 16 (at most `maxStreams`). */
  readonly maxStreamsPerCaller?: number;
  /**
   * How long a stream lives, in ms, before the server ends it with the
   * protocol's graceful close (the client listens again if it wants more);
   * never past its token's expiry. Default 3,600,000 (an hour).
   */
  readonly maxLifetimeMs?: number;
}

/** Options of `mcpRouter`. */
export interface McpRouterOptions {
  /**
   * This server's public URL (`https://tools.example.com/mcp`), the RFC 9728 `resource`. Mount the router at its path.
   * https, or http on a loopback host (127.0.0.1, localhost, [::1]).
   */
  readonly resource: string | URL;
  /**
   * Issuer URLs of the authorization servers that mint tokens for this resource (RFC 9728 `authorization_servers`,
   * advertised exactly as written: issuers compare exactly); at least one.
   */
  readonly authorizationServers: readonly (string | URL)[];
  /** The token verifier: a good token's `AccessTokenInfo`, or a throw. Sync or async. */
  readonly verifyAccessToken: (token: string) => AccessTokenInfo | Promise<AccessTokenInfo>;
  /** `Host` header allow-list (hostnames, no port; IPv6 in brackets). Default: the hostname of `resource`. */
  readonly allowedHosts?: readonly string[];
  /** Development mode is off for a router with an authorization server (see `McpRouterDevOptions`). */
  readonly dev?: false;
  /**
   * CORS, off unless given: the origins a browser may call from, as it sends them (`https://app.example.com`, a port
   * when not the default), matched exactly.
   */
  readonly cors?: { readonly origins: readonly string[] };
  /** The largest POST body accepted, in bytes (a larger one: 413). Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * A tool call's deadline in ms (then an `isError` result naming it). Default 60,000. A call that became an MCP task
   * is no longer held to it.
   */
  readonly timeoutMs?: number;
  /**
   * The rate limit per principal — the verified token's issuer
   * (`extra.issuer`), `clientId` and `subject`, however the token is spelled
   * and whichever of its tokens it sends — counting every message of a
   * JSON-RPC batch (429 with `Retry-After` past it, the batch not run).
   * Default 600 per minute; `false` turns it off.
   */
  readonly rateLimit?: RateLimit | false;
  /**
   * The limit per peer address (express's `req.ip`: behind a proxy, set the
   * app's `trust proxy` so it is the client's) on refused requests — no
   * token, or one the verifier refused (401). Past it, every request from
   * that address is 429 with `Retry-After` before its token is read, until
   * the window ends; a good token is never counted. Default 120 per minute;
   * `false` turns it off.
   */
  readonly preAuthLimit?: RateLimit | false;
  /**
   * The fleet-shared key (at least 32 bytes; a string is UTF-8) that signs
   * the 2026-07-28 multi-round-trip `requestState`, so the answer to a
   * tool's question may land on another process. Give every process behind
   * one URL the same key, and keep it secret. Default: a random key of this
   * process (right for one process only).
   */
  readonly fleetKey?: string | Uint8Array;
  /** How long an issued `requestState` stays valid, in ms. Default 600,000. */
  readonly stateTtlMs?: number;
  /** RFC 9728 `resource_name`. */
  readonly resourceName?: string;
  /** RFC 9728 `scopes_supported`. Default: the union of the served tools' scopes. */
  readonly scopesSupported?: readonly string[];
  /** Caps and the lifetime of `subscriptions/listen` streams (see `ListenLimits`); every field has a default. */
  readonly listen?: ListenLimits;
  /** The server name when serving tools or a registry (a module has its own `name`). Default `"tools"`. */
  readonly name?: string;
  /** The run context every call's context derives from (its events carry `gate.check`). Default: a new `RunContext()`. */
  readonly ctx?: RunContext;
  /** For a module: the parent container (as `bootstrap`'s `container`), e.g. holding its Asker. Default: tsyringe's root. */
  readonly container?: DependencyContainer;
  /**
   * The module's waiting calls — MCP tasks (`io.modelcontextprotocol/tasks`,
   * 2026-07-28) and the rounds of a tool's 2026-07-28 questions — and their
   * defaults (see `TasksOptions`). `store` is where they are recorded, the
   * one every process behind the URL shares (`postgresInboxStore(...)` for a
   * fleet; default in-process memory, right for one process only): a task
   * is created there before its handle leaves, a question's round before
   * its `input_required` answer, and the store takes each answer once, so a
   * replayed `requestState` is refused on every process that shares it (a
   * retry reaching a process whose store lacks the record is refused with
   * `-32602` naming this). A task is bound to the token's principal. A
   * module's own `tasks` option is used when this is unset.
   */
  readonly tasks?: TasksOptions;
  /**
   * Served results within a budget, on by default (see `ResultsOptions`): a
   * result over `maxChars` (default 20,000) is a preview and a link, bound to
   * the token's principal, read on with the module's `read_result` tool
   * (listed to every token); `store` is where the whole is kept (a fleet
   * shares one). `false` turns the module-wide budget off. A module's own
   * `results` option is used when this is unset.
   */
  readonly results?: ResultsOptions | false;
}

/**
 * Options of `mcpRouter` in development mode: no authorization server —
 * the router issues its own short-lived tokens (an in-memory key; the
 * `resource` as audience, every scope the module declares; 10 minutes,
 * renewed every 5 in 0600 files a warning on stderr names). Refused when
 * `NODE_ENV=production` or when `resource` or an `allowedHosts` entry is
 * not a loopback host; a request reaching a server not bound to a loopback
 * address is answered 403. For trying a hosted module on your machine;
 * never for a deployment.
 */
export interface McpRouterDevOptions extends Omit<McpRouterOptions, "authorizationServers" | "verifyAccessToken" | "dev"> {
  /** Development mode on: `resource` must be on 127.0.0.1, localhost or [::1] (e.g. `http://127.0.0.1:8081/mcp`). */
  readonly dev: true;
  /** Not with `dev: true`: the router is its own issuer. */
  readonly authorizationServers?: never;
  /** Not with `dev: true`: the router verifies the tokens it issued. */
  readonly verifyAccessToken?: never;
}

const WHERE = "mcpRouter";
/** Hostnames (as `URL.hostname` spells them) where a plain-http resource is allowed. */
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Default largest POST body: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;
/** Default tool deadline: one minute. */
export const DEFAULT_HOSTED_TIMEOUT_MS = 60_000;
/** Default per-principal rate limit: 600 requests a minute. */
export const DEFAULT_RATE_LIMIT: RateLimit = Object.freeze({ requests: 600, windowMs: 60_000 });
/** Default limit on refused requests per peer address: 120 a minute. */
export const DEFAULT_PRE_AUTH_LIMIT: RateLimit = Object.freeze({ requests: 120, windowMs: 60_000 });
/** Default life of an issued `requestState`: ten minutes. */
export const DEFAULT_STATE_TTL_MS = 600_000;
/** Default listen limits: the SDK's own cap of 1,024 streams per router, 16 per caller, an hour each. */
export const DEFAULT_LISTEN_LIMITS: Required<ListenLimits> = Object.freeze({
  maxStreams: 1024,
  maxStreamsPerCaller: 16,
  maxLifetimeMs: 3_600_000,
});

/** The options, checked and with defaults. */
export interface CheckedRouterOptions {
  readonly resource: URL;
  readonly authorizationServers: readonly string[];
  readonly verifyAccessToken: McpRouterOptions["verifyAccessToken"];
  readonly allowedHosts: readonly string[];
  readonly corsOrigins: readonly string[] | undefined;
  readonly maxBodyBytes: number;
  readonly timeoutMs: number;
  readonly rateLimit: RateLimit | false;
  readonly preAuthLimit: RateLimit | false;
  readonly fleetKey: Uint8Array;
  readonly stateTtlMs: number;
  readonly listen: Required<ListenLimits>;
  readonly resourceName: string | undefined;
  readonly scopesSupported: readonly string[] | undefined;
  readonly name: string | undefined;
  readonly ctx: RunContext | undefined;
  readonly container: DependencyContainer | undefined;
  readonly tasks: TasksOptions | undefined;
  readonly results: ResultsOptions | false | undefined;
  /** `${resource}/.well-known/oauth-protected-resource`. */
  readonly resourceMetadataUrl: string;
  /** True in development mode (`dev: true`): `mcpRouter` then puts its own issuer's verifier in place of `verifyAccessToken`. */
  readonly dev: boolean;
}

function fail(option: string, message: string): never {
  throw new OptionsError(WHERE, option, `${WHERE}: ${message}`);
}

/** An absolute http(s) URL without a fragment or credentials. */
function httpUrl(value: unknown, option: string): URL {
  let url: URL | undefined;
  try {
    url = value instanceof URL ? new URL(value.href) : typeof value === "string" ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.hash || url.username || url.password) {
    fail(
      option,
      `'${option}' must be an absolute http(s) URL without a fragment or credentials (e.g. ` +
        `"https://tools.example.com/mcp"), got ${describeValue(value)}`,
    );
  }
  return url;
}

/** A CORS origin as browsers send it (`URL.origin`: scheme, host, port only when not the default). */
function webOrigin(entry: string, option: string): string {
  let url: URL | undefined;
  try {
    url = new URL(entry);
  } catch {
    url = undefined;
  }
  if (
    !url ||
    (url.protocol !== "https:" && url.protocol !== "http:") ||
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    (url.pathname !== "/" && url.pathname !== "") ||
    !/^https?:\/\/[^/]+\/?$/i.test(entry)
  ) {
    fail(
      option,
      `'${option}' origins must be origins like https://app.example.com (scheme, host and, if not the default, ` +
        `port; no path): a hostname alone would match any scheme and port; got '${entry}'`,
    );
  }
  return url.origin;
}

/** An optional array of non-empty strings without whitespace, frozen. */
function stringList(hint: string): OptionRule<readonly string[] | undefined> {
  return (value, _where, option) => {
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || v === "" || /\s/.test(v))) {
      fail(option, `'${option}' must be an array of ${hint}, got ${describeValue(value)}`);
    }
    return Object.freeze([...(value as string[])]);
  };
}

/** An object with a method named `method` (a RunContext, a tsyringe container), or unset. */
function hasMethod<T>(method: string, what: string): OptionRule<T | undefined> {
  return hasMethods<T>([method], what);
}

/** An object with every method in `methods` (a call-record store), or unset. */
function hasMethods<T>(methods: readonly string[], what: string): OptionRule<T | undefined> {
  return (value, _where, option) => {
    if (value !== undefined && (!value || methods.some((m) => typeof (value as Record<string, unknown>)[m] !== "function")))
      fail(option, `'${option}' must be ${what}, got ${describeValue(value)}`);
    return value as T | undefined;
  };
}

/** A `RateLimit` option, `false` (off) or unset (`fallback`). */
function rateLimitRule(fallback: RateLimit): OptionRule<RateLimit | false> {
  return (v, _w, o) => {
    if (v === undefined) return fallback;
    if (v === false) return false;
    if (!v || typeof v !== "object") fail(o, `'${o}' must be { requests, windowMs } (positive integers) or false, got ${describeValue(v)}`);
    const key = unknownKey(v, ["requests", "windowMs"]);
    if (key !== undefined) fail(o, unknownOptionMessage(`'${o}'`, key, ["requests", "windowMs"]));
    const r = v as Partial<RateLimit>;
    return Object.freeze({
      requests: checkPositiveInt(r.requests, WHERE, `${o}.requests`),
      windowMs: checkPositiveInt(r.windowMs, WHERE, `${o}.windowMs`),
    });
  };
}

/** `mcpRouter`'s options, one rule each (unknown keys are refused by name, with these). */
const ROUTER_SPEC = {
  resource: (v: unknown, _w: string, o: string): URL => {
    const url = httpUrl(v, o);
    if (url.protocol === "http:" && !LOOPBACK.has(url.hostname)) {
      fail(
        o,
        `'${o}' must be https off loopback (a bearer token must not cross the network in clear; http only on ` +
          `127.0.0.1, localhost or [::1]), got ${describeValue(v)}`,
      );
    }
    return url;
  },
  // Each issuer as configured (a URL object: its href): an issuer identifier is compared exactly (RFC 8414 §3.3), so a
  // trailing slash is kept.
  authorizationServers: (v: unknown, _w: string, o: string): readonly string[] => {
    if (!Array.isArray(v) || v.length === 0) fail(o, `'${o}' must name at least one issuer URL, got ${describeValue(v)}`);
    return Object.freeze(v.map((s: unknown) => (typeof s === "string" ? (httpUrl(s, o), s) : httpUrl(s, o).href)));
  },
  verifyAccessToken: opt.required(
    opt.fn<McpRouterOptions["verifyAccessToken"]>("(token) => { clientId, scopes, expiresAt, resource, subject? } (throw for a bad token)"),
    "(token) => { clientId, scopes, expiresAt, resource, subject? }, throwing for a bad token",
  ),
  allowedHosts: (v: unknown, w: string, o: string) => {
    const hosts = stringList("hostnames without a port (IPv6 in brackets)")(v, w, o);
    if (hosts?.length === 0) fail(o, "'allowedHosts' must name at least one hostname (or be left unset: the hostname of 'resource')");
    return hosts;
  },
  cors: (v: unknown, w: string, o: string): readonly string[] | undefined => {
    if (v === undefined) return undefined;
    if (!v || typeof v !== "object") fail(o, `'cors' must be { origins: [...] } or left unset (CORS off), got ${describeValue(v)}`);
    const key = unknownKey(v, ["origins"]);
    if (key !== undefined) fail(o, unknownOptionMessage(`'${o}'`, key, ["origins"]));
    const origins = stringList("origins like https://app.example.com")((v as { origins?: unknown }).origins ?? null, w, o)!;
    return Object.freeze(origins.map((entry) => webOrigin(entry, o)));
  },
  maxBodyBytes: opt.positiveInt(DEFAULT_MAX_BODY_BYTES),
  timeoutMs: opt.timeoutMs(),
  rateLimit: rateLimitRule(DEFAULT_RATE_LIMIT),
  preAuthLimit: rateLimitRule(DEFAULT_PRE_AUTH_LIMIT),
  fleetKey: (v: unknown): Uint8Array => {
    if (v === undefined) return randomBytes(32);
    const bytes = typeof v === "string" ? Buffer.from(v, "utf8") : v instanceof Uint8Array ? v : undefined;
    if (!bytes || bytes.length < 32) {
      fail(
        "fleetKey",
        `'fleetKey' must be a secret of at least 32 bytes (a string is UTF-8; e.g. 32 random bytes as base64url), ` +
          `shared by every process behind the URL; got ` +
          `${typeof v === "string" || v instanceof Uint8Array ? `${bytes?.length ?? 0} bytes` : describeValue(v)}`,
      );
    }
    return bytes;
  },
  stateTtlMs: opt.timeoutMs(),
  listen: (v: unknown, w: string, o: string): Required<ListenLimits> => {
    const l = opt.object({
      maxStreams: opt.positiveInt(DEFAULT_LISTEN_LIMITS.maxStreams),
      maxStreamsPerCaller: opt.optional(opt.positiveInt()),
      maxLifetimeMs: opt.timeoutMs(),
    })(v, w, o);
    const maxStreams = l?.maxStreams ?? DEFAULT_LISTEN_LIMITS.maxStreams;
    if (l?.maxStreamsPerCaller !== undefined && l.maxStreamsPerCaller > maxStreams) {
      throw new OptionsError(
        WHERE,
        o,
        `${WHERE}: listen.maxStreamsPerCaller (${l.maxStreamsPerCaller}) is more than listen.maxStreams ` +
          `(${maxStreams}): one caller could never hold that many`,
      );
    }
    const maxStreamsPerCaller = l?.maxStreamsPerCaller ?? Math.min(DEFAULT_LISTEN_LIMITS.maxStreamsPerCaller, maxStreams);
    return Object.freeze({ maxStreams, maxStreamsPerCaller, maxLifetimeMs: l?.maxLifetimeMs ?? DEFAULT_LISTEN_LIMITS.maxLifetimeMs });
  },
  resourceName: opt.optional(opt.nonEmptyString()),
  scopesSupported: stringList("scope names"),
  name: opt.optional(opt.nonEmptyString("the server name")),
  ctx: hasMethod<RunContext>("child", "a RunContext"),
  container: hasMethod<DependencyContainer>("createChildContainer", "a tsyringe DependencyContainer"),
  tasks: (v: unknown): TasksOptions | undefined => checkTasksOption(v, WHERE),
  results: (v: unknown): ResultsOptions | false | undefined => checkResultsOption(v, WHERE),
} satisfies OptionSpec;

/** The rules of development mode: no issuer of the user's, loopback hosts only. */
const DEV_SPEC = {
  ...ROUTER_SPEC,
  resource: (v: unknown, w: string, o: string): URL => {
    const url = ROUTER_SPEC.resource(v, w, o);
    if (!isLoopbackHost(url.hostname))
      fail(
        o,
        `dev: true serves on loopback only: 'resource' must be on 127.0.0.1, localhost or [::1] (e.g. ` +
          `"http://127.0.0.1:8081/mcp"), got ${describeValue(v)}; for a server other machines reach, drop dev and ` +
          `configure authorizationServers and verifyAccessToken`,
      );
    return url;
  },
  allowedHosts: (v: unknown, w: string, o: string) => {
    const hosts = ROUTER_SPEC.allowedHosts(v, w, o);
    const foreign = hosts?.find((h) => !isLoopbackHost(h));
    if (foreign !== undefined)
      fail(o, `dev: true serves on loopback only: 'allowedHosts' may name only 127.0.0.1, localhost or [::1], got ${pyStr(foreign)}`);
    return hosts;
  },
  authorizationServers: (v: unknown, _w: string, o: string): readonly string[] => {
    if (v !== undefined)
      fail(
        o,
        `'${o}' is not taken with dev: true (the router issues its own tokens); leave it out, or drop dev to use your authorization server`,
      );
    return Object.freeze([]);
  },
  verifyAccessToken: (v: unknown, _w: string, o: string): McpRouterOptions["verifyAccessToken"] => {
    if (v !== undefined)
      fail(
        o,
        `'${o}' is not taken with dev: true (the router verifies the tokens it issued); leave it out, or drop dev ` +
          `to verify your authorization server's tokens`,
      );
    return () => {
      throw new Error("the development issuer is not started");
    };
  },
  dev: (v: unknown): unknown => v,
} satisfies OptionSpec;

/** Check `options` once, when the router is made; throws `OptionsError` naming the option, what is accepted and what was got. */
export function checkRouterOptions(options: McpRouterOptions | McpRouterDevOptions): CheckedRouterOptions {
  if (!options || typeof options !== "object")
    fail(
      "options",
      "options { resource, authorizationServers, verifyAccessToken } are required (or { dev: true, resource } on this machine)",
    );
  const dev = (options as { dev?: unknown }).dev;
  if (dev !== undefined && typeof dev !== "boolean")
    fail(
      "dev",
      `'dev' must be true (development mode: the router issues its own tokens, loopback only) or false, got ${describeValue(dev)}`,
    );
  if (dev === true) {
    const refused = devRefusal(WHERE, "dev: true");
    if (refused) throw new OptionsError(WHERE, "dev", refused);
  }
  const o = checkOptions(options, WHERE, dev === true ? DEV_SPEC : { ...ROUTER_SPEC, dev: DEV_SPEC.dev });
  return Object.freeze({
    resource: o.resource,
    authorizationServers: o.authorizationServers,
    verifyAccessToken: o.verifyAccessToken,
    allowedHosts: o.allowedHosts ?? Object.freeze([o.resource.hostname]),
    corsOrigins: o.cors,
    maxBodyBytes: o.maxBodyBytes,
    timeoutMs: o.timeoutMs ?? DEFAULT_HOSTED_TIMEOUT_MS,
    rateLimit: o.rateLimit,
    preAuthLimit: o.preAuthLimit,
    fleetKey: o.fleetKey,
    stateTtlMs: o.stateTtlMs ?? DEFAULT_STATE_TTL_MS,
    listen: o.listen,
    resourceName: o.resourceName,
    scopesSupported: o.scopesSupported,
    name: o.name,
    ctx: o.ctx,
    container: o.container,
    tasks: o.tasks,
    results: o.results,
    resourceMetadataUrl: `${o.resource.href.replace(/\/$/, "")}/.well-known/oauth-protected-resource`,
    dev: dev === true,
  });
}
