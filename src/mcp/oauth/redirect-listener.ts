/**
 * @module mcp/oauth/redirect-listener
 * The OAuth redirect target of the shipped provider: a route on the
 * process's shared loopback listener (127.0.0.1, an ephemeral port) that
 * takes the authorization server's redirect back — `?code=&state=&iss=` or
 * `?error=` — and hands its parameters to whoever is waiting for that
 * `state` (the SDK checks `iss` before it reads either); and a
 * launch route, a one-time link that redirects the browser to the
 * authorization URL, so that URL (its `state` and PKCE challenge) never has
 * to be in a browser launcher's argv. Both answer only connections opened
 * by this user (see peer-user.ts): another user of the machine cannot
 * finish, or start, this login.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import { leaseListener, type ListenerLease } from "../../listener/shared-listeners.js";
import type { RouteMount } from "../../listener/loopback-listener.js";
import { oauthCallbackError } from "./oauth.error.js";
import { loopbackPeerUser, trustedUids } from "./peer-user.js";

/** The path the redirect lands on (a shared listener may append `-2`, ...). */
export const CALLBACK_PATH = "/oauth/callback";

/** The path of the one-time launch links (a shared listener may append `-2`, ...). */
export const LAUNCH_PATH = "/oauth/launch";

/** How long a login waits for the redirect back by default: 5 minutes. */
export const DEFAULT_CALLBACK_TIMEOUT_MS = 300_000;

interface Waiter {
  readonly resolve: (params: URLSearchParams) => void;
  readonly reject: (err: Error) => void;
  readonly timer: NodeJS.Timeout;
}

const PAGE = (title: string, line: string): string =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><p>${line}</p><p>You can close this window.</p>\n`;

/**
 * Why a request may not take part in this login, or undefined when it may:
 * the connection must come from this process's user (or root, or the sudo
 * user). Where the system has no socket tables (not Linux) the check cannot
 * be made and `state` plus PKCE are what bind the login.
 */
function foreignPeer(req: IncomingMessage): string | undefined {
  const trusted = trustedUids();
  const { remotePort, localPort } = req.socket;
  if (!trusted || remotePort === undefined || localPort === undefined) return undefined;
  const peer = loopbackPeerUser(remotePort, localPort);
  if (!peer.known) return peer.why === "unsupported" ? undefined : "could not tell which user of this machine opened it";
  return trusted.has(peer.uid) ? undefined : `it was opened by another user of this machine (uid ${peer.uid})`;
}

/**
 * One mounted redirect route. `expect(state)` before sending the person to
 * the authorization URL; it resolves with the redirect's query parameters
 * (`code`, `iss`, or `error`: judged by the SDK's `finishAuth`, which checks
 * `iss` first) once the redirect for that state arrives, and rejects with
 * an `oauth_callback` error after `timeoutMs`. A redirect with an unknown state
 * is answered 400 and settles nothing.
 */
export class RedirectListener {
  private readonly waiting = new Map<string, Waiter>();
  /** One-time launch links: nonce -> the authorization URL it redirects to. */
  private readonly launches = new Map<string, URL>();
  private closed = false;

  private constructor(
    private readonly lease: ListenerLease,
    private readonly routes: readonly RouteMount[],
    /** The redirect URI to register and send: `http://127.0.0.1:<port>/oauth/callback`. */
    readonly url: string,
    private readonly launchBase: string,
  ) {}

  /** Lease the shared loopback listener and mount the redirect and launch routes on it. */
  static async start(): Promise<RedirectListener> {
    const lease = await leaseListener({ host: "127.0.0.1", port: 0 });
    const listener = lease.listener;
    const self: { it?: RedirectListener } = {};
    const routes: RouteMount[] = [];
    try {
      const path = listener.freePath(CALLBACK_PATH);
      routes.push(listener.mount({ path, auth: { kind: "none" }, refusal: "json", handler: (req, res) => self.it!.answer(req, res) }));
      const launch = listener.freePath(LAUNCH_PATH);
      routes.push(
        listener.mount({ path: launch, auth: { kind: "none" }, refusal: "json", handler: (req, res) => self.it!.launch(req, res) }),
      );
      const base = `http://${listener.host}:${listener.port}`;
      self.it = new RedirectListener(lease, routes, `${base}${path}`, `${base}${launch}`);
      return self.it;
    } catch (err) {
      for (const r of routes) r.unmount();
      await lease.release();
      throw err;
    }
  }

  /**
   * A one-time loopback link that redirects this user's browser to
   * `authorization`: what a browser launcher is given instead of the URL
   * itself, whose `state` and PKCE challenge would sit in the launcher's
   * argv for every local user to read.
   */
  launchLink(authorization: URL): string {
    const nonce = randomBytes(16).toString("base64url");
    this.launches.set(nonce, authorization);
    return `${this.launchBase}?k=${nonce}`;
  }

  private launch(req: IncomingMessage, res: ServerResponse): void {
    const nonce = new URL(req.url ?? "/", "http://127.0.0.1").searchParams.get("k") ?? "";
    const target = this.launches.get(nonce);
    res.setHeader("cache-control", "no-store");
    res.setHeader("referrer-policy", "no-referrer");
    res.setHeader("content-type", "text/html; charset=utf-8");
    const foreign = foreignPeer(req);
    if (!target || foreign) {
      res.statusCode = target ? 403 : 404;
      res.end(
        target
          ? PAGE("Not your login", `This sign-in link was refused: ${foreign}.`)
          : PAGE("Unknown link", "This sign-in link was used already, or does not belong to a login in progress."),
      );
      return;
    }
    this.launches.delete(nonce);
    res.statusCode = 302;
    res.setHeader("location", target.href);
    res.end();
  }

  /** Wait for the redirect carrying `state`: its query parameters. */
  expect(state: string, timeoutMs = DEFAULT_CALLBACK_TIMEOUT_MS): Promise<URLSearchParams> {
    if (this.closed) return Promise.reject(oauthCallbackError("the OAuth redirect listener is closed"));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(state);
        reject(
          oauthCallbackError(
            `nobody finished the OAuth authorization within ${Math.round(timeoutMs / 1000)} s (the redirect to ${this.url} never came)`,
          ),
        );
      }, timeoutMs);
      timer.unref();
      this.waiting.set(state, { resolve, reject, timer });
    });
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const q = new URL(req.url ?? "/", "http://127.0.0.1").searchParams;
    const state = q.get("state") ?? "";
    const waiter = this.waiting.get(state);
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.setHeader("cache-control", "no-store");
    const foreign = waiter && foreignPeer(req);
    if (foreign) {
      // Settles nothing: the person's own redirect can still finish the login.
      res.statusCode = 403;
      res.end(
        PAGE(
          "Not your login",
          `This sign-in was refused: ${foreign}. A login can only be finished by the user who started it (it ` +
            `belongs to another user of this machine).`,
        ),
      );
      return;
    }
    if (!waiter) {
      res.statusCode = 400;
      res.end(PAGE("Unknown login", "This sign-in link does not belong to a login in progress (its state does not match)."));
      return;
    }
    this.waiting.delete(state);
    clearTimeout(waiter.timer);
    // Neither `error` nor `iss` is trusted here: the SDK checks `iss` before either is read.
    if (!q.get("code")) {
      res.statusCode = 400;
      res.end(PAGE("Sign-in failed", "The authorization server did not sign you in."));
    } else res.end(PAGE("Signed in", "Signed in."));
    waiter.resolve(q);
  }

  /** Unmount the route, release the listener, and reject whoever still waits. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const [state, w] of this.waiting) {
      clearTimeout(w.timer);
      w.reject(oauthCallbackError("the OAuth login was abandoned: its client closed"));
      this.waiting.delete(state);
    }
    this.launches.clear();
    for (const r of this.routes) r.unmount();
    await this.lease.release();
  }
}
