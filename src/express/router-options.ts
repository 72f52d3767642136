/**
 * @module express/router-options
 * The options of `mcpRouter` and what a user's token verifier returns: the
 * public shapes of `arc-agentkit/express`, checked once when the router is
 * made (a bad option throws `OptionsError` naming it, never on a request).
 */
import { randomBytes } from "node:crypto";
import type { DependencyContainer } from "tsyringe";
import type { RunContext } from "../context/run-context.js";
import { OptionsError } from "../errors/options.error.js";
import { describeValue } from "../util/format.js";
import { checkFunction, checkKnownKeys, checkNonEmptyString, checkPositiveInt, checkTimeoutMs } from "../options/option-checks.js";

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
  /** Anything else tools should see, under `ctx.caller.extra`. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** A per-token rate limit: at most `requests` per `windowMs`. */
export interface RateLimit {
  /** Requests allowed per window (a positive integer). */
  readonly requests: number;
  /** The window, in ms (a positive integer). */
  readonly windowMs: number;
}

/** Options of `mcpRouter`. */
export interface McpRouterOptions {
  /** This server's public URL (`https://tools.example.com/mcp`), the RFC 9728 `resource`. Mount the router at its path. */
  readonly resource: string | URL;
  /** Issuer URLs of the authorization servers that mint tokens for this resource (RFC 9728 `authorization_servers`); at least one. */
  readonly authorizationServers: readonly (string | URL)[];
  /** The token verifier: a good token's `AccessTokenInfo`, or a throw. Sync or async. */
  readonly verifyAccessToken: (token: string) => AccessTokenInfo | Promise<AccessTokenInfo>;
  /** `Host` header allow-list (hostnames, no port; IPv6 in brackets). Default: the hostname of `resource`. */
  readonly allowedHosts?: readonly string[];
  /** CORS, off unless given: the origins (hostnames, as the SDK's `originValidation` takes them) a browser may call from. */
  readonly cors?: { readonly origins: readonly string[] };
  /** The largest POST body accepted, in bytes (a larger one: 413). Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** A tool call's deadline in ms (then an `isError` result naming it). Default 60,000. */
  readonly timeoutMs?: number;
  /** Per-token rate limit (429 with `Retry-After` past it). Default 600 per minute; `false` turns it off. */
  readonly rateLimit?: RateLimit | false;
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
  /** The server name when serving tools or a registry (a module has its own `name`). Default `"tools"`. */
  readonly name?: string;
  /** The run context every call's context derives from (its events carry `gate.check`). Default: a new `RunContext()`. */
  readonly ctx?: RunContext;
  /** For a module: the parent container (as `bootstrap`'s `container`), e.g. holding its Asker. Default: tsyringe's root. */
  readonly container?: DependencyContainer;
}

/**
 * `ctx.caller` in a hosted call (`ctx.caller` stays a free-form record; this
 * is the shape the router puts there, beside `server` and `requestId`).
 * Read it typed with `hostedCaller(ctx)`.
 */
export interface HostedCaller {
  /** The OAuth client the token was issued to. */
  readonly clientId: string;
  /** The token's scopes. */
  readonly scopes: readonly string[];
  /** The end user, when the token names one. */
  readonly subject?: string;
  /** Token expiry, seconds since the epoch. */
  readonly expiresAt: number;
  /** The resource (audience) the token was checked against. */
  readonly resource: string;
  /** What the verifier returned under `extra`. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

const WHERE = "mcpRouter";
const KEYS = ["resource", "authorizationServers", "verifyAccessToken", "allowedHosts", "cors", "maxBodyBytes", "timeoutMs", "rateLimit", "fleetKey", "stateTtlMs", "resourceName", "scopesSupported", "name", "ctx", "container"] as const;

/** Default largest POST body: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;
/** Default tool deadline: one minute. */
export const DEFAULT_HOSTED_TIMEOUT_MS = 60_000;
/** Default per-token rate limit: 600 requests a minute. */
export const DEFAULT_RATE_LIMIT: RateLimit = Object.freeze({ requests: 600, windowMs: 60_000 });
/** Default life of an issued `requestState`: ten minutes. */
export const DEFAULT_STATE_TTL_MS = 600_000;

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
  readonly fleetKey: Uint8Array;
  readonly stateTtlMs: number;
  readonly resourceName: string | undefined;
  readonly scopesSupported: readonly string[] | undefined;
  readonly name: string | undefined;
  readonly ctx: RunContext | undefined;
  readonly container: DependencyContainer | undefined;
  /** `${resource}/.well-known/oauth-protected-resource`. */
  readonly resourceMetadataUrl: string;
}

function fail(option: string, message: string): never {
  throw new OptionsError(WHERE, option, `${WHERE}: ${message}`);
}

function httpUrl(value: unknown, option: string): URL {
  let url: URL | undefined;
  try {
    url = value instanceof URL ? new URL(value.href) : typeof value === "string" ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.hash || url.username || url.password) {
    fail(option, `'${option}' must be an absolute http(s) URL without a fragment or credentials (e.g. "https://tools.example.com/mcp"), got ${describeValue(value)}`);
  }
  return url;
}

function stringList(value: unknown, option: string, hint: string): readonly string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || v === "" || /\s/.test(v))) {
    fail(option, `'${option}' must be an array of ${hint}, got ${describeValue(value)}`);
  }
  return Object.freeze([...(value as string[])]);
}

function fleetKeyOf(value: unknown): Uint8Array {
  if (value === undefined) return randomBytes(32);
  const bytes = typeof value === "string" ? Buffer.from(value, "utf8") : value instanceof Uint8Array ? value : undefined;
  if (!bytes || bytes.length < 32) {
    fail("fleetKey", `'fleetKey' must be a secret of at least 32 bytes (a string is UTF-8; e.g. 32 random bytes as base64url), shared by every process behind the URL; got ${typeof value === "string" || value instanceof Uint8Array ? `${bytes?.length ?? 0} bytes` : describeValue(value)}`);
  }
  return bytes;
}

function rateLimitOf(value: unknown): RateLimit | false {
  if (value === undefined) return DEFAULT_RATE_LIMIT;
  if (value === false) return false;
  if (!value || typeof value !== "object") fail("rateLimit", `'rateLimit' must be { requests, windowMs } (positive integers) or false, got ${describeValue(value)}`);
  const r = value as Partial<RateLimit>;
  return Object.freeze({ requests: checkPositiveInt(r.requests, WHERE, "rateLimit.requests"), windowMs: checkPositiveInt(r.windowMs, WHERE, "rateLimit.windowMs") });
}

/** Check `options` once, when the router is made; throws `OptionsError` naming the option, what is accepted and what was got. */
export function checkRouterOptions(options: McpRouterOptions): CheckedRouterOptions {
  if (!options || typeof options !== "object") fail("options", "options { resource, authorizationServers, verifyAccessToken } are required");
  checkKnownKeys(options, KEYS, WHERE);
  const resource = httpUrl(options.resource, "resource");
  const servers = options.authorizationServers;
  if (!Array.isArray(servers) || servers.length === 0) fail("authorizationServers", `'authorizationServers' must name at least one issuer URL, got ${describeValue(servers)}`);
  const authorizationServers = Object.freeze(servers.map((s) => httpUrl(s, "authorizationServers").href.replace(/\/$/, "")));
  const verifyAccessToken = checkFunction<McpRouterOptions["verifyAccessToken"]>(options.verifyAccessToken, WHERE, "verifyAccessToken", "(token) => { clientId, scopes, expiresAt, resource, subject? } (throw for a bad token)");
  if (!verifyAccessToken) fail("verifyAccessToken", "'verifyAccessToken' is required: (token) => { clientId, scopes, expiresAt, resource, subject? }, throwing for a bad token");
  const allowedHosts = options.allowedHosts === undefined ? Object.freeze([resource.hostname]) : stringList(options.allowedHosts, "allowedHosts", "hostnames without a port (IPv6 in brackets)");
  if (allowedHosts.length === 0) fail("allowedHosts", "'allowedHosts' must name at least one hostname (or be left unset: the hostname of 'resource')");
  let corsOrigins: readonly string[] | undefined;
  if (options.cors !== undefined) {
    if (!options.cors || typeof options.cors !== "object") fail("cors", `'cors' must be { origins: [...] } or left unset (CORS off), got ${describeValue(options.cors)}`);
    corsOrigins = stringList(options.cors.origins, "cors", "origin hostnames (no scheme or port)");
  }
  const maxBodyBytes = checkPositiveInt(options.maxBodyBytes, WHERE, "maxBodyBytes", DEFAULT_MAX_BODY_BYTES);
  const timeoutMs = checkTimeoutMs(options.timeoutMs, WHERE) ?? DEFAULT_HOSTED_TIMEOUT_MS;
  const stateTtlMs = checkTimeoutMs(options.stateTtlMs, WHERE, "stateTtlMs") ?? DEFAULT_STATE_TTL_MS;
  const resourceName = options.resourceName === undefined ? undefined : checkNonEmptyString(options.resourceName, WHERE, "resourceName");
  const scopesSupported = options.scopesSupported === undefined ? undefined : stringList(options.scopesSupported, "scopesSupported", "scope names");
  const name = options.name === undefined ? undefined : checkNonEmptyString(options.name, WHERE, "name", "the server name");
  const ctx = options.ctx;
  if (ctx !== undefined && (!ctx || typeof (ctx as RunContext).child !== "function")) fail("ctx", `'ctx' must be a RunContext, got ${describeValue(ctx)}`);
  const container = options.container;
  if (container !== undefined && (!container || typeof (container as DependencyContainer).createChildContainer !== "function")) fail("container", `'container' must be a tsyringe DependencyContainer, got ${describeValue(container)}`);
  const base = resource.href.replace(/\/$/, "");
  return Object.freeze({
    resource, authorizationServers, verifyAccessToken, allowedHosts, corsOrigins, maxBodyBytes, timeoutMs, stateTtlMs, resourceName, scopesSupported, name, ctx, container,
    rateLimit: rateLimitOf(options.rateLimit),
    fleetKey: fleetKeyOf(options.fleetKey),
    resourceMetadataUrl: `${base}/.well-known/oauth-protected-resource`,
  });
}
