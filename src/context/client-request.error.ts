/**
 * @module context/client-request.error
 * Raised when a tool asks the calling MCP client for something it cannot give.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/**
 * `ctx.elicit()` / `ctx.sample()` could not ask the client: the run is not a
 * served MCP call (an in-process ReAct run has no client to ask), or the
 * client did not declare the capability in its `initialize`. Thrown inside the
 * tool, so a served call ends as an `isError` result carrying the message.
 */
export class ClientRequestError extends AgentkitError {
  constructor(
    /** `"elicitation"` or `"sampling"`. */
    readonly kind: "elicitation" | "sampling",
    message: string,
    options?: { cause?: unknown },
  ) {
    super("client_request", message, options);
  }
}
