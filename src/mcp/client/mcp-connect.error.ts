/**
 * @module mcp/client/mcp-connect.error
 * Raised when `MCPClient.start()` cannot bring up transport and session.
 */
import { AgentkitError } from "../../errors/agentkit.error.js";

/**
 * `MCPClient.start()` failed; everything it had opened (a child process and its
 * group, an HTTP transport) was closed before this was thrown. For a stdio
 * server the message ends with the tail of the server's stderr, also on
 * `stderrTail`; the underlying error is `cause`.
 */
export class McpConnectError extends AgentkitError {
  constructor(
    /** The server, as `String(server)` renders it (never its env or headers). */
    readonly server: string,
    /** The last ~4 KiB of the server's stderr ("" for HTTP, or with `stderr: "inherit"`). */
    readonly stderrTail: string,
    cause: unknown,
    /** What else is known: how a stdio server ended (`the server process exited with code 1`), or an HTTP status (`HTTP 401`). */
    readonly detail?: string,
    /** True when a stdio server's process had ended by the time the attempt failed. */
    readonly exited = false,
  ) {
    super("mcp_connect", McpConnectError.format(server, stderrTail, cause, detail), { cause });
  }

  private static format(server: string, tail: string, cause: unknown, detail: string | undefined): string {
    const why = cause instanceof Error ? cause.message : String(cause);
    const base =
      `MCPClient could not open ${server}: ${why}${detail ? ` (${detail})` : ""}. Check the command/URL and ` + `credentials, then retry.`;
    return tail ? `${base}\nThe server's stderr ended with:\n${tail}` : base;
  }
}
