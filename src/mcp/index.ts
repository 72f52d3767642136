/**
 * @module arc-agentkit/mcp
 * Public surface of the MCP integration. Every export is listed by name (types
 * with `export type`); test/mcp/index.test.ts snapshots the sorted names, so an
 * addition is a reviewed decision (api/mcp.api.md is the report lint
 * checks). Only what a user calls, catches or types
 * against: the listener's pure checks, its token helpers, the config-file
 * writer, the name rules, metadata readers, result renderers, install lines
 * and wire constants are internal (the errors they throw are exported from
 * `arc-agentkit`, as every error class is); a class
 * built by a factory or by `bootstrap()` is exported as a type (`McpServerSpec`
 * from `serveRegistry`, `McpApp` from `bootstrap`, `McpTool` from `mcpTools`,
 * `McpResourceMemory` from `mcpResources`). The option types of the calls a
 * user makes first are exported; a type reached through one of them is not
 * (`ServeRegistryOptions["results"]`, `Parameters<MCPClient["callTool"]>[2]`),
 * nor a shape the MCP SDK names (content blocks, prompt messages: the SDK's
 * own types fit), nor a DI token (`@InjectMcp*` inject by alias). Importing it loads no
 * optional peer: `MCPClient` loads `@modelcontextprotocol/client` at `start()`,
 * serving loads `@modelcontextprotocol/server` and express when it starts, each
 * naming its install line when missing.
 */
import "reflect-metadata";
export {
  DEFAULT_TTL_MS,
  MCPClient,
  mcpPrompts,
  mcpResources,
  mcpSkills,
  mcpTools,
  StdioServer,
  StreamableHttpServer,
  toolResultText,
} from "./client/index.js";
export type {
  MCPClientOptions,
  McpSkill,
  McpTask,
  McpResourceMemory,
  McpServerConfig,
  McpTool,
  StdioServerOptions,
  StreamableHttpServerOptions,
} from "./client/index.js";
export { clientCredentials, crossAppAccess, oauthProvider } from "./oauth/index.js";
export type { ClientCredentialsOptions, CrossAppAccessOptions, OAuthProviderOptions } from "./oauth/index.js";
export { approvalGuard, ApprovalServer } from "./approvals/index.js";
export type { ApprovalGuard, ApprovalGuardOptions, ApprovalServerOptions } from "./approvals/index.js";
export { MemoryResultStore, META_KEY, Prompt, Resource, serveRegistry, serveRegistryStdio, stdioCommand } from "./serve/index.js";
export type {
  ResultStore,
  SpilledResult,
  McpServerSpec,
  PromptOptions,
  ResourceOptions,
  ServeRegistryOptions,
  ServeStdioOptions,
  ToolGuard,
} from "./serve/index.js";
export {
  bootstrap,
  InjectMcpClient,
  InjectMcpPrompts,
  InjectMcpResources,
  InjectMcpSkills,
  InjectMcpTools,
  McpServer,
  remote,
} from "./di/index.js";
export type { BootstrapOptions, McpApp, McpServerOptions, ModuleClass, Provider } from "./di/index.js";
