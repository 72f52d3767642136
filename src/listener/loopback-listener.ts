/**
 * @module listener/loopback-listener
 * `LoopbackListener`: THE loopback HTTP listener of this package — the only
 * module that creates a loopback HTTP server. It is plain `node:http` with a
 * route table (no framework): every HTTP surface is a route (the registry's
 * and the approval server's MCP endpoints, the Claude hook endpoint, the
 * inbox page under a prefix). The pure Host/Origin checks run once per
 * request; then the route's own auth (its bearer token, or a check of its own
 * such as the inbox session). Socket hygiene keeps unauthenticated sockets
 * from holding it. Serving beyond loopback on your own express app is
 * `arc-agentkit/express`, not this.
 */
import type { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import { httpServer, listening, LISTENER_LIMITS } from "./servers.js";
import type { Socket } from "node:net";
import { getLogger } from "../util/logger.js";
import { OptionsError } from "../errors/options.error.js";
import { checkPort } from "../options/option-checks.js";
import { checkBearer, checkHost, checkOrigin, isLoopbackHost, type CheckResult } from "./loopback-checks.js";
import { refuseCheck, writeRefusal, type RouteSpec } from "./route.js";

/** The socket limits every listener applies (milliseconds and counts). */
const NOT_PLAIN_HTTP = "refused: this loopback listener serves plain HTTP requests only; WebSocket upgrades and CONNECT are not accepted";

function refuseRawSocket(socket: Socket): void {
  const body = `${NOT_PLAIN_HTTP}\n`;
  socket.on("error", () => {});
  socket.end(
    `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  socket.destroySoon?.();
}

function pathOf(url: string | undefined): string {
  const u = url ?? "/";
  const q = u.indexOf("?");
  return q < 0 ? u : u.slice(0, q);
}

interface Mounted {
  readonly spec: RouteSpec;
  serving: boolean;
}

/** A route on a listener: `setServing()` holds the process open while true; `unmount()` removes it. */
export interface RouteMount {
  /** The path the route answers at. */
  readonly path: string;
  /** While any route of a listener serves, the listener keeps the process alive. */
  setServing(serving: boolean): void;
  /** Remove the route (idempotent); its path then answers 404. */
  unmount(): void;
}

/**
 * One loopback HTTP listener (`http.createServer` and a route table: exact paths, then prefixes).
 * Use `leaseListener()` (shared per host) rather than `bind()` directly.
 *
 * Per request, in order: a smuggled upgrade or CONNECT -> 403; the `Host`
 * header must name this listener on loopback and a present `Origin` must be
 * its own (403); an unknown path -> 404; the route's auth (401 with
 * `WWW-Authenticate: Bearer` for a token route); then the route's handler.
 * A refused request's socket is closed right after the answer.
 *
 * Socket hygiene (`LISTENER_LIMITS`): headers within 5 s, the whole request
 * within 10 s, idle keep-alive closed after 5 s, at most 64 sockets that have
 * not authenticated (the oldest is closed first), so idle unauthenticated
 * sockets cannot exhaust the process's file descriptors.
 */
export class LoopbackListener {
  /** The bound address. */
  readonly host: string;
  /** The bound port (never 0). */
  readonly port: number;
  private readonly http: HttpServer;
  private readonly exact = new Map<string, Mounted>();
  private readonly prefixed: Mounted[] = [];
  /** Sockets without an authenticated request yet, oldest first (a Set keeps insertion order). */
  private readonly unauthenticated = new Set<Socket>();
  private closed: Promise<void> | null = null;

  private constructor(host: string, port: number, http: HttpServer) {
    this.host = host;
    this.port = port;
    this.http = http;
  }

  /**
   * Bind `host:port` (0 = ephemeral) and resolve once bound. Not holding the
   * process open until a route serves. A busy port rejects with Node's real
   * `EADDRINUSE` error (code, errno, syscall, address, port intact), `endpoint`
   * appended to its message.
   */
  static async bind(host: string, port: number, endpoint = `http://${host}:${port}`): Promise<LoopbackListener> {
    if (!isLoopbackHost(host))
      throw new OptionsError(
        "LoopbackListener",
        "host",
        `LoopbackListener: refusing to bind '${host}': loopback only (127.0.0.1, another 127.x address, or ::1)`,
      );
    checkPort(port, "LoopbackListener");
    const holder: { listener?: LoopbackListener } = {};
    const onRequest = (req: IncomingMessage, res: ServerResponse): void => holder.listener!.dispatch(req, res);
    const http = httpServer(onRequest);
    await listening(http, { host, port }, `the loopback listener at ${endpoint}`);
    const listener = new LoopbackListener(host, (http.address() as { port: number }).port, http);
    holder.listener = listener;
    listener.hygiene();
    http.unref();
    return listener;
  }

  private hygiene(): void {
    const http = this.http;
    http.on("upgrade", (_req, socket: Socket) => refuseRawSocket(socket));
    http.on("connect", (_req, socket: Socket) => refuseRawSocket(socket));
    http.on("clientError", (_err, socket: Socket) => {
      if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
      socket.destroy();
    });
    http.on("connection", (socket: Socket) => {
      this.unauthenticated.add(socket);
      socket.once("close", () => this.unauthenticated.delete(socket));
      if (this.unauthenticated.size > LISTENER_LIMITS.maxUnauthenticatedSockets) {
        const oldest = this.unauthenticated.values().next().value as Socket;
        this.unauthenticated.delete(oldest);
        oldest.destroy();
      }
    });
  }

  /** The paths of the mounted routes. */
  get paths(): string[] {
    return [...this.exact.keys(), ...this.prefixed.map((m) => m.spec.path)];
  }

  /** True when `path` is free on this listener. */
  isFree(path: string): boolean {
    return !this.exact.has(path) && !this.prefixed.some((m) => m.spec.path === path);
  }

  /** `requested` when free, else `requested-2`, `requested-3`, ...: each route of a shared listener answers at its own path. */
  freePath(requested: string): string {
    if (this.isFree(requested)) return requested;
    for (let n = 2; ; n++) if (this.isFree(`${requested}-${n}`)) return `${requested}-${n}`;
  }

  /**
   * Mount a route. Throws `OptionsError` for a bad or taken path. A closed
   * listener throws a plain `Error`: every caller mounts while it holds a lease
   * (`leaseListener`), and a held listener is never closed, so this is a bug
   * in this package, not an error a user can receive (no public code for it).
   */
  mount(spec: RouteSpec): RouteMount {
    if (this.closed)
      throw new Error(
        `LoopbackListener ${this.host}:${this.port} is closed: a route was mounted without a lease on it (a bug in ` +
          `arc-agentkit; lease a new one)`,
      );
    if (typeof spec.path !== "string" || !spec.path.startsWith("/") || /[?#\s]/.test(spec.path)) {
      throw new OptionsError(
        "LoopbackListener.mount",
        "path",
        `LoopbackListener: a route path must start with '/' and hold no query, fragment or space, got ${JSON.stringify(spec.path)}`,
      );
    }
    if (!this.isFree(spec.path))
      throw new OptionsError(
        "LoopbackListener.mount",
        "path",
        `LoopbackListener: ${spec.path} is already served on ${this.host}:${this.port}`,
      );
    const m: Mounted = { spec, serving: false };
    if (spec.prefix) this.prefixed.push(m);
    else this.exact.set(spec.path, m);
    return {
      path: spec.path,
      setServing: (serving) => {
        m.serving = serving;
        this.holdOpen();
      },
      unmount: () => {
        if (this.exact.get(spec.path) === m) this.exact.delete(spec.path);
        const i = this.prefixed.indexOf(m);
        if (i >= 0) this.prefixed.splice(i, 1);
        m.serving = false;
        this.holdOpen();
      },
    };
  }

  private holdOpen(): void {
    if (this.closed) return;
    if ([...this.exact.values(), ...this.prefixed].some((m) => m.serving)) this.http.ref();
    else this.http.unref();
  }

  private match(path: string): Mounted | undefined {
    const hit = this.exact.get(path);
    if (hit || this.prefixed.length === 0) return hit;
    return this.prefixed.find((m) => path === m.spec.path || path.startsWith(`${m.spec.path}/`));
  }

  /** The checks (once for every route), then the route. */
  private dispatch(req: IncomingMessage, res: ServerResponse): void {
    // Node routes upgrades and CONNECT to their own events; this catches an upgrade smuggled through anyway.
    if (req.method === "CONNECT" || req.headers.upgrade !== undefined) {
      res.writeHead(403, { "Content-Type": "text/plain", Connection: "close" });
      res.end(`${NOT_PLAIN_HTTP}\n`);
      return;
    }
    const path = pathOf(req.url);
    const route = this.match(path);
    const format = route?.spec.refusal ?? "jsonrpc";
    const host = checkHost(req.headers.host, this.port, this.host);
    if (!host.ok) return this.refuse(req, res, format, host);
    const origin = checkOrigin(req.headers.origin, this.port);
    if (!origin.ok) return this.refuse(req, res, format, origin);
    if (!route) return writeRefusal(res, "jsonrpc", 404, `Not found: nothing is served at ${path.slice(0, 200)} on this listener`);
    const auth = LoopbackListener.authorise(route.spec, req);
    if (!auth.ok) return this.refuse(req, res, format, auth);
    this.unauthenticated.delete(req.socket);
    if (route.spec.prefix) req.url = req.url!.slice(route.spec.path.length) || "/";
    this.run(route.spec, req, res);
  }

  private static authorise(spec: RouteSpec, req: IncomingMessage): CheckResult {
    const auth = spec.auth;
    if (auth.kind === "bearer") return checkBearer(req.headers.authorization, auth.digest);
    if (auth.kind === "check") return auth.check(req);
    return { ok: true };
  }

  private run(spec: RouteSpec, req: IncomingMessage, res: ServerResponse): void {
    const fail = (err: unknown): void => {
      getLogger().error(`loopback listener ${this.host}:${this.port}${spec.path}: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) writeRefusal(res, spec.refusal ?? "jsonrpc", 500, "Internal server error", {}, -32603);
      else res.end();
    };
    try {
      const out = spec.handler(req, res);
      if (out && typeof (out as Promise<void>).catch === "function") (out as Promise<void>).catch(fail);
    } catch (err) {
      fail(err);
    }
  }

  /** Answer a refusal and close the socket right after: a caller that failed a check gets no keep-alive slot. */
  private refuse(req: IncomingMessage, res: ServerResponse, format: "jsonrpc" | "json", check: Exclude<CheckResult, { ok: true }>): void {
    const socket = req.socket;
    res.setHeader("Connection", "close");
    refuseCheck(res, format, check);
    req.resume();
    res.once("finish", () => socket.destroySoon());
    setTimeout(() => socket.destroy(), LISTENER_LIMITS.refusedSocketMs).unref();
  }

  /**
   * Close the listening socket and every open connection (keep-alive and SSE
   * streams too); resolves when the port is free. Idempotent.
   */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.exact.clear();
      this.prefixed.length = 0;
      await new Promise<void>((resolve) => {
        this.http.close(() => resolve());
        this.http.closeAllConnections();
      });
      // Two I/O turns, so an in-process client's pool (undici) reads the FIN
      // of its keep-alive sockets before it could reuse one against a
      // restart on this port (measured: one turn is not enough).
      for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    })();
    return this.closed;
  }
}
