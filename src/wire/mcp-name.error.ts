/**
 * @module wire/mcp-name.error
 * Raised when a served server or tool name cannot be used on the wire.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/**
 * A name refused for serving: an invalid server name (refused, never
 * rewritten), two tool names that collide after sanitising, or a qualified
 * name `mcp__<server>__<tool>` longer than the 64 characters model APIs keep.
 */
export class McpNameError extends AgentkitError {
  constructor(
    /** The offending name (the server name, or the original tool name). */
    readonly offending: string,
    /** `"server"`, `"collision"` or `"too_long"`. */
    readonly reason: "server" | "collision" | "too_long",
    message: string,
  ) {
    super("mcp_name", message);
  }
}
