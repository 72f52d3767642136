/**
 * @module arc-agentkit
 * Public surface of the core. Every export is listed by name (types with
 * `export type`); a test snapshots the sorted names, so an addition is a
 * reviewed decision (api/index.api.md is the report lint checks). Only what
 * a user calls, catches or types against: metadata keys and readers, the
 * registry's instance adapter, the gating outcome helper and the result
 * renderer are internal; a class built by a factory is exported as a type.
 * A type a user reaches through what takes or returns it is not exported again
 * (`ToolOptions["task"]`, `Parameters<RunContext["elicit"]>[0]`, `Extract<Caller,
 * { kind: "hosted" }>`), nor a shape the MCP SDK already names.
 * Each name comes from one entry point: every error class from here; the
 * store contracts (`CallRecord*`, `Run*`) from `arc-agentkit/askers`.
 */
import "reflect-metadata";

export { LOGGER } from "./keys.js";
export {
  AgentkitError,
  ToolArgumentError,
  Cancelled,
  ClientGaveUp,
  NotImplementedError,
  DuplicateToolError,
  DefinitionError,
  OptionsError,
  MissingPeerError,
  RunResumeError,
} from "./errors/index.js";
export type { AgentkitErrorCode, InvalidArgument, RunResumeFailure } from "./errors/index.js";
// Every error class a user may catch, from every layer: each is a leaf file, so importing it loads nothing of its layer.
// A failure with no fields of its own is an `AgentkitError` told apart by `code` (see AgentkitError).
export { McpRequestError } from "./mcp/client/mcp-request.error.js";
export { McpConnectError } from "./mcp/client/mcp-connect.error.js";
export { OAuthLoginRequiredError } from "./mcp/oauth/oauth.error.js";
export { BootstrapError } from "./mcp/di/bootstrap.error.js";
export { ModelError, ModelRateLimitError } from "./models/model.error.js";
export type { ModelErrorCode, ModelErrorFacts } from "./models/model.error.js";
export { CliRunError } from "./cli/cli-run.error.js";
export type { CliRunErrorCode } from "./cli/cli-run.error.js";
export { InboxError } from "./askers/inbox/inbox.error.js";
export type { InboxErrorCode, InboxStoreFailure } from "./askers/inbox/inbox.error.js";
export { AccessTokenError } from "./express/access-token.error.js";
export type { AccessTokenRefusal } from "./express/access-token.error.js";

export type { ToolSchema, JsonSchema } from "./contracts/tool-schema.js";

export { Tool } from "./tools/tool.decorator.js";
export type { ToolOptions } from "./tools/tool-options.js";
export { tool } from "./tools/function-tool.js";
export type { FunctionTool } from "./tools/function-tool.js";
export { ToolRegistry } from "./tools/tool-registry.js";
export type { ToolLike } from "./tools/tool-registry.js";
export { ToolContent } from "./tools/tool-content.js";
export type { StandardSchemaV1 } from "./tools/standard-schema.js";

export { RunContext } from "./context/run-context.js";
export type { Autonomy, RunContextOptions } from "./context/run-context.js";
export type { Caller } from "./context/caller.js";
export type { RunEvent } from "./context/run-events.js";
export type { LogLevel } from "./context/client-channel.js";
export { ClientRequestError } from "./context/client-request.error.js";

export { Agent } from "./agents/agent.js";
export type { AgentOptions, AgentResult, AgentRunOptions, Cognition, StopReason } from "./agents/agent.js";
export { ReActCognition } from "./agents/react-cognition.js";
export type { ReActOptions } from "./agents/react-cognition.js";
export { shouldGate } from "./gate/index.js";
export type { GateRecord } from "./gate/index.js";
export { toolCall } from "./contracts/elicitation.js";
export type { Asker, AskOptions, Decision, Elicitation, ToolCall } from "./contracts/elicitation.js";
export type { LLM, LLMRequest, LLMTurn, Message } from "./contracts/llm.js";

export { RunPolicy } from "./control/run-policy.js";

export { PromptTemplate } from "./prompts/prompt-template.js";

export { memoryItem } from "./memory/memory.js";
export type { MemoryItem, MemorySource } from "./memory/memory.js";
export { CompositeMemory } from "./memory/composite-memory.js";
export { CachedMemory } from "./memory/cached-memory.js";
export { CompactedMemory } from "./memory/compacted-memory.js";
export { VectorMemory, HashingEmbedder } from "./memory/vector-memory.js";
export type { Embedder } from "./memory/vector-memory.js";

export { setLogger } from "./util/logger.js";
export type { Logger } from "./util/logger.js";
