/**
 * @module mcp/loopback/node-http-transport
 * `NodeHttpServerTransport`: the server side of MCP's Streamable HTTP
 * transport (protocol 2025-06-18 and 2025-11-25) written straight onto
 * Node's `IncomingMessage`/`ServerResponse`. It answers as the SDK v2's
 * `NodeStreamableHTTPServerTransport` (`@modelcontextprotocol/node` 2.1.2) does in the modes agentkit uses —
 * stateful sessions or the sessionless one-shot, SSE responses, no event
 * store, no JSON-response mode — without the SDK's bridge to web streams
 * (a web `Request`, a `ReadableStream` per SSE response and a web
 * `Response` piped back), which cost a fifth of the served path's CPU.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo, JSONRPCMessage, MessageExtraInfo, RequestId, Transport, TransportSendOptions } from "@modelcontextprotocol/server";
import { readJsonBody } from "../../listener/read-body.js";
import { isJsonContentType } from "../../wire/media-type.js";
import { sdkServer } from "../peers/sdk-server.js";

/** Options of a `NodeHttpServerTransport`, as the SDK transport's of the same names. */
export interface NodeHttpTransportOptions {
  /** Stateful: the generator of session ids (e.g. `randomUUID`). Absent: stateless, one request per transport. */
  sessionIdGenerator?: (() => string) | undefined;
  /** Called (and awaited) once `initialize` has given this transport its session id, before the request is dispatched. */
  onsessioninitialized?: ((sessionId: string) => void | Promise<void>) | undefined;
  /** Called (and awaited) by a DELETE for this session, before the transport closes. */
  onsessionclosed?: ((sessionId: string) => void | Promise<void>) | undefined;
  /** Interval of the `: keepalive` comment on an SSE stream that stays open; default 15 s (the SDK's); 0 disables it. */
  keepAliveMs?: number | undefined;
}

/** One open SSE response: a POST's (its requests' answers) or the standalone GET stream. */
interface SseStream {
  readonly res: ServerResponse;
  readonly headers: Record<string, string>;
  /** The requests of this POST still unanswered (empty for the GET stream). */
  readonly waiting: Set<RequestId>;
  /** Every request id of this POST, released together when the last is answered. */
  readonly ids: RequestId[];
  /** The client went away, or the stream was ended. */
  gone: boolean;
  /** Sends the head alone if nothing was written within a turn of the event loop. */
  flushAt: NodeJS.Immediate | undefined;
  keepAlive: NodeJS.Timeout | undefined;
}

const STANDALONE_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache, no-transform",
  Connection: "keep-alive",
  "X-Accel-Buffering": "no",
} as const;

const DEFAULT_KEEP_ALIVE_MS = 15_000;
const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
/** The most messages one JSON-RPC batch may hold (the SDK transport's bound). */
const MAX_BATCH = 100;

/** Write a JSON-RPC error body (`id: null`) as the SDK's transport does. */
function writeError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  data?: unknown,
  extra: Record<string, string> = {},
): void {
  if (res.writableEnded) return;
  if (res.headersSent) return void res.end();
  const error: Record<string, unknown> = { code, message };
  if (data !== undefined) error.data = data;
  const body = JSON.stringify({ jsonrpc: "2.0", error, id: null });
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), ...extra });
  res.end(body);
}

/** The answer of a closed transport (the SDK's, not reported to `onerror`). */
function gone(res: ServerResponse): void {
  writeError(res, 404, -32001, "Session not found");
}

function isRequest(m: JSONRPCMessage): boolean {
  // A parsed message matches exactly one of four strict schemas: only a request has both.
  return "method" in m && "id" in m;
}

function isResponse(m: JSONRPCMessage): m is JSONRPCMessage & { id?: RequestId } {
  return !("method" in m);
}

function isInitialize(m: JSONRPCMessage): boolean {
  return (m as { method?: unknown }).method === "initialize" && sdkServer().isInitializeRequest(m);
}

/**
 * A Streamable HTTP server transport on node:http, behind the SDK's public
 * `Transport` interface: connect an SDK `Server` to it, then hand it each
 * request with `handleRequest(req, res, parsedBody)`.
 *
 * Matches the SDK's transport: POST needs `Accept` with both
 * `application/json` and `text/event-stream` (406) and a JSON
 * `Content-Type` (415); a body that is not JSON-RPC gets 400 -32700, a batch
 * over 100 messages 400 -32600; `initialize` must come alone and once (400);
 * other requests need the session id (400 missing, 404 another) and a
 * supported `MCP-Protocol-Version` when sent (400); notifications and
 * responses alone get 202; requests get one SSE stream, each message one
 * `event: message` written with one `res.write`, ended once every request of
 * the POST is answered. Server-to-client messages with a `relatedRequestId`
 * go on that request's stream; others on the GET stream, or are dropped
 * while none is open. GET opens that stream (406, 409 when one is open);
 * DELETE ends the session. A client that disconnects is forgotten; nothing
 * is written to its response again. Not supported (agentkit never asks):
 * an event store (resumability), JSON-response mode, DNS-rebinding options
 * (the loopback listener checks Host/Origin first).
 */
export class NodeHttpServerTransport implements Transport {
  /** The session id, once `initialize` has run (stateful mode only). */
  sessionId?: string | undefined;
  /** See `Transport.onclose`: called once, by `close()`. */
  onclose?: (() => void) | undefined;
  /** See `Transport.onerror`: every refused request and failed write is reported here. */
  onerror?: ((error: Error) => void) | undefined;
  /** See `Transport.onmessage`: `extra` is `{ authInfo, requestInfo: { headers, url } }`, as the SDK gives. */
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;

  private readonly generate: (() => string) | undefined;
  private readonly onInitialized: NodeHttpTransportOptions["onsessioninitialized"];
  private readonly onClosed: NodeHttpTransportOptions["onsessionclosed"];
  private readonly keepAliveMs: number;
  private readonly requests = new Map<RequestId, SseStream>();
  private readonly streams = new Set<SseStream>();
  private standalone: SseStream | undefined;
  private started = false;
  private handled = false;
  private initialized = false;
  private closed = false;

  constructor(options: NodeHttpTransportOptions = {}) {
    this.generate = options.sessionIdGenerator;
    this.onInitialized = options.onsessioninitialized;
    this.onClosed = options.onsessionclosed;
    this.keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  }

  /** Part of `Transport`; streams are per request. Throws when called twice. */
  async start(): Promise<void> {
    if (this.started) throw new Error("Transport already started");
    this.started = true;
  }

  /**
   * Answer one HTTP request. `parsedBody` is the POST body already parsed
   * (read here, up to 4 MiB, when absent). Resolves once the request is
   * dispatched, not when its SSE stream ends. A stateless transport takes
   * one request only: a second throws, as the SDK's does.
   */
  async handleRequest(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    if (this.closed) return gone(res);
    if (!this.generate && this.handled)
      throw new Error("Stateless transport cannot be reused across requests. Create a new transport per request.");
    this.handled = true;
    switch (req.method) {
      case "POST":
        return this.post(req, res, parsedBody);
      case "GET":
        return this.get(req, res);
      case "DELETE":
        return this.delete(req, res);
      default:
        return this.refuse(res, 405, -32000, "Method not allowed.", { Allow: "GET, POST, DELETE" });
    }
  }

  private async post(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody: unknown): Promise<void> {
    const accept = req.headers.accept;
    if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) {
      return this.refuse(res, 406, -32000, "Not Acceptable: Client must accept both application/json and text/event-stream");
    }
    const ct = req.headers["content-type"];
    if (!isJsonContentType(ct)) {
      return this.refuse(res, 415, -32000, "Unsupported Media Type: Content-Type must be application/json");
    }
    try {
      let raw = parsedBody;
      if (raw === undefined) {
        // A body the caller did not parse (agentkit always does): up to 4 MiB, as the SDK's default.
        const body = await readJsonBody(req, res, DEFAULT_MAX_BODY);
        if (!body.ok) {
          if (body.reason === "too_large")
            return this.refuse(res, 413, -32000, `Payload Too Large: Request body must not exceed ${DEFAULT_MAX_BODY} bytes`);
          if (body.reason === "not_json") return this.refuse(res, 400, -32700, "Parse error: Invalid JSON");
          return; // the client went away mid-body: nobody to answer
        }
        raw = body.value;
      }
      if (Array.isArray(raw) && raw.length > MAX_BATCH)
        return this.refuse(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`);
      const messages = parseMessages(raw);
      if (!messages) return this.refuse(res, 400, -32700, "Parse error: Invalid JSON-RPC message");
      await this.dispatch(req, res, messages);
    } catch (err) {
      this.onerror?.(err as Error);
      writeError(res, 400, -32700, "Parse error", String(err));
    }
  }

  private async dispatch(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, messages: JSONRPCMessage[]): Promise<void> {
    if (this.closed) return gone(res);
    const init = messages.some(isInitialize);
    if (init) {
      if (this.initialized && this.sessionId !== undefined)
        return this.refuse(res, 400, -32600, "Invalid Request: Server already initialized");
      if (messages.length > 1) return this.refuse(res, 400, -32600, "Invalid Request: Only one initialization request is allowed");
      this.sessionId = this.generate?.();
      this.initialized = true;
      if (this.sessionId && this.onInitialized) await this.onInitialized(this.sessionId);
    } else if (!this.checkSession(req, res) || !this.checkProtocolVersion(req, res)) {
      return;
    }
    if (this.closed) return gone(res);
    // No web `Request` is built for `extra.request` (the SDK v2's field): nothing served here reads it, and building
    // one per call is the cost this transport exists to avoid.
    const extra: MessageExtraInfo = req.auth ? { authInfo: req.auth } : {};
    if (!messages.some(isRequest)) {
      for (const m of messages) this.onmessage?.(m, extra);
      res.writeHead(202).end();
      return;
    }
    const stream = this.open(res, this.sseHeaders(), false);
    for (const m of messages) {
      if (!isRequest(m)) continue;
      const id = (m as { id: RequestId }).id;
      stream.waiting.add(id);
      stream.ids.push(id);
      this.requests.set(id, stream);
    }
    for (const m of messages) this.onmessage?.(m, extra);
  }

  private async get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.resume();
    if (!req.headers.accept?.includes("text/event-stream")) {
      return this.refuse(res, 406, -32000, "Not Acceptable: Client must accept text/event-stream");
    }
    if (!this.checkSession(req, res) || !this.checkProtocolVersion(req, res)) return;
    if (this.standalone) return this.refuse(res, 409, -32000, "Conflict: Only one SSE stream is allowed per session");
    this.standalone = this.open(res, this.sseHeaders(), true);
  }

  private async delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.resume();
    if (!this.checkSession(req, res) || !this.checkProtocolVersion(req, res)) return;
    try {
      await this.onClosed?.(this.sessionId!);
      if (!res.headersSent) res.writeHead(200).end();
    } finally {
      await this.close();
    }
  }

  /** Report a refused request to `onerror` (as the SDK does) and answer it. */
  private refuse(res: ServerResponse, status: number, code: number, message: string, extra?: Record<string, string>): void {
    this.onerror?.(new Error(message));
    writeError(res, status, code, message, undefined, extra);
  }

  /** Stateful only: the transport is initialized and the request names its session. Answers the refusal itself. */
  private checkSession(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.generate === undefined) return true;
    if (!this.initialized) return (void this.refuse(res, 400, -32000, "Bad Request: Server not initialized"), false);
    const sid = req.headers["mcp-session-id"];
    if (!sid) return (void this.refuse(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required"), false);
    if (sid !== this.sessionId) return (void this.refuse(res, 404, -32001, "Session not found"), false);
    return true;
  }

  /** A sent `MCP-Protocol-Version` must be one the SDK supports; absent means the negotiated one. */
  private checkProtocolVersion(req: IncomingMessage, res: ServerResponse): boolean {
    const v = req.headers["mcp-protocol-version"];
    const supported = sdkServer().SUPPORTED_PROTOCOL_VERSIONS;
    if (v === undefined || supported.includes(v as string)) return true;
    const message = `Bad Request: Unsupported protocol version: ${String(v)} (supported versions: ${supported.join(", ")})`;
    this.refuse(res, 400, -32000, message);
    return false;
  }

  private sseHeaders(): Record<string, string> {
    return this.sessionId === undefined ? STANDALONE_HEADERS : { ...STANDALONE_HEADERS, "mcp-session-id": this.sessionId };
  }

  /**
   * Register an SSE stream. Its head goes out with its first event (one
   * socket write for a quick answer); a stream with nothing to say within a
   * turn of the event loop (and the GET stream at once) sends the head alone,
   * as the SDK does, so the client sees the stream open, and arms its keep-alive.
   */
  private open(res: ServerResponse, headers: Record<string, string>, now: boolean): SseStream {
    const stream: SseStream = { res, headers, waiting: new Set(), ids: [], gone: false, flushAt: undefined, keepAlive: undefined };
    this.streams.add(stream);
    res.once("close", () => this.clientGone(stream));
    if (now) this.flush(stream);
    else stream.flushAt = setImmediate(() => this.flush(stream));
    return stream;
  }

  private flush(stream: SseStream): void {
    stream.flushAt = undefined;
    if (stream.gone) return;
    if (!stream.res.headersSent) {
      stream.res.writeHead(200, stream.headers);
      stream.res.flushHeaders();
    }
    if (this.keepAliveMs >= 1 && Number.isFinite(this.keepAliveMs)) {
      stream.keepAlive = setInterval(() => this.write(stream, ": keepalive\n\n"), Math.min(this.keepAliveMs, 2 ** 31 - 1));
      stream.keepAlive.unref();
    }
  }

  /** One SSE frame, one `res.write` (the head rides on the first). False when the client is gone. */
  private write(stream: SseStream, frame: string): boolean {
    const res = stream.res;
    if (stream.gone || res.writableEnded || res.destroyed) return false;
    if (!res.headersSent) res.writeHead(200, stream.headers);
    res.write(frame);
    return true;
  }

  /** End a stream: the last answer rides on the end (one write, with a Content-Length when nothing went before). */
  private end(stream: SseStream, frame?: string): void {
    this.forget(stream);
    const res = stream.res;
    if (res.writableEnded || res.destroyed) return;
    if (frame === undefined) {
      if (!res.headersSent) res.writeHead(200, stream.headers);
      res.end();
    } else {
      if (!res.headersSent) res.writeHead(200, { ...stream.headers, "Content-Length": String(Buffer.byteLength(frame)) });
      res.end(frame);
    }
  }

  /**
   * A POST's stream closed under requests still unanswered: the client went
   * away, and with no event store nothing can ever deliver those answers. Each
   * is cancelled as a client's `notifications/cancelled` would cancel it, so
   * the work stops and a person still being asked about it is told (the SDK's
   * own transport leaves such a handler running; this is the one place this
   * transport answers differently on purpose).
   */
  private clientGone(stream: SseStream): void {
    const orphaned = stream.gone ? [] : [...stream.waiting];
    this.forget(stream);
    for (const requestId of orphaned) {
      this.onmessage?.({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId, reason: "the client's connection closed before the answer" },
      });
    }
  }

  /** Drop a stream from every table and stop its timers; its requests stay mapped until answered (the SDK's rule). */
  private forget(stream: SseStream): void {
    if (stream.gone) return;
    stream.gone = true;
    this.streams.delete(stream);
    if (this.standalone === stream) this.standalone = undefined;
    if (stream.flushAt !== undefined) clearImmediate(stream.flushAt);
    if (stream.keepAlive !== undefined) clearInterval(stream.keepAlive);
    stream.flushAt = stream.keepAlive = undefined;
  }

  /**
   * Part of `Transport`. A response goes on its request's stream and ends it
   * when it is the POST's last; a message with `relatedRequestId` goes on
   * that request's stream; any other request or notification goes on the
   * GET stream, or nowhere while none is open. Throws (as the SDK does) for
   * a response to an unknown request, or the last one of a POST whose client
   * has gone.
   */
  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const response = isResponse(message);
    const id = response ? message.id : options?.relatedRequestId;
    if (id === undefined) {
      if (response) throw new Error("Cannot send a response on a standalone SSE stream unless resuming a previous client request");
      if (this.standalone) this.write(this.standalone, frameOf(message));
      return;
    }
    // After close() the SDK drops what comes late, quietly.
    if (this.closed) return;
    const stream = this.requests.get(id);
    if (!stream) throw new Error(`No connection established for request ID: ${String(id)}`);
    if (!response) {
      this.write(stream, frameOf(message));
      return;
    }
    stream.waiting.delete(id);
    if (stream.waiting.size > 0) {
      this.write(stream, frameOf(message));
      return;
    }
    for (const rid of stream.ids) this.requests.delete(rid);
    if (stream.gone) throw new Error(`No connection established for request ID: ${String(id)}`);
    this.end(stream, frameOf(message));
  }

  /** Part of `Transport`: end every open stream, forget every request, call `onclose` once. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stream of [...this.streams]) this.end(stream);
    this.requests.clear();
    this.onclose?.();
  }
}

function frameOf(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/** The body as JSON-RPC messages (the SDK's own parser), or undefined when one is not JSON-RPC. */
function parseMessages(raw: unknown): JSONRPCMessage[] | undefined {
  const { parseJSONRPCMessage } = sdkServer();
  const list = Array.isArray(raw) ? raw : [raw];
  const out: JSONRPCMessage[] = [];
  try {
    for (const m of list) out.push(parseJSONRPCMessage(m));
  } catch {
    return undefined;
  }
  return out;
}
