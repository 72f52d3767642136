/**
 * @module askers/inbox/inbox-sessions
 * Who may use an inbox page: its one-time login code (expiring when unused)
 * and the sessions it turned into (each a cookie plus a key the page's
 * script holds, each expiring). Only digests are kept.
 */
import type { IncomingMessage } from "node:http";
import { generateToken, tokenDigest } from "../../listener/loopback-checks.js";
import { checkSession, SESSION_KEY_HEADER, type LiveSession, type SessionCheck } from "../../listener/session-cookie.js";
import { randomBytes, timingSafeEqual } from "node:crypto";

/** How long an unused login code works, by default: 15 minutes. */
export const LOGIN_CODE_TTL_MS = 15 * 60_000;
/** How long a session works after its login, by default: 12 hours. */
export const SESSION_TTL_MS = 12 * 3_600_000;
/** How many sessions an inbox keeps at once (a new login past it ends the oldest). */
const MAX_SESSIONS = 32;

/**
 * One session: its digests, its expiry, its number (1, 2, ... in login
 * order), its label and its open live streams.
 */
export interface InboxSession extends LiveSession {
  readonly number: number;
  /**
   * Who answers through this session, as decisions record it (their
   * `actor`): `inbox session <number> (<6 hex digits>)`, the digits random
   * per login so sessions of different inbox runs differ too. Not a secret;
   * nobody on the page can choose it.
   */
  readonly label: string;
  streams: number;
}

/** A redeemed code's new session (the two secrets go to the browser once), or why the code was refused. */
export type Redeemed =
  | { readonly ok: true; readonly cookie: string; readonly key: string; readonly session: InboxSession }
  | { readonly ok: false; readonly why: "invalid" | "expired" };

/** The login code and the sessions of one inbox. */
export class InboxSessions {
  readonly #sessions: InboxSession[] = [];
  #code: { digest: Buffer; expiresAt: number } | null = null;
  #issued = 0;

  constructor(
    readonly cookieName: string,
    readonly codeTtlMs: number,
    readonly sessionTtlMs: number,
  ) {}

  /** A fresh one-time login code; the previous unused one stops working. */
  newCode(now = Date.now()): string {
    const code = generateToken();
    this.#code = { digest: tokenDigest(code), expiresAt: now + this.codeTtlMs };
    return code;
  }

  /** Turn the login code into a session (once), compared in constant time. */
  redeem(given: unknown, now = Date.now()): Redeemed {
    const code = this.#code;
    if (!code || typeof given !== "string" || given === "" || !timingSafeEqual(tokenDigest(given), code.digest))
      return { ok: false, why: "invalid" };
    this.#code = null;
    if (code.expiresAt <= now) return { ok: false, why: "expired" };
    const cookie = generateToken();
    const key = generateToken();
    const number = ++this.#issued;
    const label = `inbox session ${number} (${randomBytes(3).toString("hex")})`;
    const session: InboxSession = {
      cookie: tokenDigest(cookie),
      key: tokenDigest(key),
      expiresAt: now + this.sessionTtlMs,
      number,
      label,
      streams: 0,
    };
    this.#prune(now);
    if (this.#sessions.length >= MAX_SESSIONS) this.#sessions.shift();
    this.#sessions.push(session);
    return { ok: true, cookie, key, session };
  }

  /** The session of a request (cookie and key; the cookie alone with `cookieOnly`, for the page's own navigation). */
  check(req: IncomingMessage, cookieOnly = false, now = Date.now()): SessionCheck<InboxSession> {
    return checkSession(req.headers.cookie, req.headers[SESSION_KEY_HEADER], this.cookieName, this.#sessions, now, cookieOnly);
  }

  /** End every session and the code. */
  clear(): void {
    this.#sessions.length = 0;
    this.#code = null;
  }

  #prune(now: number): void {
    for (let i = this.#sessions.length - 1; i >= 0; i--) if (this.#sessions[i]!.expiresAt <= now) this.#sessions.splice(i, 1);
  }
}
