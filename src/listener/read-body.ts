/**
 * @module listener/read-body
 * The one reader of a request body every route uses: bounded, never
 * rejecting, and closing the connection after a body that was too large.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** A body as read: its text, or why there is none. */
export type BodyText =
  | { readonly ok: true; readonly text: string }
  /**
   * Declared or streamed past the limit. The rest is not read: answer 413
   * (the connection closes once the answer is out).
   */
  | { readonly ok: false; readonly reason: "too_large" }
  /** Reset, closed or failed before its end: nobody is left to answer. */
  | { readonly ok: false; readonly reason: "aborted" };

/** A body parsed as JSON, or why it could not be. */
export type JsonBody =
  | { readonly ok: true; readonly value: unknown }
  | Exclude<BodyText, { ok: true }>
  | { readonly ok: false; readonly reason: "not_json"; readonly error: string };

/**
 * Read `req`'s body, at most `limit` bytes. A larger `Content-Length` is
 * refused before anything is read. Never rejects.
 */
export function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<BodyText> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve(tooLarge(req, res));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const settle = (v: BodyText): void => {
      if (done) return;
      done = true;
      chunks.length = 0;
      resolve(v);
    };
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) return settle(tooLarge(req, res));
      chunks.push(chunk);
    });
    req.on("end", () => settle({ ok: true, text: Buffer.concat(chunks, size).toString("utf8") }));
    // Half a body then a reset, a Content-Length never reached, or the listener's body deadline.
    req.on("error", () => settle({ ok: false, reason: "aborted" }));
    req.on("close", () => settle({ ok: false, reason: "aborted" }));
  });
}

/** `readBody`, then `JSON.parse`. */
export async function readJsonBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<JsonBody> {
  const body = await readBody(req, res, limit);
  if (!body.ok) return body;
  try {
    return { ok: true, value: JSON.parse(body.text) };
  } catch (err) {
    return { ok: false, reason: "not_json", error: (err as Error).message };
  }
}

/** Stop reading; the caller's 413 goes out with `Connection: close` and the socket ends after it. */
function tooLarge(req: IncomingMessage, res: ServerResponse): BodyText {
  req.pause();
  if (!res.headersSent) res.setHeader("Connection", "close");
  res.once("finish", () => req.socket?.destroySoon());
  return { ok: false, reason: "too_large" };
}
