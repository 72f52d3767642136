/**
 * @module mcp/client
 * The consuming direction of the MCP integration: `MCPClient`, its two server
 * configs, and the adapters to agentkit's tools, memory and prompts. Every
 * export is listed by name, and only what src/mcp/index.ts re-exports: the
 * internal constants and renderers have one import path, their own files, and
 * the errors are exported from the package root (`src/index.ts`).
 */
export { MCPClient, DEFAULT_TTL_MS } from "./mcp-client.js";
export type { MCPClientOptions, ListOptions, CallToolOptions, CallProgress, RestartOptions, StartToolOptions } from "./mcp-client.js";
export type { McpTask, McpTaskReference } from "./mcp-task.js";
export type { McpTaskStatus } from "./task-codec.js";
export { StdioServer, StreamableHttpServer } from "./servers.js";
export type {
  StdioServerOptions,
  StreamableHttpServerOptions,
  StderrMode,
  McpServerConfig,
  ProtocolChoice,
  InMemoryServer,
} from "./servers.js";
export { mcpTools } from "./mcp-tools.js";
export type { McpTool, McpToolsOptions } from "./mcp-tools.js";
export { mcpResources } from "./mcp-resources.js";
export type { McpResourceMemory, McpResourcesOptions } from "./mcp-resources.js";
export { mcpPrompts } from "./mcp-prompts.js";
export type { McpPromptsOptions } from "./mcp-prompts.js";
export { mcpSkills } from "./mcp-skills.js";
export type { McpSkill, McpSkillEntry, McpSkillsOptions } from "./mcp-skills.js";
export { toolResultText } from "./content.js";
