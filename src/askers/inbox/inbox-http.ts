/**
 * @module askers/inbox/inbox-http
 * The small HTTP pieces the inbox's routes share: the page headers (a
 * nonce-based Content-Security-Policy), JSON answers, the bounded JSON body
 * reader and the login page response.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { readJsonBody } from "../../listener/read-body.js";
import { isJsonContentType, mediaTypeOf } from "../../wire/media-type.js";
import { loginPageHtml } from "./inbox-html.js";

/** The largest answer body accepted. */
const MAX_BODY_BYTES = 256 * 1024;

/** Headers on every page response: nothing cached, framed, sniffed or referred; only this page's own script runs. */
export function pageHeaders(nonce: string): Record<string, string> {
  return {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy":
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src ` +
      `'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
  };
}

/** Answer with a JSON body, never cached. */
export function json(res: ServerResponse, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
    "Cache-Control": "no-store",
    ...headers,
  });
  res.end(text);
}

/** A JSON body (at most `limit` bytes), an error to answer with, or undefined when the client went away mid-body (nobody to answer). */
export async function readJson(
  req: IncomingMessage,
  res: ServerResponse,
  limit = MAX_BODY_BYTES,
): Promise<{ ok: true; value: unknown } | { ok: false; status: number; error: string } | undefined> {
  const header = req.headers["content-type"];
  if (!isJsonContentType(header)) {
    req.resume();
    return {
      ok: false,
      status: 415,
      error:
        `the body must be sent as application/json, got ` +
        `${mediaTypeOf(header) ?? (header ? JSON.stringify(header) : "no Content-Type")}`,
    };
  }
  const body = await readJsonBody(req, res, limit);
  if (body.ok) return body;
  if (body.reason === "too_large") return { ok: false, status: 413, error: `an answer may be at most ${limit} bytes` };
  if (body.reason === "not_json") return { ok: false, status: 400, error: `the answer is not valid JSON: ${body.error}` };
  return undefined;
}

/** The login page (also what a navigation without a live session gets, with status 401). */
export function sendLoginPage(res: ServerResponse, base: string, status: 200 | 401): void {
  const nonce = randomBytes(16).toString("base64");
  const html = loginPageHtml(nonce, base);
  res.writeHead(status, { "Content-Type": "text/html; charset=utf-8", "Content-Length": Buffer.byteLength(html), ...pageHeaders(nonce) });
  res.end(html);
}
