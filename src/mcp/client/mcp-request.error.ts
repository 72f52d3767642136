/**
 * @module mcp/client/mcp-request.error
 * Raised when a request an `MCPClient` sent failed (a JSON-RPC error, a timeout, a lost connection).
 */
import { AgentkitError } from "../../errors/agentkit.error.js";

/**
 * A request to an open MCP server failed. The message names the request, the
 * server and what came back; `rpcCode` is the JSON-RPC error code when the
 * server (or the SDK) gave one; the SDK's error is `cause`. A tool that ran and
 * failed is not this: that is a normal result with `isError: true`.
 */
export class McpRequestError extends AgentkitError {
  constructor(
    /** What was asked, e.g. `tools/call 'add'` or `tools/list`. */
    readonly request: string,
    /** The server, as `String(server)` renders it. */
    readonly server: string,
    /** The JSON-RPC error code, when there is one. */
    readonly rpcCode: number | undefined,
    cause: unknown,
    hint = "",
  ) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super("mcp_request", `MCP ${request} on ${server} failed: ${why}${hint ? `. ${hint}` : ""}`, { cause });
  }
}

/**
 * A streamable HTTP server answered 404 for the session: it lost it (a
 * restart, an expiry). List calls are re-initialized and retried once; a
 * `tools/call` is not retried (it may have run and had side effects) and
 * fails with this. `renewed` says whether the client has a new session (so a
 * call that is safe to repeat can be made again).
 */
export class McpSessionLostError extends McpRequestError {
  constructor(
    request: string,
    server: string,
    cause: unknown,
    /** True when the client re-initialized and is usable again. */
    readonly renewed: boolean,
    hint: string,
  ) {
    super(request, server, undefined, cause, hint);
  }
}
