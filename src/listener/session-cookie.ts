/**
 * @module listener/session-cookie
 * The pure pieces of a cookie-authenticated route (the inbox page): reading
 * a cookie, checking a session against the digests of the live ones in
 * constant time, requiring a same-origin `Origin` on state-changing requests,
 * and the `Set-Cookie` line. Each check returns a `CheckResult`.
 */
import { timingSafeEqual } from "node:crypto";
import { tokenDigest, type CheckResult } from "./loopback-checks.js";

const OK: CheckResult = Object.freeze({ ok: true });

/** The value of cookie `name` in a `Cookie` header, or `undefined`. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Is the session in cookie `name` one of `live` (SHA-256 digests of the
 * session tokens)? Compared in constant time against each digest.
 */
export function checkSessionCookie(header: string | undefined, name: string, live: Iterable<Buffer>): CheckResult {
  const value = readCookie(header, name);
  if (!value) {
    return { ok: false, code: "session_missing", status: 401, message: "Unauthorized: this page needs its session cookie; open the one-time login URL printed when the inbox started" };
  }
  const digest = tokenDigest(value);
  let match = false;
  for (const d of live) if (timingSafeEqual(digest, d)) match = true;
  if (!match) return { ok: false, code: "session_invalid", status: 401, message: "Unauthorized: this session is not (or no longer) valid for this inbox; open a fresh login URL" };
  return OK;
}

/**
 * A state-changing request (anything but GET, HEAD, OPTIONS) must carry an
 * `Origin` (the listener has already checked that a present one is its own):
 * browsers send it on every cross-site and same-origin POST, so a request
 * without one did not come from this page.
 */
export function checkWriteOrigin(method: string | undefined, origin: string | undefined): CheckResult {
  const m = (method ?? "GET").toUpperCase();
  if (m === "GET" || m === "HEAD" || m === "OPTIONS") return OK;
  if (origin === undefined || origin === "") {
    return { ok: false, code: "origin_missing", status: 403, message: "Forbidden: a state-changing request must carry this page's own Origin header" };
  }
  return OK;
}

/** `Set-Cookie` for a session: HttpOnly, SameSite=Strict, scoped to `path`, ending with the browser session. */
export function sessionCookie(name: string, value: string, path: string): string {
  return `${name}=${value}; Path=${path}; HttpOnly; SameSite=Strict`;
}
