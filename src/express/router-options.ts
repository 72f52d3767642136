/**
 * @module express/router-options
 * The options of `mcpRouter` and what a user's token verifier returns: the
 * public shapes of `arc-agentkit/express`, checked once when the router is
 * made (a bad option throws `OptionsError` naming it, never on a request).
 */

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
