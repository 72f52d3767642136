/**
 * @module contracts/llm
 * The structural interface a model provider implements.
 */
import type { ToolCall } from "./elicitation.js";
import type { ContentPart } from "./content-part.js";
import type { ToolSchema } from "./tool-schema.js";

/** One message of a conversation. */
export interface Message {
  readonly role: "system" | "user" | "assistant" | "tool";
  readonly content: string;
  /** On assistant messages: the tool calls the model made. */
  readonly toolCalls?: readonly ToolCall[];
  /** On tool messages: the call this result answers. */
  readonly toolCallId?: string;
  /** On tool messages: the tool's name. */
  readonly name?: string;
  /**
   * On tool messages: the result as content parts (text and images), set only
   * when the tool kept non-text content (e.g. `mcpTools(client, { keepImages:
   * true })`). `content` is always the text form; a provider that cannot show
   * images uses it.
   */
  readonly parts?: readonly ContentPart[];
}

/**
 * Why the model stopped, as the provider reported it, normalised:
 * `end_turn` (it finished), `tool_use` (it wants tool results), `max_tokens`
 * (the output was cut at the provider's limit), `stop_sequence`, or `other`.
 * A refusal is not a stop reason: a provider throws for it.
 */
export type ModelStopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "other";

/** What a model returns for one turn: text, tool calls, or both. */
export interface LLMTurn {
  readonly content?: string;
  readonly toolCalls?: readonly ToolCall[];
  /**
   * Token usage when the provider reports it (the shipped providers use `inputTokens`, `outputTokens`,
   * `cacheReadInputTokens`, `cacheCreationInputTokens`).
   */
  readonly usage?: Readonly<Record<string, number>>;
  /** Why the model stopped, when the provider says. */
  readonly stopReason?: ModelStopReason;
  /** The model that answered, when the provider says (the API's name for it, e.g. a dated id for an alias). */
  readonly model?: string;
}

/**
 * Something a streaming provider reports while a turn is still arriving:
 * a piece of text, or the start of a tool call (its arguments may still be
 * streaming; the complete call comes in the `LLMTurn`).
 */
export type LLMStreamEvent =
  { readonly type: "text"; readonly text: string } | { readonly type: "tool_call"; readonly id: string; readonly name: string };

/** One completion request. */
export interface LLMRequest {
  /**
   * The model id (a run sends its agent's `model`). `""`: the request names
   * none, as an MCP server's sampling request does (it has only
   * `modelHints`); the provider uses its own default.
   */
  readonly model: string;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolSchema[];
  /** Aborted when the run is cancelled: a provider aborts its HTTP request and rejects. */
  readonly signal?: AbortSignal;
  /**
   * Called for each piece of the turn as it arrives, in order, before
   * `complete()` resolves. Optional on both sides: a provider that does not
   * stream never calls it, and the turn it returns is the whole answer anyway.
   * A callback that throws is the caller's bug; providers do not catch it.
   */
  readonly onEvent?: (event: LLMStreamEvent) => void;
  /** The most output tokens wanted (an MCP `sampling/createMessage`'s `maxTokens`); a provider caps its output at it. */
  readonly maxTokens?: number;
  /** Model names the asker would prefer, best first (an MCP sampling request's `modelPreferences.hints`); advisory only. */
  readonly modelHints?: readonly string[];
}

/** A model. Anything with `complete()` of this shape is one; no base class. */
export interface LLM {
  /** Answers one model turn for `request` (its text, tool calls and stop reason). */
  complete(request: LLMRequest): Promise<LLMTurn>;
}
