/**
 * @module askers/inbox/approval-inbox
 * `ApprovalInbox`: a page on the one loopback listener where a person
 * answers approval questions in a browser, while a headless `claude -p` or
 * `codex exec` runs. Login by a one-time code; then an HttpOnly,
 * SameSite=Strict session cookie; writes need that cookie and the page's own
 * Origin.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { OptionsError } from "../../errors/options.error.js";
import { generateToken, tokenDigest, type CheckResult } from "../../listener/loopback-checks.js";
import type { RouteMount } from "../../listener/loopback-listener.js";
import { checkSessionCookie, checkWriteOrigin, sessionCookie } from "../../listener/session-cookie.js";
import { leaseListener, type ListenerLease } from "../../listener/shared-listeners.js";
import { describeValue } from "../../util/format.js";
import { checkKnownKeys } from "../../util/options.js";
import { InboxError } from "./inbox.error.js";
import { InboxAsker } from "./inbox-asker.js";
import { InboxRoutes } from "./inbox-routes.js";
import { MemoryInboxStore, type InboxStore } from "./inbox-store.js";

/** Options of `ApprovalInbox.start()`. */
export interface ApprovalInboxOptions {
  /** Where questions and decisions live. Default: a new in-process `MemoryInboxStore` (owned, and its pending questions withdrawn, by `stop()`). */
  readonly store?: InboxStore;
  /** The loopback port; default 0 (this process's shared listener, an ephemeral port). */
  readonly port?: number;
  /** The page's path on the listener; default `/inbox` (`/inbox-2`, ... when taken). */
  readonly path?: string;
}

/** Which `inbox.asker()` options are accepted. */
export interface InboxAskerFor {
  /** Which run or server the questions come from, shown on each (e.g. `"engine"`). */
  readonly source?: string;
}

interface Live {
  readonly lease: ListenerLease;
  readonly mounts: readonly RouteMount[];
  readonly routes: InboxRoutes;
  readonly url: string;
  readonly loginUrl: string;
}

const HOST = "127.0.0.1";

/**
 * The approval inbox. `start()` mounts the page on the loopback listener;
 * `loginUrl` (one-time) sets the session cookie and redirects to `url`;
 * `asker({ source })` gives an `Asker` whose questions appear there (many at
 * once, each labelled with its source); `stop()` ends the page (and, with
 * the default store, withdraws the questions still pending: their askers
 * reject with `InboxError` `inbox_stopped`, which the gate turns into a deny).
 *
 * Security: the page is reachable only through the login code, which works
 * once; the session token it turns into lives only in the HttpOnly cookie.
 * Print `loginUrl` once, to the person; never log it or put it in an audit.
 */
export class ApprovalInbox implements AsyncDisposable {
  /** Where the questions and decisions live (share it with `inboxAsker({ store })`). */
  readonly store: InboxStore;
  readonly #ownsStore: boolean;
  readonly #sessions = new Set<Buffer>();
  #code: Buffer | null;
  #live: Live | null = null;

  private constructor(store: InboxStore | undefined) {
    this.#ownsStore = store === undefined;
    this.store = store ?? new MemoryInboxStore();
    this.#code = null;
  }

  /** Build and mount an inbox. Rejects with `OptionsError` for bad options, or the listener's bind error. */
  static async start(options: ApprovalInboxOptions = {}): Promise<ApprovalInbox> {
    if (options === null || typeof options !== "object") throw new OptionsError("ApprovalInbox", "options", `ApprovalInbox.start: options must be an object { store?, port?, path? }, got ${describeValue(options)}`);
    checkKnownKeys(options, ["store", "port", "path"], "ApprovalInbox.start");
    const store = options.store as Partial<InboxStore> | undefined;
    if (store !== undefined && (typeof store?.put !== "function" || typeof store.settle !== "function" || typeof store.subscribe !== "function" || typeof store.pending !== "function")) {
      throw new OptionsError("ApprovalInbox", "store", `ApprovalInbox.start: store must implement InboxStore (put, settle, get, pending, decisions, recordDecision, subscribe), got ${describeValue(options.store)}`);
    }
    const port = options.port ?? 0;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new OptionsError("ApprovalInbox", "port", `ApprovalInbox.start: port must be an integer 0-65535 (0 = ephemeral), got ${describeValue(options.port)}`);
    const path = options.path ?? "/inbox";
    if (typeof path !== "string" || !/^\/[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/.test(path)) {
      throw new OptionsError("ApprovalInbox", "path", `ApprovalInbox.start: path must look like "/inbox" (letters, digits, . _ ~ -, no trailing slash), got ${describeValue(options.path)}`);
    }
    const inbox = new ApprovalInbox(options.store);
    await inbox.#mount(port, path);
    return inbox;
  }

  async #mount(port: number, requested: string): Promise<void> {
    const lease = await leaseListener({ host: HOST, port, rejoin: port !== 0 });
    try {
      const listener = lease.listener;
      const base = listener.freePath(requested);
      const cookie = `agentkit_inbox_${listener.port}${base.replace(/[^A-Za-z0-9]/g, "_")}`;
      const routes = new InboxRoutes(this.store, base);
      const code = generateToken();
      this.#code = tokenDigest(code);
      const login = listener.mount({ path: `${base}/login`, auth: { kind: "none" }, refusal: "json", handler: (req, res) => this.#login(req, res, cookie, base) });
      const page = listener.mount({ path: base, prefix: true, auth: { kind: "check", check: (req) => this.#check(req, cookie) }, refusal: "json", handler: routes.handle });
      page.setServing(true);
      const origin = `http://${HOST}:${listener.port}`;
      this.#live = { lease, mounts: [login, page], routes, url: `${origin}${base}/`, loginUrl: `${origin}${base}/login?code=${code}` };
    } catch (err) {
      await lease.release();
      throw err;
    }
  }

  #check(req: IncomingMessage, cookie: string): CheckResult {
    const session = checkSessionCookie(req.headers.cookie, cookie, this.#sessions);
    if (!session.ok) return session;
    return checkWriteOrigin(req.method, req.headers.origin);
  }

  /** `GET <base>/login?code=...`: the one-time code becomes a session cookie, then a redirect to the page. */
  #login(req: IncomingMessage, res: ServerResponse, cookie: string, base: string): void {
    req.resume();
    const headers = { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "Content-Type": "text/plain; charset=utf-8" };
    if (req.method !== "GET") {
      res.writeHead(405, { ...headers, Allow: "GET" });
      res.end("The login link is opened with GET, in a browser.\n");
      return;
    }
    const query = new URLSearchParams((req.url ?? "").split("?")[1] ?? "");
    const given = query.get("code") ?? "";
    const expected = this.#code;
    if (!expected || !given || !timingSafeEqual(tokenDigest(given), expected)) {
      res.writeHead(401, headers);
      res.end("This login link is not valid or was already used: each link works once. Ask whoever started the inbox for a new one.\n");
      return;
    }
    this.#code = null;
    const session = randomBytes(32).toString("base64url");
    this.#sessions.add(tokenDigest(session));
    res.writeHead(303, { ...headers, Location: `${base}/`, "Set-Cookie": sessionCookie(cookie, session, base) });
    res.end("Logged in; continue to the inbox.\n");
  }

  #running(what: string): Live {
    if (!this.#live) throw new InboxError("inbox_state", `ApprovalInbox.${what}: the inbox is stopped; start a new one with ApprovalInbox.start()`);
    return this.#live;
  }

  /** The page, e.g. `http://127.0.0.1:53411/inbox/` (needs the session cookie). */
  get url(): string {
    return this.#running("url").url;
  }

  /** The one-time login URL: visiting it sets the session cookie and redirects to `url`. Works once; print it once, never log it. */
  get loginUrl(): string {
    return this.#running("loginUrl").loginUrl;
  }

  /** A new one-time login URL (for a second browser); the previous unused one stops working. */
  newLoginUrl(): string {
    const live = this.#running("newLoginUrl()");
    const code = generateToken();
    this.#code = tokenDigest(code);
    const at = live.loginUrl.indexOf("?code=");
    const fresh = `${live.loginUrl.slice(0, at)}?code=${code}`;
    this.#live = { ...live, loginUrl: fresh };
    return fresh;
  }

  /** An `Asker` whose questions appear on this page, labelled with `source` (also a `gate.check` target: pass it as the server's `ctx`). */
  asker(options: InboxAskerFor = {}): InboxAsker {
    this.#running("asker()");
    if (options === null || typeof options !== "object") throw new OptionsError("ApprovalInbox.asker", "options", `ApprovalInbox.asker: options must be an object { source? }, got ${describeValue(options)}`);
    checkKnownKeys(options, ["source"], "ApprovalInbox.asker");
    return new InboxAsker({ store: this.store, ...(options.source !== undefined ? { source: options.source } : {}) });
  }

  /** Unmount the page, end its live streams, release the listener; with the default store, withdraw what is pending. Idempotent. */
  async stop(): Promise<void> {
    const live = this.#live;
    if (!live) return;
    this.#live = null;
    this.#code = null;
    this.#sessions.clear();
    if (this.#ownsStore) {
      for (const q of await this.store.pending()) await this.store.settle(q.id, { status: "withdrawn", reason: "the approval inbox stopped" });
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
