/**
 * @module arc-agentkit
 * Public surface of the core. Every export is listed by name (types with
 * `export type`); a test snapshots the sorted names, so an addition is a
 * reviewed decision. Only what a user calls, catches or types against: the
 * registry's instance adapter, the gating outcome helper and the result
 * renderer are internal.
 */
import "reflect-metadata";

export { TOOL_METADATA, MCP_SERVER_METADATA, TOKENS, LOGGER } from "./keys.js";
export { AgentkitError, ToolArgumentError, Cancelled, ClientGaveUp, NotImplementedError, DuplicateToolError, DefinitionError } from "./errors/index.js";
export type { InvalidArgument } from "./errors/index.js";

export type { ToolSchema, JsonSchema } from "./contracts/tool-schema.js";
export type { ToolDeclarations } from "./tools/tool.js";
export { Tool, getToolMetadata, isToolClass } from "./tools/tool.decorator.js";
export type { ToolClass, ToolMetadata } from "./tools/tool.decorator.js";
export type { ToolOptions } from "./tools/tool-options.js";
export { tool, FunctionTool } from "./tools/function-tool.js";
export type { ToolFn } from "./tools/function-tool.js";
export { ToolRegistry } from "./tools/tool-registry.js";
export type { ToolLike, RegisterOptions } from "./tools/tool-registry.js";
export { dtoToJsonSchema } from "./tools/schema.js";
export { ToolContent, isToolContent } from "./tools/tool-content.js";
export type { ContentPart } from "./contracts/content-part.js";
export type { DtoClass, ToolInput } from "./tools/schema.js";

export { RunContext, LOG_LEVELS } from "./context/run-context.js";
export type { Autonomy, RunEvent, EventSink, RunContextOptions, ClientChannel, ElicitRequest, ElicitResult, LogLevel, SampleRequest, SampleResult } from "./context/run-context.js";
export { ClientRequestError } from "./context/client-request.error.js";

export { Agent } from "./agents/agent.js";
export type { AgentOptions, AgentResult, Cognition, CognitionInput, StopReason, ToolCallRecord } from "./agents/agent.js";
export { ReActCognition } from "./agents/react-cognition.js";
export type { ReActOptions } from "./agents/react-cognition.js";
export { shouldGate } from "./agents/gating.js";
export { toolCall, toolFactsOf } from "./contracts/elicitation.js";
export type { Asker, AskOptions, Decision, DecisionKind, Elicitation, ToolCall, ToolFacts } from "./contracts/elicitation.js";
export type { LLM, LLMRequest, LLMStreamEvent, LLMTurn, Message, ModelStopReason } from "./contracts/llm.js";

export { RunPolicy, TRIFECTA, TRIFECTA_REASON } from "./control/run-policy.js";
export type { PolicyVerdict } from "./control/run-policy.js";

export { Prompt } from "./prompts/prompt.js";

export { memoryItem } from "./memory/memory.js";
export type { MemoryItem, MemorySource, QueryOptions } from "./memory/memory.js";
export { CompositeMemory } from "./memory/composite-memory.js";
export { CachedMemory } from "./memory/cached-memory.js";
export { CompactedMemory } from "./memory/compacted-memory.js";
export { VectorMemory, HashingEmbedder } from "./memory/vector-memory.js";
export type { Embedder } from "./memory/vector-memory.js";

export { getLogger, setLogger, GLOBAL_LOGGER } from "./util/logger.js";
export type { Logger } from "./util/logger.js";
