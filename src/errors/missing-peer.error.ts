/**
 * @module errors/missing-peer.error
 * An optional peer dependency that a feature needs is not installed.
 */
import { AgentkitError } from "./agentkit.error.js";

/**
 * Thrown when a feature's optional peer (the MCP SDK, express, a model SDK,
 * pg, ...) cannot be loaded. The message holds the exact install line.
 */
export class MissingPeerError extends AgentkitError {
  constructor(
    /** The package (or subpath) that could not be loaded. */
    readonly peer: string,
    /** The command that installs what is missing, e.g. `npm install @modelcontextprotocol/client`. */
    readonly installLine: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super("missing_peer", message, options);
  }
}
