/**
 * @module arc-agentkit/mcp
 * Public surface of the MCP integration. Every export is listed by name (types
 * with `export type`); test/mcp/index.test.ts snapshots the sorted names, so an
 * addition is a reviewed decision. Only what a user calls, catches or types
 * against: the listener's pure checks, its token helpers, the config-file
 * writer and the name rules are internal (the errors they throw are here). Importing it loads no
 * optional peer: `MCPClient` loads `@modelcontextprotocol/client` at `open()`,
 * serving loads `@modelcontextprotocol/server` and express when it starts, each
 * naming its install line when missing.
 */
import "reflect-metadata";
export { INSTALL_LINE } from "./sdk.js";
export { DEFAULT_HTTP_TIMEOUT_MS, DEFAULT_MAX_SAMPLING_TOKENS, DEFAULT_MAX_SERVER_REQUESTS, DEFAULT_TTL_MS, MCP_PROMPT_VERSION, MCPClient, McpConnectError, McpNotEnteredError, mcpPrompts, McpRequestError, McpResourceMemory, McpSessionLostError, mcpResources, McpTool, mcpTools, NOT_ENTERED_MESSAGE, promptText, resourceText, StdioServer, StreamableHttpServer, toolResultText } from "./client/index.js";
export type { CallProgress, CallToolOptions, ListOptions, MCPClientOptions, McpPromptsOptions, McpResourcesOptions, McpServerConfig, McpToolsOptions, ProtocolChoice, RestartOptions, StderrMode, StdioServerOptions, StreamableHttpServerOptions } from "./client/index.js";
export {
  AgentkitOAuthProvider,
  CLIENT_ASSERTION_ALGORITHMS,
  clientCredentials,
  ClientCredentialsProvider,
  crossAppAccess,
  CrossAppAccessProvider,
  defaultTokenDir,
  OAuthCallbackError,
  OAuthLoginRequiredError,
  oauthProvider,
  OAuthResponseTooLargeError,
} from "./oauth/index.js";
export type { ClientAssertionAlgorithm, ClientCredentialsOptions, CrossAppAccessIdp, CrossAppAccessOptions, OAuthProviderOptions } from "./oauth/index.js";
export { LoopbackOptionsError, McpConfigFileError } from "./loopback/index.js";
export { APPROVAL_SERVER_NAME, APPROVAL_SOURCES, APPROVAL_TOOL_NAME, approvalGuard, ApprovalServer, ApprovalServerStateError, AuditSinkError } from "./approvals/index.js";
export type { ApprovalCliOptions, ApprovalConfigDocument, ApprovalDecision, ApprovalEventTarget, ApprovalGuard, ApprovalGuardOptions, ApprovalGuardRequest, ApprovalGuardResult, ApprovalServerOptions, ApprovalSource, AutoAllowWhen, ServedArgumentCheck } from "./approvals/index.js";
export { getPromptMetadata, getResourceMetadata, isPromptClass, isResourceClass, McpNameError, McpServerSpec, META_KEY, Prompt, qualifiedName, Resource, ServeOptionsError, serveRegistry, serveRegistryStdio, stdioCommand } from "./serve/index.js";
export type { AgentkitToolMeta, AudioBlock, CacheHint, ContentBlock, EmbeddedResourceBlock, HttpServerEntry, ImageBlock, McpConfigDocument, PromptArgument, PromptClass, PromptMessage, PromptMetadata, PromptOptions, PromptRender, PromptsOption, PromptSource, ResourceClass, ResourceContents, ResourceLinkBlock, ResourceListEntry, ResourceMetadata, ResourceOptions, ResourceRead, ResourceSource, RichToolResult, ServablePrompt, ServableResource, ServeRegistryOptions, ServeStdioOptions, SpecCliOptions, StdioServerEntry, TextBlock, ToolGuard, ToolGuardRequest, ToolGuardResult, ToolSource } from "./serve/index.js";
export { bootstrap, BootstrapError, getMcpServerMetadata, InjectMcpClient, InjectMcpPrompts, InjectMcpResources, InjectMcpTools, McpApp, mcpClientToken, mcpPromptsToken, mcpResourcesToken, McpServer, mcpToolsToken, remote } from "./di/index.js";
export type { BootstrapOptions, McpAppCliOptions, McpServerOptions, ModuleClass, ModuleImport, Provider, RemoteDeclaration } from "./di/index.js";
