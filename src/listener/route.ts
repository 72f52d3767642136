/**
 * @module listener/route
 * What a route on the loopback listener declares (its path, how a caller
 * proves who it is, its handler), and the two refusal bodies the listener
 * writes for it: a JSON-RPC error (MCP endpoints) or `{ "error": ... }`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CheckResult } from "./loopback-checks.js";

/**
 * How a route's caller proves it may call: its own bearer token (a SHA-256
 * digest from `tokenDigest`; different routes have different tokens), a
 * check of your own (e.g. an inbox cookie), or nothing (asked for by name).
 */
export type RouteAuth =
  | { readonly kind: "bearer"; readonly digest: Buffer }
  | { readonly kind: "check"; readonly check: (req: IncomingMessage) => CheckResult }
  | { readonly kind: "none" };

/**
 * A request handler. `req` has passed the Host/Origin and the route's auth
 * check. It must answer (or destroy) the request; a throw or rejection is
 * caught by the listener and answered 500.
 */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** One route: an exact path (or, with `prefix`, everything under it, e.g. the inbox page). */
export interface RouteSpec {
  /** Starts with `/`; no query, fragment or space. */
  readonly path: string;
  readonly auth: RouteAuth;
  readonly handler: RouteHandler;
  /** Serve `path` and everything under `path/` (the handler sees `req.url` relative to `path`). Default false: the exact path only. */
  readonly prefix?: boolean;
  /** The body of a refusal: `"jsonrpc"` (default, for MCP endpoints) or `"json"` (`{ "error": message }`). */
  readonly refusal?: "jsonrpc" | "json";
}

/** Write a refusal in the route's format. Ends the response; a response already started is just ended. */
export function writeRefusal(
  res: ServerResponse,
  format: "jsonrpc" | "json",
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = -32000,
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify(format === "json" ? { error: message } : { jsonrpc: "2.0", error: { code, message }, id: null });
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), ...headers });
  res.end(body);
}

/**
 * The refusal of a failed check: 403 for Host/Origin, 401 with `WWW-Authenticate: Bearer` for the token, plain 401 for
 * a session cookie.
 */
export function refuseCheck(res: ServerResponse, format: "jsonrpc" | "json", check: Exclude<CheckResult, { ok: true }>): void {
  const headers: Record<string, string> = {};
  if (check.status === 401 && (check.code === "token_missing" || check.code === "token_invalid")) {
    headers["WWW-Authenticate"] =
      check.code === "token_missing" ? 'Bearer realm="agentkit"' : 'Bearer realm="agentkit", error="invalid_token"';
  }
  writeRefusal(res, format, check.status, check.message, headers, check.status === 401 ? -32001 : -32000);
}
