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
 * `McpResourceMemory` from `mcpResources`). Importing it loads no
 * optional peer: `MCPClient` loads `@modelcontextprotocol/client` at `open()`,
 * serving loads `@modelcontextprotocol/server` and express when it starts, each
 * naming its install line when missing.
 */
import "reflect-metadata";
export {
  DEFAULT_MAX_SAMPLING_TOKENS,
  DEFAULT_MAX_SERVER_REQUESTS,
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
  CallProgress,
  CallToolOptions,
  ListOptions,
  MCPClientOptions,
  McpPromptsOptions,
  McpSkill,
  McpSkillEntry,
  McpSkillsOptions,
  McpTask,
  McpTaskReference,
  McpTaskStatus,
  StartToolOptions,
  McpResourceMemory,
  McpResourcesOptions,
  McpServerConfig,
  McpTool,
  McpToolsOptions,
  InMemoryServer,
  ProtocolChoice,
  RestartOptions,
  StderrMode,
  StdioServerOptions,
  StreamableHttpServerOptions,
} from "./client/index.js";
export { CLIENT_ASSERTION_ALGORITHMS, clientCredentials, crossAppAccess, defaultTokenDir, oauthProvider } from "./oauth/index.js";
export type {
  AgentkitOAuthProvider,
  ClientCredentialsProvider,
  CrossAppAccessProvider,
  ClientAssertionAlgorithm,
  ClientCredentialsOptions,
  CrossAppAccessIdp,
  CrossAppAccessOptions,
  OAuthProviderOptions,
} from "./oauth/index.js";
export { APPROVAL_SERVER_NAME, APPROVAL_TOOL_NAME, approvalGuard, ApprovalServer } from "./approvals/index.js";
export type {
  ApprovalCliOptions,
  ApprovalConfigDocument,
  ApprovalGuard,
  ApprovalGuardOptions,
  ApprovalGuardRequest,
  ApprovalGuardResult,
  ApprovalServerOptions,
  AutoAllowWhen,
  ServedArgumentCheck,
} from "./approvals/index.js";
export { MemoryResultStore, META_KEY, Prompt, Resource, serveRegistry, serveRegistryStdio, stdioCommand } from "./serve/index.js";
export type {
  AgentkitToolMeta,
  AudioBlock,
  CacheHint,
  MemoryResultStoreOptions,
  ResultsOptions,
  ResultStore,
  SpilledResult,
  ContentBlock,
  EmbeddedResourceBlock,
  HttpServerEntry,
  ImageBlock,
  McpConfigDocument,
  McpServerSpec,
  PromptArgument,
  PromptClass,
  PromptMessage,
  PromptMetadata,
  PromptOptions,
  PromptRender,
  PromptsOption,
  PromptSource,
  ResourceClass,
  ResourceContents,
  ResourceLinkBlock,
  ResourceListEntry,
  ResourceMetadata,
  ResourceOptions,
  ResourceRead,
  ResourceSource,
  RichToolResult,
  ServablePrompt,
  ServableResource,
  ServeRegistryOptions,
  ServeStdioOptions,
  SkillsOption,
  SpecCliOptions,
  StdioServerEntry,
  TasksOptions,
  TextBlock,
  ToolGuard,
  ToolGuardRequest,
  ToolGuardResult,
  ToolSource,
} from "./serve/index.js";
export {
  bootstrap,
  InjectMcpClient,
  InjectMcpPrompts,
  InjectMcpResources,
  InjectMcpSkills,
  InjectMcpTools,
  mcpClientToken,
  mcpPromptsToken,
  mcpResourcesToken,
  McpServer,
  mcpSkillsToken,
  mcpToolsToken,
  remote,
} from "./di/index.js";
export type {
  BootstrapOptions,
  McpApp,
  McpAppCliOptions,
  McpServerOptions,
  ModuleClass,
  ModuleImport,
  Provider,
  RemoteDeclaration,
} from "./di/index.js";
