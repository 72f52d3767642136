/**
 * @module express/jwt-verifier
 * `jwtVerifier()`: the ready `verifyAccessToken` for the common case — JWT
 * access tokens (RFC 9068) signed by an authorization server that publishes
 * its keys as a JWKS. Signature, `typ`, `iss`, `aud`, `exp` and `nbf` are
 * checked by `jose` (an optional peer); the claims become the
 * `AccessTokenInfo` that `mcpRouter` reads. A token is parsed, and its
 * `alg`, `typ` and `iss` checked, before anything is fetched; a failed key
 * discovery is remembered for a short while. A bad token throws
 * `AccessTokenError` (401 `invalid_token` on the wire); bad options throw
 * `OptionsError` at once.
 */
import { AccessTokenError } from "./access-token.error.js";
import { OptionsError } from "../errors/options.error.js";
import { describeValue } from "../util/format.js";
import { checkOptions, opt, type OptionSpec } from "../options/option-checks.js";
import { josePeer } from "./jose-peer.js";
import type { AccessTokenInfo } from "./router-options.js";

/** Options of `jwtVerifier()`. */
export interface JwtVerifierOptions {
  /** The authorization server's issuer identifier: the token's `iss` must equal it exactly. https, or http on a loopback host. */
  readonly issuer: string | URL;
  /** The audience(s) a token must name in `aud` — normally this server's `resource` URL (RFC 8707). */
  readonly audience: string | URL | readonly (string | URL)[];
  /**
   * Where the signing keys are. Default: the `jwks_uri` of the issuer's RFC 8414
   * metadata (`/.well-known/oauth-authorization-server`, then OpenID
   * `/.well-known/openid-configuration`), fetched once on the first token.
   */
  readonly jwksUri?: string | URL;
  /** Accepted signature algorithms. Default: RS256, PS256, ES256, EdDSA (never `none`, never a shared-secret HS*). */
  readonly algorithms?: readonly string[];
  /** Leeway for `exp`/`nbf`/`iat` in seconds (clock skew between machines). Default 5; at most 300. */
  readonly clockToleranceSec?: number;
  /**
   * Default `true`: the JWS header's `typ` must be `at+jwt` (or
   * `application/at+jwt`), as RFC 9068 §4 asks of a resource server — a
   * token typed `JWT`, or untyped (an ID token's shape), is refused with
   * reason `token_type`. `false` accepts any `typ`: only for an
   * authorization server that does not type its access tokens.
   */
  readonly requireAtJwtType?: boolean;
}

export { AccessTokenError, type AccessTokenRefusal } from "./access-token.error.js";

const WHERE = "jwtVerifier";
const DEFAULT_ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"] as const;
const REFUSED_ALGORITHMS = /^(none|HS\d+)$/i;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
/** The whole key discovery (both metadata URLs) ends after this. */
const DISCOVERY_TIMEOUT_MS = 5_000;
/** A failed discovery is answered from memory this long before the issuer is asked again. */
const DISCOVERY_RETRY_MS = 10_000;
/** Verified tokens one verifier remembers at most (the least recently used is forgotten first). */
const VERIFIED_TOKENS_MAX = 512;

/**
 * The tokens a verifier accepted, by their exact string, each until its
 * `exp` (not `exp` plus the clock tolerance): at most `max`, the least
 * recently used forgotten first. A token asked for again within its lifetime
 * is answered from here without its signature being checked again — the same
 * string was verified, and everything `jwtVerifier` checks of a token is in
 * the string, except the clock, which `get` checks.
 */
class VerifiedTokens {
  private readonly byToken = new Map<string, AccessTokenInfo>();

  constructor(private readonly max: number) {}

  /** The info `token` was verified to, while `nowMs` is before its `exp`; `undefined` otherwise (an expired entry is dropped). */
  get(token: string, nowMs: number): AccessTokenInfo | undefined {
    const info = this.byToken.get(token);
    if (info === undefined) return undefined;
    this.byToken.delete(token);
    if (nowMs >= info.expiresAt * 1000) return undefined;
    this.byToken.set(token, info); // the most recently used is last
    return info;
  }

  /** Remember `info` for `token` (frozen: every later request shares it). */
  put(token: string, info: AccessTokenInfo): void {
    if (this.byToken.size >= this.max) this.byToken.delete(this.byToken.keys().next().value!);
    this.byToken.set(token, deepFreeze(info));
  }
}

/** `value` and everything in it frozen (a verified token's info is JSON plus a URL string). */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** An http(s) URL option; http only on a loopback host (a key fetched in clear off loopback could be swapped). */
function checkUrl(value: unknown, _where: string, option: string): URL {
  let url: URL | undefined;
  try {
    url = value instanceof URL ? new URL(value.href) : typeof value === "string" ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  const ok = url && (url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.has(url.hostname)));
  if (!url || !ok) {
    throw new OptionsError(
      WHERE,
      option,
      `${WHERE}: ${option} must be an https URL (http only on 127.0.0.1, localhost or [::1]), e.g. ` +
        `https://auth.example.com; got ${describeValue(value)}`,
    );
  }
  return url;
}

function checkAlgorithms(value: unknown): string[] {
  if (value === undefined) return [...DEFAULT_ALGORITHMS];
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((a) => typeof a === "string" && a !== "" && !REFUSED_ALGORITHMS.test(a))
  ) {
    throw new OptionsError(
      WHERE,
      "algorithms",
      `${WHERE}: algorithms must be a non-empty array of asymmetric JWS algorithm names (e.g. ["RS256", "ES256"]; ` +
        `'none' and HS* are refused), got ${describeValue(value)}`,
    );
  }
  return [...(value as string[])];
}

function checkTolerance(value: unknown): number {
  if (value === undefined) return 5;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 300) {
    throw new OptionsError(
      WHERE,
      "clockToleranceSec",
      `${WHERE}: clockToleranceSec must be a whole number of seconds from 0 to 300, got ${describeValue(value)}`,
    );
  }
  return value;
}

function checkAudience(value: unknown): string[] {
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  const out = list.map((a) => (a instanceof URL ? a.href : a));
  if (out.length === 0 || !out.every((a): a is string => typeof a === "string" && a !== "")) {
    throw new OptionsError(
      WHERE,
      "audience",
      `${WHERE}: audience must be this server's resource URL (or a non-empty array of accepted audiences), e.g. ` +
        `"https://tools.example.com/mcp"; got ${describeValue(value)}`,
    );
  }
  return out;
}

/** The RFC 8414 metadata URLs of `issuer`: the well-known segment goes between the host and the path; then OpenID's. */
export function issuerMetadataUrls(issuer: URL): string[] {
  const path = issuer.pathname === "/" ? "" : issuer.pathname.replace(/\/$/, "");
  return [`${issuer.origin}/.well-known/oauth-authorization-server${path}`, `${issuer.origin}${path}/.well-known/openid-configuration`];
}

/**
 * Fetch the issuer's metadata and return its `jwks_uri`; the document's
 * `issuer` must be the one configured (RFC 8414 §3.3). Both URLs share one
 * deadline (`DISCOVERY_TIMEOUT_MS`), so a hanging issuer holds a token that
 * long at most.
 */
async function discoverJwksUri(issuer: URL, issuerText: string): Promise<URL> {
  const failures: string[] = [];
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new Error(`no answer: the issuer's metadata did not answer within ${DISCOVERY_TIMEOUT_MS} ms`)),
    DISCOVERY_TIMEOUT_MS,
  );
  try {
    for (const url of issuerMetadataUrls(issuer)) {
      let doc: { issuer?: unknown; jwks_uri?: unknown };
      try {
        const res = await fetch(url, { headers: { accept: "application/json" }, redirect: "error", signal: deadline.signal });
        if (!res.ok) {
          failures.push(`${url}: HTTP ${res.status}`);
          await res.body?.cancel();
          continue;
        }
        doc = (await res.json()) as typeof doc;
      } catch (err) {
        failures.push(`${url}: ${(err as Error).message}`);
        continue;
      }
      if (doc.issuer !== issuerText)
        throw new AccessTokenError(
          "keys_unavailable",
          `${WHERE}: the metadata at ${url} names issuer ${describeValue(doc.issuer)}, not the configured ${issuerText}; refusing its keys`,
        );
      return checkUrl(doc.jwks_uri, WHERE, "jwks_uri (from the issuer's metadata)");
    }
  } finally {
    clearTimeout(timer);
  }
  throw new AccessTokenError(
    "keys_unavailable",
    `${WHERE}: cannot find the signing keys of ${issuerText} (${failures.join("; ")}); pass jwksUri or make the metadata reachable`,
  );
}

/** RFC 9068's media type, as a JWS `typ` may spell it (case-insensitive, `application/` optional). */
function isAtJwt(typ: unknown): boolean {
  if (typeof typ !== "string") return false;
  const t = typ.toLowerCase();
  return t === "at+jwt" || t === "application/at+jwt";
}

/**
 * What can be refused without a key: a token that does not parse, whose
 * `alg` is not accepted, whose `typ` is not `at+jwt` (when required), or
 * whose `iss` is not the issuer. Nothing is fetched for such a token.
 */
function precheck(
  jose: typeof import("jose"),
  token: string,
  expected: { readonly issuer: string; readonly algorithms: readonly string[]; readonly requireAtJwtType: boolean },
): void {
  let header: { alg?: unknown; typ?: unknown };
  let claims: { iss?: unknown };
  try {
    header = jose.decodeProtectedHeader(token);
    claims = jose.decodeJwt(token);
  } catch (err) {
    throw new AccessTokenError("malformed", `access token is not a valid JWT (${(err as Error).message})`, { cause: err });
  }
  if (typeof header.alg !== "string" || !expected.algorithms.includes(header.alg)) {
    throw new AccessTokenError(
      "signature",
      `access token signature not accepted (alg ${describeValue(header.alg)} is not one of ${expected.algorithms.join(", ")})`,
    );
  }
  if (expected.requireAtJwtType && !isAtJwt(header.typ)) {
    throw new AccessTokenError(
      "token_type",
      `access token has typ ${header.typ === undefined ? "(none)" : `'${String(header.typ)}'`}, not 'at+jwt' (RFC ` +
        `9068): it is not an access token (an ID token, say); requireAtJwtType: false accepts any typ`,
    );
  }
  if (claims.iss !== expected.issuer)
    throw new AccessTokenError(
      "issuer",
      `access token from another issuer (iss ${describeValue(claims.iss)}, expected ${expected.issuer})`,
    );
}

/** jose's error codes, mapped to a refusal. */
function refusal(err: unknown): AccessTokenError {
  if (err instanceof AccessTokenError) return err;
  const e = err as { code?: string; claim?: string; message?: string };
  const why = e.message ?? String(err);
  switch (e.code) {
    case "ERR_JWT_EXPIRED":
      return new AccessTokenError("expired", `access token expired (${why})`, { cause: err });
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
    case "ERR_JWKS_NO_MATCHING_KEY":
    case "ERR_JOSE_ALG_NOT_ALLOWED":
    case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
      return new AccessTokenError("signature", `access token signature not accepted (${why})`, { cause: err });
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      if (e.claim === "iss") return new AccessTokenError("issuer", `access token from another issuer (${why})`, { cause: err });
      if (e.claim === "aud")
        return new AccessTokenError("audience", `access token is for another audience (${why}); it must name this server's resource`, {
          cause: err,
        });
      if (e.claim === "nbf") return new AccessTokenError("not_yet_valid", `access token not valid yet (${why})`, { cause: err });
      if (e.claim === "typ") return new AccessTokenError("token_type", `access token is not typed at+jwt (${why})`, { cause: err });
      return new AccessTokenError("claims", `access token claims not accepted (${why})`, { cause: err });
    case "ERR_JWKS_TIMEOUT":
    case "ERR_JWKS_INVALID":
      return new AccessTokenError("keys_unavailable", `the issuer's signing keys could not be fetched (${why})`, { cause: err });
    default:
      return new AccessTokenError("malformed", `access token is not a valid JWT (${why})`, { cause: err });
  }
}

function scopesOf(payload: Record<string, unknown>): string[] {
  const { scope, scp } = payload;
  if (typeof scope === "string") return scope.split(" ").filter(Boolean);
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === "string");
  if (typeof scp === "string") return scp.split(" ").filter(Boolean);
  return [];
}

/** `jwtVerifier`'s options, one rule each (unknown keys are refused by name, with these). */
const JWT_SPEC = {
  issuer: checkUrl,
  audience: checkAudience,
  jwksUri: opt.optional(checkUrl),
  algorithms: checkAlgorithms,
  clockToleranceSec: checkTolerance,
  requireAtJwtType: opt.boolean(),
} satisfies OptionSpec;

/**
 * A `verifyAccessToken` for `mcpRouter` that accepts JWT access tokens from
 * one issuer: `typ` `at+jwt` (RFC 9068 §4; see `requireAtJwtType`), the
 * signature against the issuer's JWKS (fetched and cached by `jose`; a new
 * `kid` refetches), `iss` equal to `issuer`, `aud` naming one of `audience`,
 * `exp` present and in the future, `nbf` passed. A token that does not parse
 * or names another issuer is refused before anything is fetched; the key
 * discovery waits 5 s at most, and its failure is remembered for 10 s (every
 * token meanwhile is refused `keys_unavailable` at once). The result maps
 * `client_id` (else `azp`, else `sub`) to `clientId`, `scope` (space-separated)
 * or `scp` to `scopes`, the matched `aud` to `resource`, `sub` to `subject`,
 * and the whole claim set to `extra.claims`.
 *
 * A token it accepted is remembered by its exact string until its `exp`
 * (the last 512 tokens at most): a client sending the same token on
 * every request has its signature checked once, and the info it gets back is
 * frozen. An expired token is checked again, and refused.
 *
 * @throws OptionsError at once for bad options; MissingPeerError at once when `jose` is not installed.
 * @returns a function that resolves with the token's AccessTokenInfo, or rejects with AccessTokenError.
 * @example
 * app.use("/mcp", mcpRouter(Ops, { resource, authorizationServers: [issuer], verifyAccessToken: jwtVerifier({ issuer,
 * audience: resource }) }));
 */
export function jwtVerifier(options: JwtVerifierOptions): (token: string) => Promise<AccessTokenInfo> {
  if (options === null || typeof options !== "object")
    throw new OptionsError(
      WHERE,
      "options",
      `${WHERE}: pass { issuer, audience, jwksUri?, algorithms?, clockToleranceSec?, requireAtJwtType? }, got ${describeValue(options)}`,
    );
  const {
    issuer,
    audience,
    algorithms,
    clockToleranceSec: clockTolerance,
    jwksUri,
    requireAtJwtType = true,
  } = checkOptions(options, WHERE, JWT_SPEC);
  // The `iss` claim is compared as written (RFC 8414: exactly the identifier), not as URL.href.
  const issuerText = options.issuer instanceof URL ? options.issuer.href : (options.issuer as string);
  josePeer.check();
  type KeySet = ReturnType<typeof import("jose").createRemoteJWKSet>;
  let keys: Promise<KeySet> | undefined;
  let failed: { readonly error: unknown; readonly until: number } | undefined;
  const keySet = (): Promise<KeySet> => {
    if (failed && Date.now() < failed.until) return Promise.reject(failed.error);
    return (keys ??= (async () => {
      const jose = await josePeer.load();
      return jose.createRemoteJWKSet(jwksUri ?? (await discoverJwksUri(issuer, issuerText)));
    })().catch((err: unknown) => {
      keys = undefined; // retried once the pause is over
      failed = { error: err, until: Date.now() + DISCOVERY_RETRY_MS };
      throw err;
    }));
  };
  const expected = { issuer: issuerText, algorithms, requireAtJwtType };
  const verified = new VerifiedTokens(VERIFIED_TOKENS_MAX);
  return async (token: string): Promise<AccessTokenInfo> => {
    if (typeof token !== "string" || token.split(".").length !== 3)
      throw new AccessTokenError("malformed", "access token is not a JWT (three dot-separated parts)");
    const known = verified.get(token, Date.now());
    if (known) return known;
    let payload: Record<string, unknown>;
    try {
      const jose = await josePeer.load();
      precheck(jose, token, expected);
      ({ payload } = await jose.jwtVerify(token, await keySet(), {
        issuer: issuerText,
        audience,
        algorithms,
        clockTolerance,
        requiredClaims: ["exp"],
        ...(requireAtJwtType ? { typ: "at+jwt" } : {}),
      }));
    } catch (err) {
      throw refusal(err);
    }
    const clientId = [payload.client_id, payload.azp, payload.sub].find((v): v is string => typeof v === "string" && v !== "");
    if (clientId === undefined) throw new AccessTokenError("claims", "access token names no client (no client_id, azp or sub claim)");
    const auds = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    const resource = auds.find((a): a is string => typeof a === "string" && audience.includes(a))!;
    const info: AccessTokenInfo = {
      clientId,
      scopes: scopesOf(payload),
      expiresAt: payload.exp as number,
      resource,
      ...(typeof payload.sub === "string" ? { subject: payload.sub } : {}),
      extra: { issuer: issuerText, claims: payload },
    };
    verified.put(token, info);
    return info;
  };
}
