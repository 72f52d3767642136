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
export type { PromptsOption, PromptSource, ResourceSource } from "./served-extras.js";
export { Resource, getResourceMetadata, isResourceClass } from "../../tools/resource.decorator.js";
export type { ResourceClass, ResourceMetadata } from "../../tools/resource.decorator.js";
export { Prompt, getPromptMetadata, isPromptClass } from "../../tools/prompt.decorator.js";
export type { PromptClass, PromptMetadata } from "../../tools/prompt.decorator.js";
export type { PromptArgument, PromptOptions, ResourceOptions } from "../../tools/served-options.js";
export type { PromptMessage, PromptRender, ResourceListEntry, ResourceRead, ServablePrompt, ServableResource } from "../../tools/served-items.js";
export type { CacheHint } from "../../tools/served-options.js";
export type { AudioBlock, ContentBlock, EmbeddedResourceBlock, ImageBlock, ResourceContents, ResourceLinkBlock, RichToolResult, TextBlock } from "../../tools/mcp-content.js";
export { qualifiedName, checkServerName, sanitiseToolName, checkQualifiedName, MAX_QUALIFIED_NAME_LENGTH } from "../../wire/names.js";
