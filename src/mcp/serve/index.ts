/**
 * @module mcp/serve
 * The serving direction: a registry as an MCP server (`serveRegistry`,
 * `McpServerSpec`), its stdio half (`serveRegistryStdio`, `stdioCommand`), the
 * `_meta` key, and the served-name rules.
 */
export { serveRegistry } from "./serve-registry.js";
export type { ServeRegistryOptions } from "./serve-registry.js";
export { McpServerSpec } from "./mcp-server-spec.js";
export type { HttpServerEntry, StdioServerEntry, McpConfigDocument, SpecCliOptions } from "./mcp-server-spec.js";
export { serveRegistryStdio, stdioCommand } from "./serve-stdio.js";
export type { ServeStdioOptions } from "./serve-stdio.js";
export { META_KEY } from "./served-catalog.js";
export type { AgentkitToolMeta, ToolSource } from "./served-catalog.js";
export type { ToolGuard, ToolGuardRequest, ToolGuardResult } from "./served-server.js";
export { McpNameError } from "../../wire/mcp-name.error.js";
export { ServeOptionsError } from "./serve-options.error.js";
export { qualifiedName, checkServerName, sanitiseToolName, checkQualifiedName, MAX_QUALIFIED_NAME_LENGTH } from "../../wire/names.js";
