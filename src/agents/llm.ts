/**
 * @module agents/llm
 * The structural interface a model provider implements.
 */
import type { ToolCall } from "./elicitation.js";
import type { ToolSchema } from "../tools/tool-schema.js";

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
}

/** What a model returns for one turn: text, tool calls, or both. */
export interface LLMTurn {
  readonly content?: string;
  readonly toolCalls?: readonly ToolCall[];
  /** Token usage when the provider reports it. */
  readonly usage?: Readonly<Record<string, number>>;
}

/** One completion request. */
export interface LLMRequest {
  readonly model: string;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolSchema[];
  readonly signal?: AbortSignal;
}

/** A model. Anything with `complete()` of this shape is one; no base class. */
export interface LLM {
  complete(request: LLMRequest): Promise<LLMTurn>;
}
