/**
 * @module testing/fake-llm
 * A scripted model for tests and samples: no API key, no network.
 */
import type { ToolCall } from "../contracts/elicitation.js";
import type { LLM, LLMRequest, LLMTurn } from "../contracts/llm.js";
import { checkOptions, opt } from "../options/option-checks.js";

/** A tool call as a turn holds it: a string id and name, an object of arguments. */
function isToolCall(v: unknown): v is ToolCall {
  const c = v as Partial<ToolCall> | null;
  return (
    typeof c === "object" &&
    c !== null &&
    typeof c.id === "string" &&
    typeof c.name === "string" &&
    typeof c.arguments === "object" &&
    c.arguments !== null &&
    !Array.isArray(c.arguments)
  );
}

/** The options a `Turn` accepts, declared once. */
const TURN_OPTIONS = {
  content: opt.string(),
  toolCalls: opt.that<readonly ToolCall[]>(
    (v) => Array.isArray(v) && v.every(isToolCall),
    "an array of tool calls { id, name, arguments }",
  ),
  usage: opt.that<Record<string, number>>(
    (v) => typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every((n) => typeof n === "number"),
    "an object of token counts ({ input: 3 })",
  ),
} as const;

/** One scripted model turn: text, tool calls, or both. */
export class Turn implements LLMTurn {
  readonly content?: string;
  readonly toolCalls?: readonly ToolCall[];
  readonly usage?: Readonly<Record<string, number>>;

  /**
   * @throws OptionsError for an unknown option (`text`: a turn's text is
   *   `content`), a value of the wrong kind or `null` options.
   */
  constructor(options: { content?: string; toolCalls?: readonly ToolCall[]; usage?: Record<string, number> } = {}) {
    const o = checkOptions(options, "Turn", TURN_OPTIONS, { text: "a turn's text is 'content'" });
    this.content = o.content;
    this.toolCalls = o.toolCalls ? Object.freeze(o.toolCalls.map((c) => Object.freeze({ ...c }))) : undefined;
    this.usage = o.usage;
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

  /** Answers the next scripted turn (records `request` in `requests`); rejects when the script is used up. */
  async complete(request: LLMRequest): Promise<LLMTurn> {
    this.requests.push(request);
    request.signal?.throwIfAborted();
    const turn = this.turns[this.index];
    if (!turn)
      throw new Error(
        `FakeLLM: script exhausted after ${this.turns.length} turn(s); request ${this.requests.length} has no scripted answer`,
      );
    this.index++;
    return turn;
  }
}
