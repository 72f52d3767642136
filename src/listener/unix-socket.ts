/**
 * @module listener/unix-socket
 * The one place a unix-domain socket server is made (the inbox's wake-up
 * relay), so `listener/` stays the only folder that creates servers.
 */
import { createServer, type Server } from "node:net";

/**
 * A `net.Server` listening on the unix-domain socket at `path`, taking at
 * most `maxConnections` at once. Rejects with the bind error (`EADDRINUSE`,
 * `ENOENT` for a missing directory, ...); nothing is left listening then.
 */
export async function listenUnixSocket(path: string, maxConnections: number): Promise<Server> {
  const server = createServer();
  server.maxConnections = maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => (server.off("error", reject), resolve()));
  });
  return server;
}
