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
 * any (the error result's text, or the tail of stderr).
 */
export class CliRunError extends AgentkitError {
  declare readonly code: CliRunErrorCode;
  /** `"claude"` or `"codex"`. */
  readonly cli: string;
  /** The exit code, when the process exited by itself. */
  readonly exitCode: number | null;
  /** The tail of the CLI's stderr. */
  readonly stderr: string;

  constructor(
    code: CliRunErrorCode,
    cli: string,
    message: string,
    details: { exitCode?: number | null; stderr?: string; cause?: unknown } = {},
  ) {
    super(code, message, details.cause !== undefined ? { cause: details.cause } : undefined);
    this.cli = cli;
    this.exitCode = details.exitCode ?? null;
    this.stderr = details.stderr ?? "";
  }
}

/**
 * An MCP server that the CLI reported as anything but `connected` (a wrong
 * token, a dead server). The CLI itself carries on without the server's tools
 * and exits 0; this is the loud version.
 */
export class McpServerNotConnectedError extends CliRunError {
  /** The server's name in the MCP config. */
  readonly server: string;
  /** The status the CLI reported (`failed`, `pending`, `needs-auth`, ...). */
  readonly status: string;

  constructor(cli: string, server: string, status: string, stderr = "") {
    super(
      "cli_mcp_not_connected",
      cli,
      `${cli}: MCP server '${server}' is not connected (status "${status}"); the run was stopped rather than left ` +
        `to run without its tools. ` +
        `Check that the server is listening at the configured URL and that its token matches.`,
      { stderr },
    );
    this.server = server;
    this.status = status;
  }
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
