/**
 * @module mcp/serve
 * The serving direction: a registry as an MCP server (`serveRegistry`,
 * `McpServerSpec`), its stdio half (`serveRegistryStdio`, `stdioCommand`), the
 * `_meta` key, and the types of served resources and
 * prompts. Only what src/mcp/index.ts and this package's own code import
 * through it: the metadata readers and the name rules have one import path,
 * their own files (`tools/*.decorator.ts`, `wire/names.ts`).
 */
export { serveRegistry } from "./serve-registry.js";
export type { ServeRegistryOptions } from "./serve-registry.js";
export type { TasksOptions } from "./served-tasks.js";
export type { ResultsOptions } from "./served-results.js";
export type { ResultStore, SpilledResult } from "../../contracts/result-store.js";
export { MemoryResultStore } from "../../records/memory-result-store.js";
export type { MemoryResultStoreOptions } from "../../records/memory-result-store.js";
export type { SkillsOption } from "./served-skills.js";
export type { McpServerSpec } from "./mcp-server-spec.js";
export type { HttpServerEntry, StdioServerEntry, McpConfigDocument, SpecCliOptions } from "./mcp-server-spec.js";
export { serveRegistryStdio, stdioCommand } from "./serve-stdio.js";
export type { ServeStdioOptions } from "./serve-stdio.js";
export { META_KEY } from "./served-catalog.js";
export type { AgentkitToolMeta, ToolSource } from "./served-catalog.js";
export type { ToolGuard, ToolGuardRequest, ToolGuardResult } from "./served-server.js";
export type { PromptsOption, PromptSource, ResourceSource } from "./served-extras.js";
export { Resource } from "../../tools/resource.decorator.js";
export type { ResourceClass, ResourceMetadata } from "../../tools/resource.decorator.js";
export { Prompt } from "../../tools/prompt.decorator.js";
export type { PromptClass, PromptMetadata } from "../../tools/prompt.decorator.js";
export type { PromptArgument, PromptOptions, ResourceOptions } from "../../tools/served-options.js";
export type {
  PromptMessage,
  PromptRender,
  ResourceListEntry,
  ResourceRead,
  ServablePrompt,
  ServableResource,
} from "../../tools/served-items.js";
export type { CacheHint } from "../../tools/served-options.js";
export type {
  AudioBlock,
  ContentBlock,
  EmbeddedResourceBlock,
  ImageBlock,
  ResourceContents,
  ResourceLinkBlock,
  RichToolResult,
  TextBlock,
} from "../../tools/mcp-content.js";
