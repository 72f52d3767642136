/**
 * @module testing/fake-llm
 * A scripted model for tests and samples: no API key, no network.
 */
import type { ToolCall } from "../contracts/elicitation.js";
import type { LLM, LLMRequest, LLMTurn } from "../contracts/llm.js";

/** One scripted model turn: text, tool calls, or both. */
export class Turn implements LLMTurn {
  readonly content?: string;
  readonly toolCalls?: readonly ToolCall[];
  readonly usage?: Readonly<Record<string, number>>;

  constructor(options: { content?: string; toolCalls?: readonly ToolCall[]; usage?: Record<string, number> } = {}) {
    this.content = options.content;
    this.toolCalls = options.toolCalls ? Object.freeze(options.toolCalls.map((c) => Object.freeze({ ...c }))) : undefined;
    this.usage = options.usage;
    Object.freeze(this);
  }
}

/**
 * Returns its scripted turns in order and records every request it was sent
 * (`requests`), so a test can check what the model was shown — tool results
 * included. Running past the script rejects with a message saying so.
 */
export class FakeLLM implements LLM {
  /** Every request received, in order. */
  readonly requests: LLMRequest[] = [];
  private index = 0;

  private constructor(private readonly turns: readonly LLMTurn[]) {}

  /** A model that answers with `turns`, one per request. */
  static script(turns: readonly LLMTurn[]): FakeLLM {
    return new FakeLLM(Object.freeze([...turns]));
  }

  /** Turns not yet used. */
  get remaining(): number {
    return this.turns.length - this.index;
  }

  async complete(request: LLMRequest): Promise<LLMTurn> {
    this.requests.push(request);
    request.signal?.throwIfAborted();
    const turn = this.turns[this.index];
    if (!turn) throw new Error(`FakeLLM: script exhausted after ${this.turns.length} turn(s); request ${this.requests.length} has no scripted answer`);
    this.index++;
    return turn;
  }
}
