/**
 * @module models/turn-builder
 * What both providers do while a turn streams in: collect text and tool
 * calls, report each as it arrives, sum usage, and hand back an `LLMTurn`.
 */
import type { ToolCall } from "../contracts/elicitation.js";
import type { LLMRequest, LLMTurn, ModelStopReason } from "../contracts/llm.js";
import { ModelError } from "./model.error.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The usage keys the providers report (the same the CLI cognitions use). */
export type UsageKey = "inputTokens" | "outputTokens" | "cacheReadInputTokens" | "cacheCreationInputTokens";

/**
 * One turn being assembled from stream events. `text()` and `toolStart()`
 * forward to the request's `onEvent` at once; `turn()` builds the result.
 */
export class TurnBuilder {
  private readonly parts: string[] = [];
  private readonly calls: ToolCall[] = [];
  private readonly used: Partial<Record<UsageKey, number>> = {};
  stopReason: ModelStopReason | undefined;
  requestId: string | undefined;
  /** The model that answered, as the API named it. */
  model: string | undefined;

  constructor(
    private readonly provider: string,
    private readonly request: LLMRequest,
  ) {}

  /** A piece of text arrived. */
  text(delta: string): void {
    if (!delta) return;
    this.parts.push(delta);
    this.request.onEvent?.({ type: "text", text: delta });
  }

  /** The text so far. */
  get content(): string {
    return this.parts.join("");
  }

  /** A tool call started (its arguments may still be streaming). */
  toolStart(id: string, name: string): void {
    this.request.onEvent?.({ type: "tool_call", id, name });
  }

  /** A tool call is complete; `json` is its arguments as the model wrote them. */
  toolCall(id: string, name: string, json: string, widen?: (args: Record<string, unknown>) => Record<string, unknown>): void {
    let args: unknown;
    try {
      args = json.trim() === "" ? {} : JSON.parse(json);
    } catch (err) {
      throw new ModelError(
        {
          provider: this.provider,
          requestId: this.requestId,
          providerMessage: `the arguments of tool call '${name}' (${id}) are not JSON: ${json.slice(0, 200)}`,
          cause: err,
        },
        "the model's answer could not be read",
        "model_response",
      );
    }
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      throw new ModelError(
        {
          provider: this.provider,
          requestId: this.requestId,
          providerMessage: `the arguments of tool call '${name}' (${id}) are not a JSON object: ${json.slice(0, 200)}`,
        },
        "the model's answer could not be read",
        "model_response",
      );
    }
    const obj = args as Record<string, unknown>;
    this.calls.push({ id, name, arguments: widen ? widen(obj) : obj });
  }

  /** Set a usage figure (providers report running totals, so the last value wins). */
  usage(key: UsageKey, value: unknown): void {
    if (typeof value === "number" && Number.isFinite(value)) this.used[key] = value;
  }

  /** The assembled turn. */
  turn(): LLMTurn {
    // Assigned, not spread: this runs once per turn on a cold path, where
    // object spread costs microseconds.
    const turn: Mutable<LLMTurn> = { content: this.parts.length === 1 ? this.parts[0]! : this.parts.join(""), usage: this.used };
    if (this.calls.length) turn.toolCalls = this.calls;
    if (this.stopReason) turn.stopReason = this.stopReason;
    if (this.model) turn.model = this.model;
    return turn;
  }
}
