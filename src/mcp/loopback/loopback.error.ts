/**
 * @module mcp/loopback/loopback.error
 * Errors of the loopback MCP listener (bad options, a refused bind address).
 */
import { AgentkitError } from "../../errors/agentkit.error.js";

/**
 * A loopback listener was configured wrongly: a non-loopback host, a port out
 * of range, a missing server factory. Thrown by `LoopbackMcpTransport.bind()`
 * before anything binds. (A busy port is not this error: it is the real
 * `EADDRINUSE` error from Node, with the endpoint appended.)
 */
export class LoopbackOptionsError extends AgentkitError {
  constructor(
    /** The offending option key (`host`, `port`, ...). */
    readonly option: string,
    message: string,
  ) {
    super("loopback_options", message);
  }
}
