/**
 * @module mcp/loopback/modern-leg
 * The 2026-07-28 era on a loopback MCP endpoint. A sessionless POST that
 * claims the per-request `_meta` envelope (Claude Code 2.1.332 opens with
 * `server/discover`, `MCP-Protocol-Version: 2026-07-28`) is answered
 * statelessly by the SDK v2's `createMcpHandler(factory, { legacy: "reject" })`
 * — one fresh server per request, as the era asks — through a small node:http
 * bridge of our own (a bodyless web `Request` with the already-parsed body
 * handed over, the web `Response` written back), so no
 * `@modelcontextprotocol/node` and no second read of the body. 2025-era
 * traffic never comes here: it keeps the package's own sessions.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { InboundClassificationOutcome, McpHttpHandler, ServerEvent, ServerEventBus } from "@modelcontextprotocol/server";
import { sdkServer, type SdkServer } from "../peers/sdk-server.js";
import { ignoreRejection } from "../../util/logger.js";

/** A header's value as a string (the first of a repeated one), or undefined. */
function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** One header of a node request as a string (the first of a repeated one), or undefined. */
function header(req: IncomingMessage, name: string): string | undefined {
  return first(req.headers[name]);
}

/**
 * The era of one sessionless POST, decided once: the SDK's own classifier
 * (`classifyInboundRequest`, the step `createMcpHandler` runs) asked once per
 * request, its outcome handed to every step after that needs it (which leg
 * serves the request, whether the hosted `tasks/get` shortcut may answer it).
 * No step classifies again, and there is no cheaper guess in front of it: the
 * package's routing is the SDK's rule itself. (The SDK's handler classifies a
 * request it serves once more inside; the package cannot hand it this outcome.)
 */
export function requestEra(headers: IncomingHttpHeaders, body: unknown): InboundClassificationOutcome {
  return sdkServer().classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: first(headers["mcp-protocol-version"]),
    mcpMethodHeader: first(headers["mcp-method"]),
    mcpNameHeader: first(headers["mcp-name"]),
    body,
  });
}

/**
 * True when a classified request belongs to the 2026-07-28 era's leg: the
 * classifier says "modern", or names a ladder rejection the modern path owns
 * (a malformed envelope, a header/body mismatch). Everything else — the
 * `initialize` handshake, claim-less requests, batches, responses — is 2025.
 */
export function isModernEra(era: InboundClassificationOutcome): boolean {
  return era.kind !== "legacy";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * The node request's headers as `[name, value]` pairs for the web `Request`
 * (repeated ones kept): `Request` builds its own `Headers` from them, so no
 * intermediate `Headers` is filled and copied per request.
 */
export function headerPairs(req: IncomingMessage): Array<[string, string]> {
  const raw = req.rawHeaders;
  const pairs = new Array<[string, string]>(raw.length >> 1);
  for (let i = 0; i < raw.length; i += 2) pairs[i >> 1] = [raw[i]!, raw[i + 1]!];
  return pairs;
}

/** The response's headers as a plain object for `writeHead`. */
function headObject(response: Response): Record<string, string> {
  const head: Record<string, string> = {};
  response.headers.forEach((value, name) => (head[name] = value));
  return head;
}

/**
 * Every byte of a web body: its one chunk as it is (a JSON answer is one), else the chunks joined. A reader costs less
 * than `arrayBuffer()` (measured).
 */
async function readWhole(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/**
 * Write a web `Response` onto a node response. A JSON answer (what a
 * 2026-07-28 request gets unless it streams) is read whole and written at
 * once with its length: one write, no reader loop, no chunked framing. Any
 * other body (SSE: progress, logs, a long call) is streamed until it ends or
 * the client leaves.
 */
export async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  if (res.destroyed) return void response.body?.cancel().catch(ignoreRejection("cancelling a response body the client no longer reads"));
  const head = headObject(response);
  if (!response.body) return void res.writeHead(response.status, head).end();
  if (head["content-type"]?.startsWith("application/json")) {
    let body: Uint8Array;
    try {
      body = await readWhole(response.body);
    } catch {
      // the client left (the request was aborted) or the handler's body failed: nothing to write but the end
      if (!res.destroyed && !res.headersSent) res.writeHead(response.status, head).end();
      return;
    }
    if (res.destroyed) return;
    head["content-length"] = String(body.byteLength);
    return void res.writeHead(response.status, head).end(body);
  }
  res.writeHead(response.status, head);
  const reader = response.body.getReader();
  const leave = (): void => void reader.cancel().catch(ignoreRejection("cancelling a stream the client left"));
  res.once("close", leave);
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) res.write(r.value);
  } catch {
    // the client left (the reader was cancelled) or the handler's stream failed: nothing more to write
  } finally {
    res.off("close", leave);
    if (!res.writableEnded) res.end();
  }
}

/** True for a `subscriptions/listen` request: its stream lives as long as its client stays. */
function isListen(body: unknown): boolean {
  return isPlainObject(body) && body.method === "subscriptions/listen";
}

/**
 * The modern leg of one endpoint: the SDK's per-request handler, built on
 * first use from the endpoint's server factory. `close()` ends every
 * exchange in flight.
 *
 * A client that leaves before its answer ends the exchange: the server built
 * for its request is closed (the SDK's teardown: the call's context is
 * cancelled, nothing is written). That server is found through the web
 * `Request` the SDK hands the factory, so a request carries no abort signal
 * of its own (linking one into every `Request` costs more than the rest of the
 * bridge, measured); only a `subscriptions/listen` stream, which the SDK ends
 * by its request's signal, gets one.
 */
export class ModernLeg {
  private handler: McpHttpHandler | undefined;
  /** Where the open `subscriptions/listen` streams hear of changes; outlives a closed handler. */
  private bus: ServerEventBus | undefined;
  /** The server the factory built for each request in flight (to close when its client leaves). */
  private readonly servers = new WeakMap<Request, SdkServer>();

  constructor(private readonly factory: () => SdkServer) {}

  /** Tell every open `subscriptions/listen` stream that opted in (a list changed, a resource was updated); none open: nothing. */
  publish(event: ServerEvent): void {
    this.bus?.publish(event);
  }

  /** Answer one POST whose body is already parsed (the listener checked Host/Origin and the bearer token before). */
  async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const sdk = sdkServer();
    const bus = (this.bus ??= new sdk.InMemoryServerEventBus());
    const handler = (this.handler ??= sdk.createMcpHandler((context) => this.serverFor(context.requestInfo), { legacy: "reject", bus }));
    const url = `http://${header(req, "host") ?? "127.0.0.1"}${req.url ?? "/"}`;
    const abort = isListen(body) ? new AbortController() : undefined;
    const request = new Request(url, { method: "POST", headers: headerPairs(req), ...(abort ? { signal: abort.signal } : {}) });
    const gone = (): void => {
      if (abort) return abort.abort();
      this.servers.get(request)?.close().catch(ignoreRejection("closing the exchange of a client that left"));
    };
    res.once("close", gone);
    try {
      const response = await handler.fetch(request, { parsedBody: body });
      await writeResponse(res, response);
    } finally {
      res.off("close", gone);
    }
  }

  /** A fresh server for one request, remembered against that request while it is in flight. */
  private serverFor(request: Request | undefined): SdkServer {
    const server = this.factory();
    if (request) this.servers.set(request, server);
    return server;
  }

  /** End the exchanges in flight; the leg serves again on its next request (a fresh handler). */
  async close(): Promise<void> {
    const handler = this.handler;
    this.handler = undefined;
    await handler?.close();
  }
}
