/**
 * @module listener/servers
 * The one place a server is made and bound: the loopback listener's and a
 * hosted module's HTTP server (both with the same socket deadlines), and the
 * inbox relay's unix-domain socket. Binding resolves once listening, rejects
 * with Node's own error (`EADDRINUSE`, `EADDRNOTAVAIL`, `ENOENT`, ... with its
 * `code` intact, `where` appended to its message), and after that a late
 * server error is logged, never thrown into the host process.
 */
import { createServer as createHttpServer, type RequestListener, type Server as HttpServer } from "node:http";
import { createServer as createSocketServer, type ListenOptions, type Server } from "node:net";
import { getLogger } from "../util/logger.js";

/** The socket deadlines every HTTP server of the package keeps. */
export const LISTENER_LIMITS = Object.freeze({
  /** The request line and headers must arrive within this time of the connection (or of the previous request): else 408 and close. */
  headersTimeoutMs: 5_000,
  /** An idle keep-alive socket is closed after this. */
  keepAliveTimeoutMs: 5_000,
  /** The whole request, body included, must arrive within this time: else 408 and close. */
  bodyDeadlineMs: 10_000,
  /** How often Node checks the two deadlines above. */
  checkIntervalMs: 500,
  /** Sockets that have not yet sent one request passing its route's auth; past this the oldest is closed (loopback listener). */
  maxUnauthenticatedSockets: 64,
  /** A socket whose request was refused (403/401) is closed this long after the answer at the latest (loopback listener). */
  refusedSocketMs: 1_000,
});

/** An HTTP server for `onRequest` with the package's socket deadlines (headers, whole request, keep-alive). Not yet bound. */
export function httpServer(onRequest: RequestListener): HttpServer {
  const http = createHttpServer(
    {
      connectionsCheckingInterval: LISTENER_LIMITS.checkIntervalMs,
      headersTimeout: LISTENER_LIMITS.headersTimeoutMs,
      requestTimeout: LISTENER_LIMITS.bodyDeadlineMs,
    },
    onRequest,
  );
  http.keepAliveTimeout = LISTENER_LIMITS.keepAliveTimeoutMs;
  return http;
}

/** Bind `server` to `target` (host and port, or a socket path); see the module comment for errors. */
export function listening(server: Server, target: ListenOptions | string, where: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      server.off("listening", onListening);
      err.message = `${err.message} (binding ${where})`;
      reject(err);
    };
    const onListening = (): void => {
      server.off("error", onError);
      server.on("error", (err) => getLogger().error(`${where}: ${err.message}`));
      resolve();
    };
    server.once("error", onError);
    server.once("listening", onListening);
    if (typeof target === "string") server.listen(target);
    else server.listen(target);
  });
}

/**
 * A `net.Server` listening on the unix-domain socket at `path`, taking at
 * most `maxConnections` at once (the inbox's wake-up relay). Rejects with the
 * bind error; nothing is left listening then.
 */
export async function listenUnixSocket(path: string, maxConnections: number): Promise<Server> {
  const server = createSocketServer();
  server.maxConnections = maxConnections;
  await listening(server, path, `the unix socket ${path}`);
  return server;
}
