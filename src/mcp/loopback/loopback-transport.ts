/**
 * @module mcp/loopback/loopback-transport
 * `LoopbackMcpTransport`: the one loopback HTTP listener every MCP server of
 * this package runs on (the registry server and the approval server). It binds
 * and holds its port at `bind()`, so the URL can be written into a config file
 * before anything serves; checks Host/Origin, then a generated bearer token, on
 * every request; and `stop()` genuinely releases the port.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Server as SdkServer } from "@modelcontextprotocol/sdk/server/index.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { sdkHttpServer, sdkTypes } from "../sdk.js";
import { getLogger } from "../../util/logger.js";
import { checkBearer, checkHost, checkOrigin, generateToken, isLoopbackHost, tokenDigest, type CheckResult } from "../../listener/loopback-checks.js";
import { LoopbackOptionsError } from "./loopback.error.js";

/** Options of `LoopbackMcpTransport.bind()`. */
export interface LoopbackOptions {
  /**
   * Builds one low-level SDK `Server` (with its handlers registered) per
   * session (stateful) or per request (stateless). Called on the request path.
   */
  serverFactory: () => SdkServer;
  /** Loopback address to bind: `127.0.0.1` (default), another `127.x` address, `::1`, or `localhost` (binds 127.0.0.1). Anything else is refused. */
  host?: string;
  /**
   * Port; default 0 (ephemeral, chosen by the OS at bind). A fixed busy port
   * rejects `bind()` with Node's real `EADDRINUSE` error, the endpoint appended.
   */
  port?: number;
  /** `"token"` (default): every request needs the generated bearer token. `"none"` only when asked for by name. */
  auth?: "token" | "none";
  /** The MCP endpoint path; default `/mcp`. Other paths get 404. */
  path?: string;
  /** Largest accepted request body in bytes; default 4 MiB. Larger -> 413. */
  maxBodyBytes?: number;
  /**
   * Default `false`: stateful streamable HTTP (one session per `initialize`,
   * SSE responses). `true`: stateless (a fresh server per POST, no sessions).
   */
  stateless?: boolean;
}

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

type State = "bound" | "serving" | "stopped";

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: SdkServer;
}

function rpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), ...headers });
  res.end(body);
}

function refuse(res: ServerResponse, check: Exclude<CheckResult, { ok: true }>): void {
  const headers: Record<string, string> = {};
  if (check.status === 401) {
    headers["WWW-Authenticate"] = check.code === "token_missing" ? 'Bearer realm="agentkit"' : 'Bearer realm="agentkit", error="invalid_token"';
  }
  rpcError(res, check.status, check.status === 401 ? -32001 : -32000, check.message, headers);
}

const NOT_PLAIN_HTTP =
  "refused: this MCP listener serves plain HTTP requests only; WebSocket upgrades and CONNECT are not accepted";

function refuseRawSocket(socket: Socket): void {
  const body = `${NOT_PLAIN_HTTP}\n`;
  socket.on("error", () => {});
  socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  socket.destroySoon?.();
}

/**
 * The loopback MCP listener.
 *
 * Lifecycle: `bind()` binds and holds the port (the URL is final) but does not
 * serve: until `start()`, every request that passes the Host/Origin and token
 * checks is answered `503` with a `Retry-After` header (documented choice:
 * an honest "not yet" instead of a request parked for an unknown time).
 * `start()` serves; `stop()` closes every session, every open connection
 * (keep-alive and SSE included) and the listening socket, so the port is free
 * when it resolves; `start()` after `stop()` binds the same port again. Both
 * are idempotent. While bound but not serving the listener does not keep the
 * process alive.
 *
 * Security, in order, on every request: anything that is not a plain HTTP
 * request (a WebSocket upgrade, CONNECT) is refused (403); the `Host` header
 * must name this listener on loopback and a present `Origin` must be its own
 * loopback origin (403, DNS rebinding); then the bearer token, compared in
 * constant time (401 with `WWW-Authenticate: Bearer`); then the body size
 * (413). The token is generated here — 32 random bytes, base64url — and never
 * accepted from a caller; it stays the same across stop/start.
 *
 * Protocol: stateful streamable HTTP with SSE responses (JSON-response mode
 * leaks per call on SDK 1.32.2, #2559), or stateless. GET and DELETE route to
 * the session; an unknown session id gets 404. A POST without a session that
 * is not `initialize` (Claude Code 2.1.332 opens with `server/discover`,
 * protocol 2026-07-28) is answered by a one-shot stateless server, i.e.
 * exactly as the SDK answers it — a 400 JSON-RPC error naming the supported
 * versions (or "Method not found" without that version header) — and the
 * client falls back to `initialize`.
 */
export class LoopbackMcpTransport implements AsyncDisposable {
  /** The endpoint, e.g. `http://127.0.0.1:53411/mcp`. */
  readonly url: string;
  /** The bound address. */
  readonly host: string;
  /** The bound port (never 0 once bound). */
  readonly port: number;
  /** The generated bearer token (43 chars), or `null` with `auth: "none"`. */
  readonly token: string | null;
  /** `{ Authorization: "Bearer <token>" }`, or `{}` with `auth: "none"`. Frozen. */
  readonly authHeaders: Readonly<Record<string, string>>;

  private readonly serverFactory: () => SdkServer;
  private readonly path: string;
  private readonly maxBodyBytes: number;
  private readonly stateless: boolean;
  private readonly digest: Buffer | null;
  private readonly sessions = new Map<string, Session>();
  private readonly oneShots = new Set<Session>();
  private http: HttpServer | null = null;
  private state: State = "bound";
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(options: Required<Omit<LoopbackOptions, "port">>, port: number, http: HttpServer, token: string | null) {
    this.serverFactory = options.serverFactory;
    this.host = options.host;
    this.port = port;
    this.path = options.path;
    this.maxBodyBytes = options.maxBodyBytes;
    this.stateless = options.stateless;
    this.token = token;
    this.digest = token === null ? null : tokenDigest(token);
    const headers: Record<string, string> = token === null ? {} : { Authorization: `Bearer ${token}` };
    this.authHeaders = Object.freeze(headers);
    this.url = `http://${this.host.includes(":") ? `[${this.host}]` : this.host}:${port}${this.path}`;
    this.http = http;
  }

  /**
   * Bind and hold the port now; resolve once the URL is final. Not serving
   * until `start()`. Bad options throw `LoopbackOptionsError` before anything
   * binds; a busy fixed port rejects with Node's `EADDRINUSE` error (its
   * `code`, `errno`, `syscall`, `address`, `port` intact) and the endpoint
   * appended to its message. Never exits or crashes the process.
   */
  static async bind(options: LoopbackOptions): Promise<LoopbackMcpTransport> {
    const resolved = LoopbackMcpTransport.resolveOptions(options);
    const token = resolved.auth === "token" ? generateToken() : null;
    // The handler is swapped in once the instance exists; nothing can arrive before `listen` resolves anyway.
    const provisional = { handler: (_req: IncomingMessage, res: ServerResponse) => rpcError(res, 503, -32000, "Service unavailable") };
    const http = await LoopbackMcpTransport.listen(resolved.host, options.port ?? 0, provisional, resolved.path);
    const port = (http.address() as { port: number }).port;
    const t = new LoopbackMcpTransport(resolved, port, http, token);
    provisional.handler = (req, res) => t.onRequest(req, res);
    http.unref();
    return t;
  }

  private static resolveOptions(options: LoopbackOptions): Required<Omit<LoopbackOptions, "port">> {
    if (!options || typeof options.serverFactory !== "function") {
      throw new LoopbackOptionsError("serverFactory", "LoopbackMcpTransport.bind: serverFactory must be a function returning a low-level SDK Server with its handlers registered");
    }
    if ("token" in options) {
      throw new LoopbackOptionsError(
        "token",
        "LoopbackMcpTransport.bind: the bearer token is generated by the listener and never supplied (a token a caller can set ends up a constant in somebody's config file); read it from .token / .authHeaders, or pass auth: \"none\"",
      );
    }
    let host = options.host ?? "127.0.0.1";
    if (host === "localhost") host = "127.0.0.1";
    if (host === "[::1]") host = "::1";
    if (!isLoopbackHost(host)) {
      throw new LoopbackOptionsError(
        "host",
        `LoopbackMcpTransport.bind: refusing to bind '${host}': this listener binds loopback only (127.0.0.1, another 127.x address, or ::1). The token narrows who can call, not who can reach.`,
      );
    }
    const port = options.port ?? 0;
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new LoopbackOptionsError("port", `LoopbackMcpTransport.bind: port must be an integer 0-65535 (0 = ephemeral), got ${String(port)}`);
    }
    const auth = options.auth ?? "token";
    if (auth !== "token" && auth !== "none") {
      throw new LoopbackOptionsError("auth", `LoopbackMcpTransport.bind: auth must be "token" (default) or "none", got ${JSON.stringify(auth)}`);
    }
    const path = options.path ?? "/mcp";
    if (typeof path !== "string" || !path.startsWith("/") || /[?#\s]/.test(path)) {
      throw new LoopbackOptionsError("path", `LoopbackMcpTransport.bind: path must start with '/' and hold no query, fragment or space, got ${JSON.stringify(path)}`);
    }
    const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
    if (!Number.isInteger(maxBodyBytes) || maxBodyBytes <= 0) {
      throw new LoopbackOptionsError("maxBodyBytes", `LoopbackMcpTransport.bind: maxBodyBytes must be a positive integer, got ${String(maxBodyBytes)}`);
    }
    return { serverFactory: options.serverFactory, host, auth, path, maxBodyBytes, stateless: options.stateless ?? false };
  }

  private static listen(
    host: string,
    port: number,
    hooks: { handler: (req: IncomingMessage, res: ServerResponse) => void },
    path: string,
  ): Promise<HttpServer> {
    return new Promise((resolve, reject) => {
      const http = createServer((req, res) => hooks.handler(req, res));
      http.on("upgrade", (_req, socket: Socket) => refuseRawSocket(socket));
      http.on("connect", (_req, socket: Socket) => refuseRawSocket(socket));
      http.on("clientError", (_err, socket: Socket) => {
        if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
        socket.destroy();
      });
      const onError = (err: NodeJS.ErrnoException): void => {
        http.off("listening", onListening);
        const endpoint = `http://${host.includes(":") ? `[${host}]` : host}:${port}${path}`;
        err.message = `${err.message} (binding the loopback MCP listener at ${endpoint})`;
        reject(err);
      };
      const onListening = (): void => {
        http.off("error", onError);
        // After a successful bind, a late socket error must never crash the host process.
        http.on("error", (err) => getLogger().error(`loopback MCP listener on ${host}:${port}: ${err.message}`));
        resolve(http);
      };
      http.once("error", onError);
      http.once("listening", onListening);
      http.listen({ host, port });
    });
  }

  /** True between `start()` and `stop()`. */
  get serving(): boolean {
    return this.state === "serving";
  }

  /** Number of open stateful sessions (for tests and diagnostics). */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /**
   * Serve. Idempotent. After `stop()`, binds the same port again first; if
   * something else took it meanwhile, rejects with that `EADDRINUSE` error.
   */
  start(): Promise<void> {
    return this.serialise(async () => {
      if (this.state === "serving") return;
      if (this.state === "stopped") {
        const hooks = { handler: (req: IncomingMessage, res: ServerResponse) => this.onRequest(req, res) };
        this.http = await LoopbackMcpTransport.listen(this.host, this.port, hooks, this.path);
      }
      this.http!.ref();
      this.state = "serving";
    });
  }

  /**
   * Stop serving and release the port: close every session and its SDK
   * server, then the listening socket and every open connection (keep-alive
   * and SSE streams too). Idempotent; resolves when the port is free.
   */
  stop(): Promise<void> {
    return this.serialise(async () => {
      if (this.state === "stopped") return;
      this.state = "stopped";
      const http = this.http;
      this.http = null;
      const all = [...this.sessions.values(), ...this.oneShots];
      this.sessions.clear();
      this.oneShots.clear();
      await Promise.allSettled(all.map((s) => closeSession(s)));
      if (http) {
        await new Promise<void>((resolve) => {
          http.close(() => resolve());
          http.closeAllConnections();
        });
        // Two I/O turns, so an in-process client's pool (undici) reads the FIN
        // of its keep-alive sockets before it could reuse one against a
        // restart on this port (measured: one turn is not enough).
        for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
      }
    });
  }

  /** Same as `stop()`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  private serialise(op: () => Promise<void>): Promise<void> {
    const next = this.queue.then(op, op);
    this.queue = next.catch(() => {});
    return next;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    this.handle(req, res).catch((err: unknown) => {
      getLogger().error(`loopback MCP listener ${this.url}: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) rpcError(res, 500, -32603, "Internal server error");
      else res.end();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Node routes upgrades and CONNECT to their own events; this catches an
    // upgrade a client tried to smuggle through anyway.
    if (req.method === "CONNECT" || req.headers.upgrade !== undefined) {
      res.writeHead(403, { "Content-Type": "text/plain", Connection: "close" });
      res.end(`${NOT_PLAIN_HTTP}\n`);
      return;
    }
    const host = checkHost(req.headers.host, this.port, this.host);
    if (!host.ok) return refuse(res, host);
    const origin = checkOrigin(req.headers.origin, this.port);
    if (!origin.ok) return refuse(res, origin);
    if (this.digest) {
      const bearer = checkBearer(req.headers.authorization, this.digest);
      if (!bearer.ok) return refuse(res, bearer);
    }
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    if ((q < 0 ? url : url.slice(0, q)) !== this.path) {
      return rpcError(res, 404, -32000, `Not found: this listener serves MCP at ${this.path} only`);
    }
    if (this.state !== "serving") {
      return rpcError(res, 503, -32000, "Service unavailable: the MCP listener is bound but not serving; its owner has not called start() yet (or has stopped it)", {
        "Retry-After": "1",
      });
    }
    const method = req.method ?? "GET";
    if (method === "POST") return this.post(req, res);
    if (method === "GET" || method === "DELETE") return this.toSession(req, res, method);
    rpcError(res, 405, -32000, "Method not allowed.", { Allow: "GET, POST, DELETE" });
  }

  private async post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await this.readJson(req, res);
    if (body === NO_BODY) return;
    const sid = header(req, "mcp-session-id");
    if (sid !== undefined) {
      const session = this.sessions.get(sid);
      if (!session) return rpcError(res, 404, -32001, "Session not found");
      return session.transport.handleRequest(req, res, body);
    }
    if (this.stateless || !isInitialize(body)) return this.oneShot(req, res, body);
    const { StreamableHTTPServerTransport } = sdkHttpServer();
    // `session` is declared below; the callbacks only run during handleRequest, after it exists.
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        if (this.state === "serving") this.sessions.set(id, session);
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    const server = this.serverFactory();
    const session: Session = { transport, server };
    transport.onclose = () => {
      if (transport.sessionId !== undefined && this.sessions.get(transport.sessionId) === session) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    // Initialisation refused (bad Accept header, ...), or stop() ran meanwhile: nothing owns this pair.
    if (transport.sessionId === undefined || this.sessions.get(transport.sessionId) !== session) await closeSession(session);
  }

  private async oneShot(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const { StreamableHTTPServerTransport } = sdkHttpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = this.serverFactory();
    const pair: Session = { transport, server };
    this.oneShots.add(pair);
    res.on("close", () => {
      this.oneShots.delete(pair);
      void closeSession(pair);
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  private async toSession(req: IncomingMessage, res: ServerResponse, method: "GET" | "DELETE"): Promise<void> {
    req.resume();
    const sid = header(req, "mcp-session-id");
    if (sid === undefined) {
      if (method === "GET") {
        return rpcError(res, 405, -32000, "Method not allowed: open a session with initialize first (no standalone stream without one)", { Allow: "POST, DELETE" });
      }
      return rpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
    }
    const session = this.sessions.get(sid);
    if (!session) return rpcError(res, 404, -32001, "Session not found");
    await session.transport.handleRequest(req, res);
  }

  /** Read and parse the JSON body within the size limit; answers the request itself (413/400) and returns NO_BODY when it cannot. */
  private readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    const limit = this.maxBodyBytes;
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > limit) {
      tooLarge(req, res, limit);
      return Promise.resolve(NO_BODY);
    }
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      req.on("data", (chunk: Buffer) => {
        if (done) return;
        size += chunk.length;
        if (size > limit) {
          done = true;
          chunks.length = 0;
          tooLarge(req, res, limit);
          resolve(NO_BODY);
          return;
        }
        chunks.push(chunk);
      });
      req.on("error", (err) => {
        if (!done) {
          done = true;
          reject(err);
        }
      });
      req.on("end", () => {
        if (done) return;
        done = true;
        const text = Buffer.concat(chunks, size).toString("utf8");
        try {
          resolve(JSON.parse(text));
        } catch {
          rpcError(res, 400, -32700, "Parse error: Invalid JSON");
          resolve(NO_BODY);
        }
      });
    });
  }
}

const NO_BODY = Symbol("no body");

function tooLarge(req: IncomingMessage, res: ServerResponse, limit: number): void {
  rpcError(res, 413, -32000, `Payload too large: request bodies are limited to ${limit} bytes`, { Connection: "close" });
  // Stop reading the rest; the connection closes once the answer is out.
  req.pause();
  res.on("finish", () => req.socket.destroySoon());
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function isInitialize(body: unknown): boolean {
  const { isInitializeRequest } = sdkTypes;
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

async function closeSession(s: Session): Promise<void> {
  await Promise.allSettled([s.transport.close(), s.server.close()]);
}
