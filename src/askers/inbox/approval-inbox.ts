/**
 * @module askers/inbox/approval-inbox
 * `ApprovalInbox`: a page on the one loopback listener where a person
 * answers approval questions in a browser, while a headless `claude -p` or
 * `codex exec` runs. Login by a one-time code (in the URL fragment, expiring
 * unused); then a session: an HttpOnly, SameSite=Strict cookie plus a key
 * the page's script holds per origin and sends as a header. Every read and
 * write needs both; writes also the page's own Origin. Sessions expire.
 */
import type { RouteMount } from "../../listener/loopback-listener.js";
import { leaseListener, type ListenerLease } from "../../listener/shared-listeners.js";
import { checkOptions, opt, type OptionRule } from "../../options/option-checks.js";
import { InboxError } from "./inbox.error.js";
import { ASKER_NAME_RULES, hasMethods, InboxAsker } from "./inbox-asker.js";
import { loginHandler } from "./inbox-login.js";
import { InboxRoutes } from "./inbox-routes.js";
import { InboxSessions, LOGIN_CODE_TTL_MS, SESSION_TTL_MS } from "./inbox-sessions.js";
import { MemoryInboxStore, type InboxStore } from "./inbox-store.js";

/** Options of `ApprovalInbox.start()`. */
export interface ApprovalInboxOptions {
  /**
   * Where questions and decisions live. Default: a new in-process `MemoryInboxStore` (owned, and its pending questions
   * withdrawn, by `stop()`).
   */
  readonly store?: InboxStore;
  /** The loopback port; default 0 (this process's shared listener, an ephemeral port). */
  readonly port?: number;
  /** The page's path on the listener; default `/inbox` (`/inbox-2`, ... when taken). */
  readonly path?: string;
  /** How long a login link works if unused, in ms; default 15 minutes. */
  readonly loginTtlMs?: number;
  /** How long a session works after its login, in ms; default 12 hours (then the page shows how to log in again). */
  readonly sessionTtlMs?: number;
}

/** Which `inbox.asker()` options are accepted. */
export interface InboxAskerFor {
  /** Which run or server the questions come from, shown on each (e.g. `"engine"`). */
  readonly source?: string;
  /** Which process asks, shown on each question (e.g. `"worker-3"`). */
  readonly worker?: string;
}

interface Live {
  readonly lease: ListenerLease;
  readonly mounts: readonly RouteMount[];
  readonly routes: InboxRoutes;
  readonly sessions: InboxSessions;
  readonly url: string;
  readonly loginUrl: string;
}

const HOST = "127.0.0.1";

/** The options `ApprovalInbox.start` accepts, declared once. */
const APPROVAL_INBOX_OPTIONS = {
  store: opt.that<InboxStore>(
    (v) => hasMethods(v, ["put", "settle", "get", "pending", "decisions", "recordDecision", "subscribe"]),
    "an InboxStore (put, settle, get, pending, decisions, recordDecision, subscribe), or be left unset for one in memory",
  ),
  port: opt.port(),
  path: ((v, where, option) =>
    opt.that<string>((p) => typeof p === "string" && INBOX_PATH.test(p), '"/inbox"-like (letters, digits, . _ ~ -, no trailing slash)')(
      v,
      where,
      option,
    ) ?? "/inbox") as OptionRule<string>,
  loginTtlMs: opt.positiveInt(LOGIN_CODE_TTL_MS),
  sessionTtlMs: opt.positiveInt(SESSION_TTL_MS),
} satisfies Record<keyof ApprovalInboxOptions, OptionRule<unknown>>;

/** A mount path: `/` then segments of letters, digits, `. _ ~ -`; no trailing slash. */
const INBOX_PATH = /^\/[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/;

/**
 * The approval inbox. `start()` mounts the page on the loopback listener;
 * `loginUrl` (one-time, expiring unused) logs one browser tab in and goes on
 * to `url`; `newLoginUrl()` makes another (a second reviewer, a closed tab);
 * `asker({ source })` gives an `Asker` whose questions appear there (many at
 * once, each labelled with its source); `stop()` ends the page (and, with
 * the default store, withdraws the questions still pending: their askers
 * reject with `InboxError` `inbox_stopped`, which the gate turns into a deny).
 *
 * Security: the page is reachable only through the login code, which works
 * once, in the URL fragment (never sent in a request line). The session it
 * turns into is an HttpOnly cookie plus a key kept by the page's script in
 * `sessionStorage`, sent as the `X-Agentkit-Session` header: browsers send
 * 127.0.0.1's cookies to every port, so a page on another loopback port can
 * learn the cookie, but not the key. Print `loginUrl` once, to the person;
 * never log it or put it in an audit.
 */
export class ApprovalInbox implements AsyncDisposable {
  /** Where the questions and decisions live (share it with `inboxAsker({ store })`). */
  readonly store: InboxStore;
  readonly #ownsStore: boolean;
  #live: Live | null = null;

  private constructor(store: InboxStore | undefined) {
    this.#ownsStore = store === undefined;
    this.store = store ?? new MemoryInboxStore();
  }

  /** Build and mount an inbox. Rejects with `OptionsError` for bad options, or the listener's bind error. */
  static async start(options: ApprovalInboxOptions = {}): Promise<ApprovalInbox> {
    const o = checkOptions(options, "ApprovalInbox.start", APPROVAL_INBOX_OPTIONS);
    const sessionTtl = { code: o.loginTtlMs, session: o.sessionTtlMs };
    const inbox = new ApprovalInbox(o.store);
    await inbox.#mount(o.port, o.path, sessionTtl);
    return inbox;
  }

  async #mount(port: number, requested: string, ttl: { code: number; session: number }): Promise<void> {
    const lease = await leaseListener({ host: HOST, port, rejoin: port !== 0 });
    try {
      const listener = lease.listener;
      const base = listener.freePath(requested);
      const sessions = new InboxSessions(`agentkit_inbox_${listener.port}${base.replace(/[^A-Za-z0-9]/g, "_")}`, ttl.code, ttl.session);
      const routes = new InboxRoutes(this.store, base, sessions);
      const login = listener.mount({
        path: `${base}/login`,
        auth: { kind: "none" },
        refusal: "json",
        handler: loginHandler(sessions, base),
      });
      const page = listener.mount({
        path: base,
        prefix: true,
        auth: { kind: "check", check: routes.check },
        refusal: "json",
        handler: routes.handle,
      });
      page.setServing(true);
      const url = `http://${HOST}:${listener.port}${base}/`;
      this.#live = {
        lease,
        mounts: [login, page],
        routes,
        sessions,
        url,
        loginUrl: `${url.slice(0, -1)}/login#code=${sessions.newCode()}`,
      };
    } catch (err) {
      await lease.release();
      throw err;
    }
  }

  #running(what: string): Live {
    if (!this.#live)
      throw new InboxError("inbox_state", `ApprovalInbox.${what}: the inbox is stopped; start a new one with ApprovalInbox.start()`);
    return this.#live;
  }

  /** The page, e.g. `http://127.0.0.1:53411/inbox/` (needs a session: log in with `loginUrl`). */
  get url(): string {
    return this.#running("url").url;
  }

  /**
   * The one-time login URL (`.../login#code=...`): opening it logs one browser tab in and goes on to `url`. Works once,
   * expires unused; print it once, never log it.
   */
  get loginUrl(): string {
    return this.#running("loginUrl").loginUrl;
  }

  /**
   * A new one-time login URL (a second reviewer, a closed tab, an expired session); the previous unused one stops
   * working. Sessions already logged in stay.
   */
  newLoginUrl(): string {
    const live = this.#running("newLoginUrl()");
    const fresh = `${live.url.slice(0, -1)}/login#code=${live.sessions.newCode()}`;
    this.#live = { ...live, loginUrl: fresh };
    return fresh;
  }

  /**
   * An `Asker` whose questions appear on this page, labelled with `source` and `worker` (also a `gate.check` target:
   * pass it as the server's `ctx`).
   * @throws OptionsError for an unknown option, a missing required one or a
   *   value of the wrong kind (or `null` options), naming what is accepted.
   */
  asker(options: InboxAskerFor = {}): InboxAsker {
    this.#running("asker()");
    const o = checkOptions(options, "ApprovalInbox.asker", ASKER_NAME_RULES);
    return new InboxAsker({
      store: this.store,
      ...(o.source !== undefined ? { source: o.source } : {}),
      ...(o.worker !== undefined ? { worker: o.worker } : {}),
    });
  }

  /** Unmount the page, end its live streams, release the listener; with the default store, withdraw what is pending. Idempotent. */
  async stop(): Promise<void> {
    const live = this.#live;
    if (!live) return;
    this.#live = null;
    live.sessions.clear();
    if (this.#ownsStore) {
      for (const q of await this.store.pending())
        await this.store.settle(q.id, { status: "withdrawn", reason: "the approval inbox stopped" });
    }
    for (const m of live.mounts) m.unmount();
    live.routes.closeStreams();
    await live.lease.release();
  }

  /** Same as `stop()`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}
