/**
 * @module errors/agentkit.error
 * The one base class of every error this package throws.
 */
import type { AgentkitErrorCode } from "./error-codes.js";

export type { AgentkitErrorCode } from "./error-codes.js";

/**
 * Base class of every error thrown by arc-agentkit. `code` is one of the
 * closed set `AgentkitErrorCode`, stable for a caller to switch on; `message`
 * names the thing, where it is, and what to do.
 *
 * A failure with no fields of its own is thrown as `AgentkitError` itself,
 * told apart by `code` (its message names the path, member or name involved):
 * - `audit_sink`: the JSONL approval audit file could not be opened or appended to.
 * - `mcp_config_file`: the CLI's MCP config file could not be (re)written safely.
 * - `codex_mcp`: a spec cannot be expressed as Codex config (a bad name, no URL or command).
 * - `mcp_name`: a name refused for serving (an invalid server name, two tool names
 *   that collide once sanitised, a qualified name over 64 characters, a resource URI
 *   or prompt name served twice).
 * - `toml_encode`: a value or key TOML (a Codex `-c` override) cannot carry.
 * - `mcp_not_entered`: an `MCPClient` used before `start()` finished or after `stop()`.
 * - `oauth_callback`: an OAuth authorization came back refused, from another
 *   authorization server, with a wrong `state`, or not in time.
 * - `oauth_response_too_large`: an authorization-server response over the 1 MiB cap.
 * - `approval_server_not_started`: an `ApprovalServer` member that needs it serving,
 *   read before `start()` or after `stop()`.
 * - `hook_server`: a `HookServer` used before `start()`, or its hook program not built.
 * - `cli_agents`: an agent that cannot be presented as a CLI subagent.
 * - `no_terminal`: a `TerminalAsker` built where the input is not a TTY.
 */
export class AgentkitError extends Error {
  /** Stable machine-readable code, e.g. `"tool_argument"` or `"invalid_option"`. */
  readonly code: AgentkitErrorCode;

  constructor(code: AgentkitErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}
