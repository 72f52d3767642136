/**
 * @module mcp/loopback/loopback-transport
 * `LoopbackMcpTransport`: an MCP endpoint (the registry server's or the
 * approval server's) mounted as a route on the one loopback listener
 * (`listener/`). It leases and holds its port at `bind()`, so the URL can be
 * written into a config file before anything serves; the listener checks
 * Host/Origin, then this endpoint's own bearer token, on every request; and
 * `stop()` releases the port when nothing else of this process uses it.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServerEvent } from "@modelcontextprotocol/server";
import { sdkServer, type SdkServer } from "../peers/sdk-server.js";
import { generateToken, isLoopbackHost, tokenDigest } from "../../listener/loopback-checks.js";
import type { RouteMount } from "../../listener/loopback-listener.js";
import { readJsonBody } from "../../listener/read-body.js";
import { writeRefusal } from "../../listener/route.js";
import { leaseListener, type ListenerLease } from "../../listener/shared-listeners.js";
import { OptionsError } from "../../errors/options.error.js";
import { checkPort, type OptionRule } from "../../options/option-checks.js";
import { isModernEra, ModernLeg, requestEra } from "./modern-leg.js";
import { NodeHttpServerTransport } from "./node-http-transport.js";
import { SESSION_DEFAULTS, SessionTable } from "./session-table.js";

/** Options of `LoopbackMcpTransport.bind()`. */
export interface LoopbackOptions {
  /**
   * Builds one low-level SDK v2 `Server` (`@modelcontextprotocol/server`
   * 2.x, with its handlers registered) per 2025-era session (stateful), per
   * request (stateless), and per 2026-07-28 request. Called on the request path.
   */
  serverFactory: () => SdkServer;
  /**
   * Loopback address to bind: `127.0.0.1` (default), another `127.x` address, `::1`, or `localhost` (binds 127.0.0.1).
   * Anything else is refused.
   */
  host?: string;
  /**
   * Port; default 0: the process's shared listener on `host` (an ephemeral
   * port chosen by the OS at its first bind; every surface of this process
   * that asks for port 0 answers there, each at its own path). A fixed port
   * gets a listener of its own; a busy one rejects `bind()` with Node's real
   * `EADDRINUSE` error, the endpoint appended.
   */
  port?: number;
  /** `"token"` (default): every request needs this endpoint's generated bearer token. `"none"` only when asked for by name. */
  auth?: "token" | "none";
  /** The MCP endpoint path; default `/mcp`. Taken on a shared listener -> `/mcp-2`, `/mcp-3`, ... Other paths get 404. */
  path?: string;
  /** Largest accepted request body in bytes; default 4 MiB. Larger -> 413. */
  maxBodyBytes?: number;
  /**
   * Default `false`: stateful streamable HTTP (one session per `initialize`,
   * SSE responses). `true`: stateless (a fresh server per POST, no sessions).
   */
  stateless?: boolean;
  /** A session with no request for this long is closed; a request naming it gets 404 (the client re-initializes). Default 30 minutes. */
  sessionIdleMs?: number;
  /** Most live sessions; past it the oldest idle one is closed, and with none idle a new `initialize` gets 503. Default 1,000. */
  maxSessions?: number;
}

type Resolved = Required<Omit<LoopbackOptions, "port">> & { port: number };

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

type State = "bound" | "serving" | "stopped";

interface Session {
  readonly transport: NodeHttpServerTransport;
  readonly server: SdkServer;
  close(): Promise<void>;
}

function rpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  writeRefusal(res, "jsonrpc", status, message, headers, code);
}

/**
 * The two session options as spec rules (shared with serveRegistry and ApprovalServer): each fills its default or
 * throws `OptionsError`.
 */
export const SESSION_OPTION_RULES = {
  sessionIdleMs: ((v, where, option) => {
    const idle = v ?? SESSION_DEFAULTS.sessionIdleMs;
    if (typeof idle !== "number" || !Number.isFinite(idle) || idle <= 0) {
      throw new OptionsError(
        where,
        option,
        `${where}: ${option} must be a positive number of milliseconds (default 30 minutes), got ${String(idle)}`,
      );
    }
    return idle;
  }) as OptionRule<number>,
  maxSessions: ((v, where, option) => {
    const max = v ?? SESSION_DEFAULTS.maxSessions;
    if (typeof max !== "number" || !Number.isInteger(max) || max <= 0) {
      throw new OptionsError(where, option, `${where}: ${option} must be a positive integer (default 1000), got ${String(max)}`);
    }
    return max;
  }) as OptionRule<number>,
} as const;

/** Check the two session options; returns the values or throws `OptionsError` naming `where`. */
export function checkSessionOptions(
  options: { sessionIdleMs?: unknown; maxSessions?: unknown },
  where: string,
): { sessionIdleMs: number; maxSessions: number } {
  return {
    sessionIdleMs: SESSION_OPTION_RULES.sessionIdleMs(options.sessionIdleMs, where, "sessionIdleMs"),
    maxSessions: SESSION_OPTION_RULES.maxSessions(options.maxSessions, where, "maxSessions"),
  };
}

/**
 * An MCP endpoint on the loopback listener.
 *
 * Lifecycle: `bind()` leases the listener and holds the port (the URL is
 * final) but does not serve: until `start()`, every request that passes the
 * Host/Origin and token checks is answered `503` with a `Retry-After` header
 * (documented choice: an honest "not yet" instead of a request parked for an
 * unknown time). `start()` serves; `stop()` closes every session and
 * releases the lease, so the port is free when it resolves unless another
 * surface of this process still uses the shared listener; `start()` after
 * `stop()` takes the same port (and path) again. Both are idempotent. While
 * bound but not serving the endpoint does not keep the process alive.
 *
 * Security, in order, on every request (the listener's checks, then this
 * endpoint's): a WebSocket upgrade or CONNECT is refused (403); the `Host`
 * header must name the listener on loopback and a present `Origin` must be
 * its own loopback origin (403, DNS rebinding); then this endpoint's bearer
 * token, compared in constant time (401 with `WWW-Authenticate: Bearer`);
 * then the body size (413). The token is generated here — 32 random bytes,
 * base64url — and never accepted from a caller; it stays the same across
 * stop/start.
 *
 * Protocol: stateful streamable HTTP with SSE responses (JSON-response mode
 * leaks per call on SDK 1.32.2, #2559), or stateless, spoken by
 * `NodeHttpServerTransport` straight on node:http (as the SDK's transport
 * answers, without its bridge to web streams). GET and DELETE route to
 * the session; an unknown (or expired) session id gets 404. Sessions idle
 * for `sessionIdleMs` close; past `maxSessions` the oldest idle closes, or a
 * new `initialize` gets 503. A batch with a duplicate request id is refused
 * (400) before anything runs: its answers could not all be delivered.
 *
 * Both protocol eras on this one URL: a sessionless POST claiming the
 * 2026-07-28 `_meta` envelope (Claude Code 2.1.332 opens with
 * `server/discover`) is answered statelessly, one fresh server per request,
 * by the SDK v2's modern handler (see `modern-leg`); `initialize` (2025-era
 * clients: Codex 0.171.0, the SDK v1 client) opens a session as above; any
 * other sessionless 2025-era POST is answered by a one-shot stateless server.
 */
export class LoopbackMcpTransport implements AsyncDisposable {
  /** The endpoint, e.g. `http://127.0.0.1:53411/mcp`. */
  readonly url: string;
  /** The bound address. */
  readonly host: string;
  /** The bound port (never 0 once bound). */
  readonly port: number;
  /** The path this endpoint answers at on its listener. */
  readonly path: string;
  /** The generated bearer token (43 chars), or `null` with `auth: "none"`. */
  readonly token: string | null;
  /** `{ Authorization: "Bearer <token>" }`, or `{}` with `auth: "none"`. Frozen. */
  readonly authHeaders: Readonly<Record<string, string>>;

  private readonly options: Resolved;
  private readonly digest: Buffer | null;
  private readonly sessions: SessionTable<Session>;
  private readonly oneShots = new Set<Session>();
  private readonly modern: ModernLeg;
  private lease: ListenerLease | null;
  private route: RouteMount | null;
  private state: State = "bound";
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(options: Resolved, lease: ListenerLease, token: string | null) {
    this.options = options;
    this.host = options.host;
    this.port = lease.listener.port;
    this.path = lease.listener.freePath(options.path);
    this.token = token;
    this.digest = token === null ? null : tokenDigest(token);
    const headers: Record<string, string> = token === null ? {} : { Authorization: `Bearer ${token}` };
    this.authHeaders = Object.freeze(headers);
    this.url = `http://${this.host.includes(":") ? `[${this.host}]` : this.host}:${this.port}${this.path}`;
    this.sessions = new SessionTable<Session>(options.sessionIdleMs, options.maxSessions);
    this.modern = new ModernLeg(options.serverFactory);
    this.lease = lease;
    this.route = this.mount(lease);
  }

  /**
   * Lease the listener and hold the port now; resolve once the URL is final.
   * Not serving until `start()`. Bad options throw `OptionsError`
   * before anything binds; a busy fixed port rejects with Node's
   * `EADDRINUSE` error (its `code`, `errno`, `syscall`, `address`, `port`
   * intact) and the endpoint appended to its message. Never exits or
   * crashes the process.
   */
  static async bind(options: LoopbackOptions): Promise<LoopbackMcpTransport> {
    const resolved = LoopbackMcpTransport.resolveOptions(options);
    const token = resolved.auth === "token" ? generateToken() : null;
    const lease = await leaseListener({ host: resolved.host, port: resolved.port, endpoint: LoopbackMcpTransport.endpoint(resolved) });
    try {
      return new LoopbackMcpTransport(resolved, lease, token);
    } catch (err) {
      await lease.release();
      throw err;
    }
  }

  private static endpoint(o: { host: string; port: number; path: string }): string {
    return `http://${o.host.includes(":") ? `[${o.host}]` : o.host}:${o.port}${o.path}`;
  }

  private static resolveOptions(options: LoopbackOptions): Resolved {
    const fail = (option: string, message: string): OptionsError => new OptionsError("LoopbackMcpTransport.bind", option, message);
    if (!options || typeof options.serverFactory !== "function") {
      throw fail(
        "serverFactory",
        "LoopbackMcpTransport.bind: serverFactory must be a function returning a low-level SDK Server with its handlers registered",
      );
    }
    if ("token" in options) {
      throw fail(
        "token",
        'LoopbackMcpTransport.bind: the bearer token is generated by the listener and never supplied (a token a caller can set ends up a constant in somebody\'s config file); read it from .token / .authHeaders, or pass auth: "none"',
      );
    }
    let host = options.host ?? "127.0.0.1";
    if (host === "localhost") host = "127.0.0.1";
    if (host === "[::1]") host = "::1";
    if (!isLoopbackHost(host)) {
      throw fail(
        "host",
        `LoopbackMcpTransport.bind: refusing to bind '${host}': this listener binds loopback only (127.0.0.1, ` +
          `another 127.x address, or ::1). The token narrows who can call, not who can reach.`,
      );
    }
    const port = checkPort(options.port, "LoopbackMcpTransport.bind");
    const auth = options.auth ?? "token";
    if (auth !== "token" && auth !== "none")
      throw fail("auth", `LoopbackMcpTransport.bind: auth must be "token" (default) or "none", got ${JSON.stringify(auth)}`);
    const path = options.path ?? "/mcp";
    if (typeof path !== "string" || !path.startsWith("/") || /[?#\s]/.test(path)) {
      throw fail(
        "path",
        `LoopbackMcpTransport.bind: path must start with '/' and hold no query, fragment or space, got ${JSON.stringify(path)}`,
      );
    }
    const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
    if (!Number.isInteger(maxBodyBytes) || maxBodyBytes <= 0)
      throw fail("maxBodyBytes", `LoopbackMcpTransport.bind: maxBodyBytes must be a positive integer, got ${String(maxBodyBytes)}`);
    const limits = checkSessionOptions(options, "LoopbackMcpTransport.bind");
    return { serverFactory: options.serverFactory, host, port, auth, path, maxBodyBytes, stateless: options.stateless ?? false, ...limits };
  }

  private mount(lease: ListenerLease): RouteMount {
    return lease.listener.mount({
      path: this.path,
      auth: this.digest ? { kind: "bearer", digest: this.digest } : { kind: "none" },
      handler: (req, res) => this.handle(req, res),
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
   * Tell the 2026-07-28 clients listening on this endpoint (their open
   * `subscriptions/listen` streams that opted in) that a list changed or a
   * resource was updated. 2025-era sessions are told by their own server
   * (`sendToolListChanged()`, `sendResourceUpdated()`, ...), not here.
   */
  publish(event: ServerEvent): void {
    this.modern.publish(event);
  }

  /**
   * Serve. Idempotent. After `stop()`, takes the same port again first (the
   * process's listener on it, or a fresh bind); if something else took it
   * meanwhile, rejects with that `EADDRINUSE` error.
   */
  start(): Promise<void> {
    return this.serialise(async () => {
      if (this.state === "serving") return;
      if (this.state === "stopped" || !this.lease) {
        const lease = await leaseListener({ host: this.host, port: this.port, rejoin: this.options.port === 0, endpoint: this.url });
        try {
          this.route = this.mount(lease);
        } catch (err) {
          await lease.release();
          throw err;
        }
        this.lease = lease;
      }
      this.route!.setServing(true);
      this.state = "serving";
    });
  }

  /**
   * Stop serving: close every session and its SDK server, unmount the route
   * and release the listener (closing it, with every open connection, when
   * nothing else uses it). Idempotent; resolves when the port is free or
   * held only by other surfaces of this process.
   */
  stop(): Promise<void> {
    return this.serialise(async () => {
      if (this.state === "stopped") return;
      this.state = "stopped";
      const all = [...this.sessions.drain(), ...this.oneShots];
      this.oneShots.clear();
      this.route?.unmount();
      this.route = null;
      await Promise.allSettled([...all.map((s) => s.close()), this.modern.close()]);
      const lease = this.lease;
      this.lease = null;
      await lease?.release();
    });
  }

  /** Same as `stop()`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  private serialise(op: () => Promise<void>): Promise<void> {
    const next = this.queue.then(op, op);
    // Swallow kept: the tail only orders the next lifecycle step; the caller awaits `next`.
    this.queue = next.catch(() => {});
    return next;
  }

  private handle(req: IncomingMessage, res: ServerResponse): Promise<void> | void {
    if (this.state !== "serving") {
      return rpcError(
        res,
        503,
        -32000,
        "Service unavailable: the MCP listener is bound but not serving; its owner has not called start() yet (or has stopped it)",
        {
          "Retry-After": "1",
        },
      );
    }
    const method = req.method ?? "GET";
    if (method === "POST") return this.post(req, res);
    if (method === "GET" || method === "DELETE") return this.toSession(req, res, method);
    rpcError(res, 405, -32000, "Method not allowed.", { Allow: "GET, POST, DELETE" });
  }

  private async post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await this.readJson(req, res);
    if (body === NO_BODY) return;
    const dup = duplicateId(body);
    if (dup !== undefined) {
      return rpcError(
        res,
        400,
        -32600,
        `Invalid Request: the batch holds the request id ${JSON.stringify(dup)} more than once (duplicate id ` +
          `${JSON.stringify(dup)}); give each request of a batch its own id. Nothing in it was run.`,
      );
    }
    const sid = header(req, "mcp-session-id");
    if (sid !== undefined) {
      const session = this.sessions.get(sid);
      if (!session) return rpcError(res, 404, -32001, "Session not found");
      res.once("close", this.sessions.touch(sid, true));
      return session.transport.handleRequest(req, res, body);
    }
    // A session names its era (2025); a sessionless POST is classified once, here.
    if (isModernEra(requestEra(req.headers, body))) return this.modern.handle(req, res, body);
    if (this.options.stateless || !isInitialize(body)) return this.oneShot(req, res, body);
    return this.initialize(req, res, body);
  }

  private async initialize(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (!this.sessions.makeRoom()) {
      return rpcError(
        res,
        503,
        -32000,
        `Service unavailable: this MCP endpoint holds maxSessions (${this.options.maxSessions}) live sessions and ` +
          `none is idle; retry later, end a session (DELETE), or raise maxSessions`,
        { "Retry-After": "1" },
      );
    }
    // `session` is declared below; the callbacks only run during handleRequest, after it exists.
    const transport = new NodeHttpServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        if (this.state === "serving") this.sessions.add(id, session);
      },
      onsessionclosed: (id) => this.sessions.delete(id, session),
    });
    const server = this.options.serverFactory();
    const session: Session = { transport, server, close: () => closePair(transport, server) };
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.sessions.delete(transport.sessionId, session);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    // Initialisation refused (bad Accept header, ...), or stop() ran meanwhile: nothing owns this pair.
    if (transport.sessionId === undefined || this.sessions.get(transport.sessionId) !== session) await session.close();
  }

  private async oneShot(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const transport = new NodeHttpServerTransport({ sessionIdGenerator: undefined });
    const server = this.options.serverFactory();
    const pair: Session = { transport, server, close: () => closePair(transport, server) };
    this.oneShots.add(pair);
    res.on("close", () => {
      this.oneShots.delete(pair);
      void pair.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  private async toSession(req: IncomingMessage, res: ServerResponse, method: "GET" | "DELETE"): Promise<void> {
    req.resume();
    const sid = header(req, "mcp-session-id");
    if (sid === undefined) {
      if (method === "GET") {
        return rpcError(res, 405, -32000, "Method not allowed: open a session with initialize first (no standalone stream without one)", {
          Allow: "POST, DELETE",
        });
      }
      return rpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
    }
    const session = this.sessions.get(sid);
    if (!session) return rpcError(res, 404, -32001, "Session not found");
    res.once("close", this.sessions.touch(sid, false));
    await session.transport.handleRequest(req, res);
  }

  /** Read and parse the JSON body within the size limit; answers the request itself (413/400) and returns NO_BODY when it cannot. */
  private async readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    const limit = this.options.maxBodyBytes;
    const body = await readJsonBody(req, res, limit);
    if (body.ok) return body.value;
    if (body.reason === "too_large") rpcError(res, 413, -32000, `Payload too large: request bodies are limited to ${limit} bytes`);
    else if (body.reason === "not_json") rpcError(res, 400, -32700, "Parse error: Invalid JSON");
    return NO_BODY;
  }
}

const NO_BODY = Symbol("no body");

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function isInitialize(body: unknown): boolean {
  const { isInitializeRequest } = sdkServer();
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

/** The first request id a batch holds twice (`7` and `"7"` are different ids), or undefined. */
function duplicateId(body: unknown): unknown {
  if (!Array.isArray(body) || body.length < 2) return undefined;
  const seen = new Set<string>();
  for (const m of body as unknown[]) {
    if (!m || typeof m !== "object" || typeof (m as { method?: unknown }).method !== "string") continue;
    const id = (m as { id?: unknown }).id;
    if (id === undefined || id === null) continue;
    const key = `${typeof id}:${String(id)}`;
    if (seen.has(key)) return id;
    seen.add(key);
  }
  return undefined;
}

async function closePair(transport: NodeHttpServerTransport, server: SdkServer): Promise<void> {
  await Promise.allSettled([transport.close(), server.close()]);
}
