/**
 * @module listener/session-cookie
 * The pure pieces of a session-authenticated route (the inbox page): reading
 * a cookie, finding a live session by its cookie and its key header in
 * constant time, requiring a same-origin `Origin` on state-changing requests,
 * and the `Set-Cookie` line. Each check returns a `CheckResult`.
 *
 * Why a cookie is not enough: browsers do not isolate cookies by port, so a
 * page on any other loopback port (a dev server the agent started) gets the
 * inbox's cookie sent along, and can learn its value. The session's second
 * half, its key, is held by the page's own script in `sessionStorage`, which
 * browsers do keep per origin (scheme, host and port), and is sent as a
 * header no other origin can make a browser send.
 */
import { timingSafeEqual } from "node:crypto";
import { tokenDigest, type CheckResult } from "./loopback-checks.js";

const OK: CheckResult = Object.freeze({ ok: true });

/** The header (lower case, as Node reads it) that carries a session's key. */
export const SESSION_KEY_HEADER = "x-agentkit-session";

/** One live session as the route keeps it: digests only, never the values. */
export interface LiveSession {
  /** SHA-256 of the cookie value. */
  readonly cookie: Buffer;
  /** SHA-256 of the key the page's script sends in `X-Agentkit-Session`. */
  readonly key: Buffer;
  /** When it stops working, in ms since the epoch. */
  readonly expiresAt: number;
}

/** What a person is told to do to get back in (the route's own words, e.g. where a new login link comes from). */
const RELOGIN = "get a new one-time login link from whoever started the inbox (in its terminal: press Enter)";

/** The value of cookie `name` in a `Cookie` header, or `undefined`. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The live session whose cookie digest matches `value`, compared in constant time against each one. */
function sessionOf<S extends LiveSession>(value: string, live: Iterable<S>): S | undefined {
  const digest = tokenDigest(value);
  let found: S | undefined;
  for (const s of live) if (timingSafeEqual(digest, s.cookie)) found = s;
  return found;
}

/** A session found, or the refusal. */
export type SessionCheck<S> = { readonly ok: true; readonly session: S } | Exclude<CheckResult, { ok: true }>;

/**
 * Find the session of a request: the cookie `name` must name a live,
 * unexpired session, and (unless `cookieOnly`, for a page navigation, which
 * cannot carry a header) `key` must be that session's key. Each refusal is a
 * 401 saying what was missing and how to get back in.
 */
export function checkSession<S extends LiveSession>(
  cookieHeader: string | undefined,
  key: string | string[] | undefined,
  name: string,
  live: Iterable<S>,
  now: number,
  cookieOnly = false,
): SessionCheck<S> {
  const value = readCookie(cookieHeader, name);
  if (!value)
    return { ok: false, code: "session_missing", status: 401, message: `Unauthorized: this page needs its session cookie; ${RELOGIN}` };
  const session = sessionOf(value, live);
  if (!session)
    return {
      ok: false,
      code: "session_invalid",
      status: 401,
      message: `Unauthorized: this session is not (or no longer) valid for this inbox; ${RELOGIN}`,
    };
  if (session.expiresAt <= now)
    return { ok: false, code: "session_expired", status: 401, message: `Unauthorized: this session has expired; ${RELOGIN}` };
  if (cookieOnly) return { ok: true, session };
  const given = typeof key === "string" ? key : undefined;
  if (!given || !timingSafeEqual(tokenDigest(given), session.key)) {
    return {
      ok: false,
      code: "session_key_missing",
      status: 401,
      message:
        `Unauthorized: the session cookie alone is not enough; requests must carry the session key (header ` +
        `X-Agentkit-Session) that only the inbox page's own script holds — open the inbox page in the tab you logged ` +
        `in with, or ${RELOGIN}`,
    };
  }
  return { ok: true, session };
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
    return {
      ok: false,
      code: "origin_missing",
      status: 403,
      message: "Forbidden: a state-changing request must carry this page's own Origin header",
    };
  }
  return OK;
}

/**
 * `Set-Cookie` for a session: HttpOnly, SameSite=Strict, scoped to `path`, ending with the browser session (the server
 * ends it sooner: `LiveSession.expiresAt`).
 */
export function sessionCookie(name: string, value: string, path: string): string {
  return `${name}=${value}; Path=${path}; HttpOnly; SameSite=Strict`;
}
