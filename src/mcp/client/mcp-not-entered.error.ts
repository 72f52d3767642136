/**
 * @module mcp/client/mcp-not-entered.error
 * Raised when an `MCPClient` is used before it was opened or after it was closed.
 */
import { AgentkitError } from "../../errors/agentkit.error.js";

/** The message of `McpNotEnteredError`: what went wrong and the call that opens a client. */
export const NOT_ENTERED_MESSAGE = "MCPClient not entered — use await using c = await MCPClient.open(...)";

/**
 * `MCPClient.session` (and every call that needs it) was reached before
 * `MCPClient.open()` finished or after `close()`. The message is exactly
 * `NOT_ENTERED_MESSAGE`.
 */
export class McpNotEnteredError extends AgentkitError {
  constructor() {
    super("mcp_not_entered", NOT_ENTERED_MESSAGE);
  }
}
