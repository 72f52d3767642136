/**
 * @module listener/hosted-listener
 * The HTTP server of a module hosted beyond loopback (`agentkit host`), made
 * by `listener/servers` with the same socket deadlines as the loopback
 * listener. Unlike `LoopbackListener` it binds any address and has no route
 * table or checks of its own: the handler is an express app whose
 * `mcpRouter` checks Host, Origin and the bearer token (the loopback rules —
 * 127.0.0.1 only, a generated token — are what hosting must not have).
 */
import type { RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { httpServer, listening } from "./servers.js";

/** A bound hosted server. */
export interface HostedListener {
  /** The bound address (the port is never 0). */
  readonly address: AddressInfo;
  /** Stop accepting connections; resolves once every open one has closed (see `cutConnections`). */
  stopAccepting(): Promise<void>;
  /** Close every connection still open (after a drain). */
  cutConnections(): void;
}

/**
 * Serve `handler` on `host:port` (0 = ephemeral); resolves once bound.
 * Rejects with Node's own error (`EADDRINUSE`, `EADDRNOTAVAIL`, ... with its
 * `code`) when the address cannot be bound.
 */
export async function listenHosted(handler: RequestListener, port: number, host: string): Promise<HostedListener> {
  const server = httpServer(handler);
  await listening(server, { host, port }, `the hosted module at ${host}:${port}`);
  return {
    address: server.address() as AddressInfo,
    stopAccepting: () => new Promise<void>((r) => server.close(() => r())),
    cutConnections: () => server.closeAllConnections(),
  };
}
