/**
 * @module mcp/di
 * Decorators and DI: `@McpServer` modules, `bootstrap`, remote MCP servers as providers.
 */
export { McpServer, getMcpServerMetadata } from "./mcp-server.decorator.js";
export type { McpServerOptions, ModuleImport, Provider } from "./mcp-server-options.js";
export {
  remote,
  InjectMcpTools,
  InjectMcpClient,
  InjectMcpResources,
  InjectMcpPrompts,
  InjectMcpSkills,
  mcpToolsToken,
  mcpClientToken,
  mcpResourcesToken,
  mcpPromptsToken,
  mcpSkillsToken,
} from "./remote.js";
export type { RemoteDeclaration } from "./remote.js";
export { bootstrap } from "./bootstrap.js";
export type { BootstrapOptions, McpApp, McpAppCliOptions, ModuleClass } from "./bootstrap.js";
export { BootstrapError } from "./bootstrap.error.js";
export { connectModule } from "./in-memory.js";
export type { ConnectedModule, ConnectModuleOptions } from "./in-memory.js";
