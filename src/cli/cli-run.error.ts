/**
 * @module cli/cli-run.error
 * Errors of a CLI run: what `ClaudeCliCognition` / `CodexCliCognition` put on
 * `AgentResult.error` when a run ends in `"error"`.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/** Which way a CLI run failed. */
export type CliRunErrorCode =
  /** The binary could not be started (not installed, not executable). */
  | "cli_spawn"
  /** The CLI exited non-zero, or reported an error result (an API error, a bad flag). */
  | "cli_failed"
  /** `timeoutMs` passed; the process tree was killed. */
  | "cli_timeout"
  /** An MCP server the CLI was given did not connect; the run was stopped. */
  | "cli_mcp_not_connected"
  /** The CLI ended without the final event that carries its result. */
  | "cli_no_result";

/**
 * A CLI run that failed. `message` carries the CLI's own words where it gave
 * any (the error result's text, or the tail of stderr). For
 * `cli_mcp_not_connected` (an MCP server the CLI reported as anything but
 * `connected`: a wrong token, a dead server; the CLI itself would carry on
 * without the server's tools and exit 0, this is the loud version), `server`
 * and `status` name the server and what the CLI said of it.
 */
export class CliRunError extends AgentkitError {
  declare readonly code: CliRunErrorCode;
  /** `"claude"` or `"codex"`. */
  readonly cli: string;
  /** The exit code, when the process exited by itself. */
  readonly exitCode: number | null;
  /** The tail of the CLI's stderr. */
  readonly stderr: string;
  /** For `cli_mcp_not_connected`: the server's name in the MCP config. */
  readonly server: string | undefined;
  /** For `cli_mcp_not_connected`: the status the CLI reported (`failed`, `pending`, `needs-auth`, ...). */
  readonly status: string | undefined;

  constructor(
    code: CliRunErrorCode,
    cli: string,
    message: string,
    details: { exitCode?: number | null; stderr?: string; cause?: unknown; server?: string; status?: string } = {},
  ) {
    super(code, message, details.cause !== undefined ? { cause: details.cause } : undefined);
    this.cli = cli;
    this.exitCode = details.exitCode ?? null;
    this.stderr = details.stderr ?? "";
    this.server = details.server;
    this.status = details.status;
  }
}

/** The `CliRunError` (code `cli_mcp_not_connected`) of an MCP server the CLI reported as `status`, not `connected`. */
export function mcpNotConnected(cli: string, server: string, status: string, stderr = ""): CliRunError {
  return new CliRunError(
    "cli_mcp_not_connected",
    cli,
    `${cli}: MCP server '${server}' is not connected (status "${status}"); the run was stopped rather than left ` +
      `to run without its tools. ` +
      `Check that the server is listening at the configured URL and that its token matches.`,
    { stderr, server, status },
  );
}

/** The last non-empty lines of `text` (for quoting a CLI's stderr in a message). */
export function tail(text: string, lines = 5): string {
  return text
    .split(/\r?\n/)
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "")
    .slice(-lines)
    .join("\n");
}
