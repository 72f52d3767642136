/**
 * @module express/hosted-server
 * `hostedServer(app, { port, host })`: the user's express app on a Node HTTP
 * server made by `listener/servers` — the one place the package makes one —
 * so it keeps the socket deadlines `agentkit host` keeps. Node's own defaults
 * let a client trickle its headers for a minute and its body for five, and
 * keep an idle socket open as long as it likes; off loopback those are a
 * cheap way to hold every socket the process has.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { OptionsError } from "../errors/options.error.js";
import { describeValue } from "../util/format.js";
import { checkOptions, opt, type OptionSpec } from "../options/option-checks.js";
import { httpServer, listening } from "../listener/servers.js";

/** Options of `hostedServer()`. */
export interface HostedServerOptions {
  /** The port to listen on (0: a free one; read it from `server.address()`). */
  readonly port: number;
  /**
   * The address to bind. Default `127.0.0.1` (a proxy on the same machine in front); `0.0.0.0` or `::` to take
   * connections from elsewhere.
   */
  readonly host?: string;
}

const WHERE = "hostedServer";

const SPEC = {
  port: opt.port(),
  host: opt.optional(opt.nonEmptyString("an address to bind, e.g. 127.0.0.1 or 0.0.0.0")),
} satisfies OptionSpec;

/**
 * Serve `app` (an express app, or any `(req, res)` handler) on a new Node
 * HTTP server bound to `host:port`, with the deadlines of `agentkit host`:
 * the request line and headers within 5 s of the connection (or of the
 * previous request), the whole request within 10 s — else 408 and the
 * socket closed — and an idle keep-alive socket closed after 5 s. Resolves
 * once listening, with Node's `Server` (close it with `server.close()`).
 *
 * @throws OptionsError at once for a bad port or host.
 * @returns a promise rejected with Node's own error (`EADDRINUSE`, `EADDRNOTAVAIL`, ... with its `code`) when the address cannot be bound.
 * @example
 * const server = await hostedServer(app, { port: 8081 });
 * process.once("SIGTERM", () => server.close(() => void router.stop()));
 */
export async function hostedServer(
  app: (req: IncomingMessage, res: ServerResponse) => void,
  options: HostedServerOptions,
): Promise<Server> {
  if (typeof app !== "function")
    throw new OptionsError(
      WHERE,
      "app",
      `${WHERE}: the first argument must be your express app (or a (req, res) handler), got ${describeValue(app)}`,
    );
  if (options === null || typeof options !== "object")
    throw new OptionsError(WHERE, "options", `${WHERE}: pass { port, host? }, e.g. { port: 8081 }; got ${describeValue(options)}`);
  const { port, host = "127.0.0.1" } = checkOptions(options, WHERE, SPEC);
  const server = httpServer(app);
  await listening(server, { host, port }, `${WHERE} at ${host}:${port}`);
  return server;
}
