/**
 * @module askers/inbox/inbox-login
 * The inbox's login route. `GET <base>/login` is a small page whose script
 * reads the one-time code from the URL fragment (never sent in a request
 * line, so never in a log or a Referer), drops it from the address bar, and
 * posts it back; `POST <base>/login` turns the code into a session: an
 * HttpOnly cookie plus a key returned in the body, which the script keeps in
 * `sessionStorage` (per origin, so no other loopback port can read it).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { checkWriteOrigin, sessionCookie } from "../../listener/session-cookie.js";
import { seconds } from "../../util/format.js";
import { json, readJson, sendLoginPage } from "./inbox-http.js";
import type { InboxSessions } from "./inbox-sessions.js";

/** `GET|POST <base>/login` for one inbox. */
export function loginHandler(sessions: InboxSessions, base: string): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    if (req.method === "GET" || req.method === "HEAD") {
      req.resume();
      return sendLoginPage(res, base, 200);
    }
    if (req.method !== "POST") {
      req.resume();
      res.writeHead(405, { Allow: "GET, POST", "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
      res.end("The login link is opened with GET, in a browser.\n");
      return;
    }
    const origin = checkWriteOrigin(req.method, req.headers.origin);
    if (!origin.ok) {
      req.resume();
      return json(res, origin.status, { error: origin.message });
    }
    const body = await readJson(req, res, 4096);
    if (!body) return;
    if (!body.ok) return json(res, body.status, { error: body.error });
    const code = (body.value as { code?: unknown } | null)?.code;
    const redeemed = sessions.redeem(code);
    if (!redeemed.ok) {
      const error =
        redeemed.why === "expired"
          ? `This login link expired unused (a link works for ${sessions.codeTtlMs % 60_000 === 0 ? `${sessions.codeTtlMs / 60_000} minute(s)` : seconds(sessions.codeTtlMs)}). Ask whoever started the inbox for a new one (in its terminal: press Enter).`
          : "This login link is not valid or was already used: each link works once. Ask whoever started the inbox for a new one (in its terminal: press Enter).";
      return json(res, 401, { error });
    }
    json(
      res,
      200,
      { key: redeemed.key, page: `${base}/`, session: redeemed.session.number },
      { "Set-Cookie": sessionCookie(sessions.cookieName, redeemed.cookie, base) },
    );
  };
}
