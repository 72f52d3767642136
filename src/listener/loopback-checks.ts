/**
 * @module listener/loopback-checks
 * The pure request checks of the loopback listener: Host and Origin against
 * loopback (DNS rebinding), and the bearer token in constant time. Each returns
 * `{ ok: true }` or `{ ok: false, code, status, message }`; the listener is thin
 * glue around them.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** The outcome of one check: pass, or the refusal the listener sends. */
export type CheckResult =
  | { readonly ok: true }
  | {
      readonly ok: false;
      /** Stable machine-readable reason, e.g. `"host_not_allowed"`. */
      readonly code:
        | "host_missing"
        | "host_not_allowed"
        | "origin_not_allowed"
        | "origin_missing"
        | "token_missing"
        | "token_invalid"
        | "session_missing"
        | "session_invalid"
        | "session_key_missing"
        | "session_expired";
      /** The HTTP status to answer with (403 for Host/Origin, 401 for the token or the session). */
      readonly status: 401 | 403;
      /** What went wrong, for the response body. Never contains the expected token. */
      readonly message: string;
    };

const OK: CheckResult = Object.freeze({ ok: true });

/** Host names (without port) that mean "this machine". */
const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * A fresh listener token: 32 random bytes, base64url, 43 characters. Never
 * caller-supplied: a token a caller can set is one that ends up a constant in
 * somebody's config file.
 */
export function generateToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * The `Host` header must name this listener on loopback: `127.0.0.1:<port>`,
 * `localhost:<port>` or `[::1]:<port>` (case-insensitive). Anything else is a
 * DNS-rebinding attempt or a misdirected request: 403. `boundHost` adds the
 * listener's own address when it is another 127.x address.
 */
export function checkHost(host: string | undefined, port: number, boundHost?: string): CheckResult {
  if (!host) return { ok: false, code: "host_missing", status: 403, message: "Invalid Host: the request carries no Host header" };
  const h = host.trim().toLowerCase();
  const colon = h.lastIndexOf(":");
  const name = colon > 0 && !h.endsWith("]") ? h.slice(0, colon) : h;
  const p = colon > 0 && !h.endsWith("]") ? h.slice(colon + 1) : "";
  if ((LOOPBACK_NAMES.has(name) || name === boundHost) && p === String(port)) return OK;
  return { ok: false, code: "host_not_allowed", status: 403, message: `Invalid Host: ${host}` };
}

/**
 * A present `Origin` must be this listener's own loopback origin
 * (`http://127.0.0.1:<port>`, `http://localhost:<port>`, `http://[::1]:<port>`).
 * An absent Origin passes (CLI clients send none); `null` and every other
 * origin, including another port on loopback, get 403: a page served by some
 * other local process is exactly the untrusted content this fence is for.
 */
export function checkOrigin(origin: string | undefined, port: number): CheckResult {
  if (origin === undefined) return OK;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return { ok: false, code: "origin_not_allowed", status: 403, message: `Invalid Origin: ${origin}` };
  }
  const urlPort = url.port || (url.protocol === "https:" ? "443" : url.protocol === "http:" ? "80" : "");
  if (
    (url.protocol === "http:" || url.protocol === "https:") &&
    LOOPBACK_NAMES.has(url.hostname.toLowerCase()) &&
    urlPort === String(port)
  ) {
    return OK;
  }
  return { ok: false, code: "origin_not_allowed", status: 403, message: `Invalid Origin: ${origin}` };
}

/** SHA-256 digest of a token; comparing digests keeps the comparison constant-time whatever the lengths. */
export function tokenDigest(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

/**
 * Check an `Authorization` header against the expected token's digest
 * (`tokenDigest(token)`), in constant time (`timingSafeEqual` over SHA-256
 * digests). Missing or malformed -> `token_missing`; wrong -> `token_invalid`;
 * both 401.
 */
export function checkBearer(authorization: string | undefined, expectedDigest: Buffer): CheckResult {
  const m = authorization ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization) : null;
  if (!m) {
    return {
      ok: false,
      code: "token_missing",
      status: 401,
      message:
        "Unauthorized: this MCP listener requires 'Authorization: Bearer <token>'; use the spec's authHeaders (or the headers in its config document)",
    };
  }
  if (!timingSafeEqual(tokenDigest(m[1]!), expectedDigest)) {
    return {
      ok: false,
      code: "token_invalid",
      status: 401,
      message: "Unauthorized: the bearer token does not match this listener's token",
    };
  }
  return OK;
}

/** True for an IP literal or name that stays on this machine: 127.0.0.0/8, `::1`, `localhost`. */
export function isLoopbackHost(host: string): boolean {
  if (host === "localhost" || host === "::1" || host === "[::1]") return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return !!m && m.slice(1).every((o) => Number(o) <= 255);
}
