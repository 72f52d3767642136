/**
 * @module test/express/kit
 * A hosted router on a real express app on 127.0.0.1, with a token table as
 * its verifier (hostcli supplies the real JWKS verifier), and clients of both
 * eras pointed at it. Every app and router is closed after each test.
 */
import type { AddressInfo } from "node:net";
import { request as httpRequest, type Server } from "node:http";
import express from "express";
import { mcpRouter, type AccessTokenInfo, type McpRouter, type McpRouterOptions, type McpRouterTarget } from "../../src/express/index.js";

/** One hosted app: its URL, router and the token table its verifier reads. */
export interface Hosted {
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  readonly router: McpRouter;
  readonly tokens: Map<string, AccessTokenInfo | Error>;
}

const open: Array<() => Promise<void>> = [];

/** Close every app and router opened by `hosted()`. */
export async function closeAll(): Promise<void> {
  for (const close of open.splice(0).reverse()) await close();
}

/** An hour from now, in seconds. */
export const LATER = () => Math.floor(Date.now() / 1000) + 3600;

/**
 * Serve `target` at /mcp of a fresh express app on 127.0.0.1. `resource`
 * defaults to this app's own URL; a shared one lets two apps stand for one
 * fleet behind one name.
 */
export async function hosted(target: McpRouterTarget, options: Partial<McpRouterOptions> & { resource?: string } = {}): Promise<Hosted> {
  const app = express();
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  const tokens = new Map<string, AccessTokenInfo | Error>();
  const router = mcpRouter(target, {
    resource: options.resource ?? `${origin}/mcp`,
    authorizationServers: ["http://127.0.0.1:9/issuer"],
    verifyAccessToken: (token) => {
      const info = tokens.get(token);
      if (info instanceof Error) throw info;
      if (!info) throw new Error("unknown token");
      return info;
    },
    ...options,
  });
  app.use("/mcp", router);
  open.push(async () => {
    await router.stop();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  await router.ready;
  return { url: `${origin}/mcp`, origin, port, router, tokens };
}

/** A token for `h` (audience `resource`, valid an hour) with these scopes. */
export function grant(h: Hosted, token: string, scopes: readonly string[], more: Partial<AccessTokenInfo> = {}): string {
  h.tokens.set(token, { clientId: "client-a", scopes, expiresAt: LATER(), resource: h.url, subject: "alice", ...more });
  return token;
}

/** The hosted tests' person: accepts every question, answering `yes to <the question>` (pass as `v2Client`'s `elicit`). */
export const sayYes = (message: string) => ({ action: "accept" as const, content: { answer: `yes to ${message}` } });

/** One raw POST to `url` (JSON-RPC `body`), with headers; `signal` lets the client leave. */
export function post(url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** A 2026-07-28 `tools/call` request body for `name` with `args`. */
export function modernCall(
  name: string,
  args: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): { body: unknown; headers: Record<string, string> } {
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  };
  return {
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args, _meta, ...extra } },
    headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name },
  };
}

/** The JSON-RPC messages of a response (JSON or SSE), the answer last. */
export async function messages(res: Response): Promise<Array<Record<string, unknown>>> {
  const text = await res.text();
  if (text.startsWith("{") || text.startsWith("[")) return [JSON.parse(text)].flat();
  return text
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)));
}

/** A POST through node:http (fetch cannot set Host): status and body text. */
export function postWithHost(
  url: string,
  host: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: "POST", headers: { ...headers, host, "content-type": "application/json", accept: "application/json, text/event-stream" } },
      (res) => {
        let text = "";
        res
          .setEncoding("utf8")
          .on("data", (d: string) => (text += d))
          .on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

/** The 2026-07-28 request envelope a raw request carries in `_meta`. */
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** One raw request of `era` for `method` with `params` (a 2026-07-28 one with its envelope and standard headers). */
export function rawCall(
  url: string,
  era: "2026-07-28" | "2025-11-25",
  method: string,
  params: Record<string, unknown>,
  token: string,
  id = 1,
): Promise<Response> {
  const auth = { authorization: `Bearer ${token}` };
  if (era === "2025-11-25") return post(url, { jsonrpc: "2.0", id, method, params }, { ...auth, "mcp-protocol-version": era });
  const name = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
  return post(
    url,
    { jsonrpc: "2.0", id, method, params: { ...params, _meta: ENVELOPE } },
    { ...auth, "mcp-protocol-version": era, "mcp-method": method, ...(name !== undefined ? { "mcp-name": name } : {}) },
  );
}
