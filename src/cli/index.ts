/**
 * @module arc-agentkit/cli
 * Public surface of the CLI cognitions: every export listed by name (types with
 * `export type`); a test snapshots the sorted names. Needs only the core: no
 * MCP SDK import, so it works without the optional peers.
 *
 * `hookSettings` and `asCliAgents` are Claude-only, and deliberately so: `codex
 * exec` runs no hooks (no seam through which a built-in tool use could reach
 * this process) and takes no subagent definitions. On Codex, contain shell
 * with `sandbox` and guard tools that need a human on the server side.
 *
 * The errors these parts throw are exported from `arc-agentkit`, as every
 * error class is (one entry point per name).
 */
export { ClaudeCliCognition } from "./claude-cli.cognition.js";
export type { ClaudeCliOptions, ClaudeSessionArgs, CliMcpServerStatus } from "./claude-cli.cognition.js";
export { asCliAgents } from "./cli-agents.js";
export type { CliAgentDefinition, CliAgentInput, CliAgentsOptions } from "./cli-agents.js";
export type { EnvOverlay } from "./cli-process.js";
export { asCodexMcp } from "../wire/codex-mcp.js";
export type { CodexMcpSource, CodexMcpOptions } from "../wire/codex-mcp.js";
// The TOML encoders are internal; a bad `CodexCliOptions.config` value throws an AgentkitError (code `toml_encode`).
export type { TomlValue } from "../wire/toml.js";
export { HookServer } from "./hook-server.js";
export { hookSettings } from "./hook-settings.js";
export type { ClaudeHookSettings } from "./hook-settings.js";
export type { HookRecord, HookServerOptions, PreToolUseRequest } from "./hook-server.js";
export type { HookVerdict } from "./hook-verdict.js";
export { CodexCliCognition } from "./codex-cli.cognition.js";
export type { CodexCliOptions, CodexSandbox } from "./codex-cli.cognition.js";
export { mergeCliOptions } from "./cli-options.js";
