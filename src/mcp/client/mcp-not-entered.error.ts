/**
 * @module mcp/client/mcp-not-entered.error
 * The error of an `MCPClient` used before it was opened or after it was closed.
 */
import { AgentkitError } from "../../errors/agentkit.error.js";

/** The message of the `mcp_not_entered` error: what went wrong and the call that opens a client. */
export const NOT_ENTERED_MESSAGE = "MCPClient not entered — use await using c = await MCPClient.start(...)";

/**
 * The `AgentkitError` (code `mcp_not_entered`) for `MCPClient.session` (and
 * every call that needs it) reached before `MCPClient.start()` finished or
 * after `stop()`. The message is exactly `NOT_ENTERED_MESSAGE`.
 */
export function notEntered(): AgentkitError {
  return new AgentkitError("mcp_not_entered", NOT_ENTERED_MESSAGE);
}
