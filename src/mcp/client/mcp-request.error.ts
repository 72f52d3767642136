/**
 * @module mcp/client/mcp-request.error
 * Raised when a request an `MCPClient` sent failed (a JSON-RPC error, a timeout, a lost connection, a lost session).
 */
import { AgentkitError } from "../../errors/agentkit.error.js";

/**
 * A request to an open MCP server failed. The message names the request, the
 * server and what came back; `rpcCode` is the JSON-RPC error code when the
 * server (or the SDK) gave one; the SDK's error is `cause`. A tool that ran and
 * failed is not this: that is a normal result with `isError: true`.
 *
 * `code` says which: `mcp_request`, or `mcp_session_lost` when a streamable
 * HTTP server answered 404 for the session (it lost it: a restart, an expiry).
 * List calls are re-initialized and retried once; a `tools/call` is not
 * retried (it may have run and had side effects) and fails with
 * `mcp_session_lost`, `renewed` saying whether the client has a new session
 * (so a call that is safe to repeat can be made again).
 */
export class McpRequestError extends AgentkitError {
  declare readonly code: "mcp_request" | "mcp_session_lost";
  /**
   * For `mcp_session_lost`: true when the client re-initialized and is usable
   * again, false when that failed too. Undefined for `mcp_request`.
   */
  readonly renewed: boolean | undefined;

  constructor(
    /** What was asked, e.g. `tools/call 'add'` or `tools/list`. */
    readonly request: string,
    /** The server, as `String(server)` renders it. */
    readonly server: string,
    /** The JSON-RPC error code, when there is one. */
    readonly rpcCode: number | undefined,
    cause: unknown,
    hint = "",
    /** Set for a lost session (code `mcp_session_lost`): whether the client has a new one. */
    lost?: { readonly renewed: boolean },
  ) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(lost ? "mcp_session_lost" : "mcp_request", `MCP ${request} on ${server} failed: ${why}${hint ? `. ${hint}` : ""}`, { cause });
    this.renewed = lost?.renewed;
  }
}

/** The `McpRequestError` (code `mcp_session_lost`) of a request whose session the server lost; `renewed`: the client has a new one. */
export function sessionLostError(request: string, server: string, cause: unknown, renewed: boolean, hint: string): McpRequestError {
  return new McpRequestError(request, server, undefined, cause, hint, { renewed });
}
