/**
 * @module listener/hosted-listener
 * The HTTP server of a module hosted beyond loopback (`agentkit host`): the
 * listener folder stays the only place that creates an HTTP server. Unlike
 * `LoopbackListener` it binds any address and has no route table or checks of
 * its own: the handler is an express app whose `mcpRouter` checks Host,
 * Origin and the bearer token.
 */
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";

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
export function listenHosted(handler: RequestListener, port: number, host: string): Promise<HostedListener> {
  const server: Server = createServer(handler);
  return new Promise((resolveFn, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolveFn({
        address: server.address() as AddressInfo,
        stopAccepting: () => new Promise<void>((r) => server.close(() => r())),
        cutConnections: () => server.closeAllConnections(),
      });
    });
  });
}
