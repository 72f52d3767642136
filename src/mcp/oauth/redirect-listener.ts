/**
 * @module mcp/oauth/redirect-listener
 * The OAuth redirect target of the shipped provider: a route on the
 * process's shared loopback listener (127.0.0.1, an ephemeral port) that
 * takes the authorization server's redirect back — `?code=&state=` or
 * `?error=` — and hands it to whoever is waiting for that `state`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { leaseListener, type ListenerLease } from "../../listener/shared-listeners.js";
import type { RouteMount } from "../../listener/loopback-listener.js";
import { OAuthCallbackError } from "./oauth.error.js";

/** The path the redirect lands on (a shared listener may append `-2`, ...). */
export const CALLBACK_PATH = "/oauth/callback";

/** How long a login waits for the redirect back by default: 5 minutes. */
export const DEFAULT_CALLBACK_TIMEOUT_MS = 300_000;

interface Waiter {
  readonly resolve: (code: string) => void;
  readonly reject: (err: Error) => void;
  readonly timer: NodeJS.Timeout;
}

const PAGE = (title: string, line: string): string =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><p>${line}</p><p>You can close this window.</p>\n`;

/**
 * One mounted redirect route. `expect(state)` before sending the person to
 * the authorization URL; it resolves with the code once the redirect for
 * that state arrives, and rejects with `OAuthCallbackError` on an `error`
 * redirect or after `timeoutMs`. A redirect with an unknown state is
 * answered 400 and settles nothing.
 */
export class RedirectListener {
  private readonly waiting = new Map<string, Waiter>();
  private closed = false;

  private constructor(
    private readonly lease: ListenerLease,
    private readonly route: RouteMount,
    /** The redirect URI to register and send: `http://127.0.0.1:<port>/oauth/callback`. */
    readonly url: string,
  ) {}

  /** Lease the shared loopback listener and mount the redirect route on it. */
  static async start(): Promise<RedirectListener> {
    const lease = await leaseListener({ host: "127.0.0.1", port: 0 });
    const listener = lease.listener;
    const path = listener.freePath(CALLBACK_PATH);
    const self: { it?: RedirectListener } = {};
    let route: RouteMount;
    try {
      route = listener.mount({ path, auth: { kind: "none" }, refusal: "json", handler: (req, res) => self.it!.answer(req, res) });
    } catch (err) {
      await lease.release();
      throw err;
    }
    self.it = new RedirectListener(lease, route, `http://${listener.host}:${listener.port}${path}`);
    return self.it;
  }

  /** Wait for the redirect carrying `state`. */
  expect(state: string, timeoutMs = DEFAULT_CALLBACK_TIMEOUT_MS): Promise<string> {
    if (this.closed) return Promise.reject(new OAuthCallbackError("the OAuth redirect listener is closed"));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(state);
        reject(new OAuthCallbackError(`nobody finished the OAuth authorization within ${Math.round(timeoutMs / 1000)} s (the redirect to ${this.url} never came)`));
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
    if (!waiter) {
      res.statusCode = 400;
      res.end(PAGE("Unknown login", "This sign-in link does not belong to a login in progress (its state does not match)."));
      return;
    }
    this.waiting.delete(state);
    clearTimeout(waiter.timer);
    const error = q.get("error");
    const code = q.get("code");
    if (error || !code) {
      const why = error ? `${error}${q.get("error_description") ? `: ${q.get("error_description")}` : ""}` : "no authorization code";
      res.statusCode = 400;
      res.end(PAGE("Sign-in failed", "The authorization server refused the sign-in."));
      waiter.reject(new OAuthCallbackError(`the authorization server redirected back without a code (${why})`));
      return;
    }
    res.end(PAGE("Signed in", "Signed in."));
    waiter.resolve(code);
  }

  /** Unmount the route, release the listener, and reject whoever still waits. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const [state, w] of this.waiting) {
      clearTimeout(w.timer);
      w.reject(new OAuthCallbackError("the OAuth login was abandoned: its client closed"));
      this.waiting.delete(state);
    }
    this.route.unmount();
    await this.lease.release();
  }
}
