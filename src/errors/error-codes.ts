/**
 * @module errors/error-codes
 * The closed set of `AgentkitError.code` values: one list, so the type and a
 * runtime check (test/core/errors/error-codes.test.ts) read the same thing.
 */

/** Every `code` an `AgentkitError` may carry, grouped by who throws it. */
export const AGENTKIT_ERROR_CODES = [
  // core
  "invalid_option",
  "missing_peer",
  "definition",
  "duplicate_tool",
  "tool_argument",
  "cancelled",
  "not_implemented",
  "client_request",
  "audit_sink",
  "run_resume",
  // wire
  "mcp_config_file",
  "codex_mcp",
  "mcp_name",
  "toml_encode",
  // mcp
  "mcp_request",
  "mcp_session_lost",
  "mcp_connect",
  "mcp_not_entered",
  "oauth_login_required",
  "oauth_callback",
  "oauth_response_too_large",
  "approval_server_not_started",
  "hook_server",
  "bootstrap",
  // express
  "invalid_token",
  // models
  "model_request",
  "model_response",
  "model_auth",
  "model_rate_limit",
  "model_context_too_long",
  "model_refused",
  // cli cognitions
  "cli_agents",
  "cli_spawn",
  "cli_failed",
  "cli_timeout",
  "cli_mcp_not_connected",
  "cli_no_result",
  // askers
  "no_terminal",
  "inbox_store",
  "inbox_stopped",
  "inbox_state",
  "inbox_full",
  // the agentkit program
  "cli",
  "cli_usage",
] as const;

/** A stable, machine-readable `AgentkitError.code`; switch on it. */
export type AgentkitErrorCode = (typeof AGENTKIT_ERROR_CODES)[number];
