/**
 * @module agents/agent
 * `Agent`: a name, a model, a prompt and a cognition that runs the loop.
 */
import { checkOptions, opt, type OptionRule } from "../options/option-checks.js";
import type { RunContext } from "../context/run-context.js";
import type { ContentPart } from "../contracts/content-part.js";

/** Why a run ended. */
export type StopReason = "complete" | "max_steps" | "cancelled" | "error";

/** One tool call made during a run, with what came of it. */
export interface ToolCallRecord {
  readonly id: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** The text fed back to the model. */
  readonly result: string;
  /** False when the call was refused, failed or rejected its arguments. */
  readonly ok: boolean;
  /** The result as content parts, when the tool kept non-text content (see `ToolContent`). */
  readonly parts?: readonly ContentPart[];
}

/** What `agent.run()` returns. */
export interface AgentResult {
  /** The final text. */
  readonly output: string;
  readonly stopReason: StopReason;
  /** Model turns taken. */
  readonly steps: number;
  /** Every tool call, in order. */
  readonly toolCalls: readonly ToolCallRecord[];
  /** Summed token usage, where the model reported it. */
  readonly usage: Readonly<Record<string, number>>;
  /** Set when `stopReason` is `"error"`. */
  readonly error?: Error;
  /** Extra facts a cognition reports (e.g. a CLI's permission denials). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** What a cognition is handed to run. */
export interface CognitionInput {
  readonly task: string;
  readonly agent: Agent;
  readonly ctx: RunContext;
}

/** The loop behind an agent: ReAct over local tools, or a CLI that owns its own loop. */
export interface Cognition {
  run(input: CognitionInput): Promise<AgentResult>;
}

/** Options of an `Agent`. */
export interface AgentOptions {
  readonly name: string;
  /** The model id handed to the LLM (ignored by cognitions that choose their own). Default `"default"`. */
  readonly model?: string;
  /** The system prompt. Default `""`. */
  readonly prompt?: string;
  readonly cognition: Cognition;
  /** A one-line description (used when the agent is presented as a subagent). */
  readonly description?: string;
}

/** The options an `Agent` accepts, declared once. */
const AGENT_OPTIONS = {
  name: opt.required(opt.that<string>((v) => typeof v === "string" && v.trim() !== "", "a non-empty string"), "a non-empty string"),
  model: opt.string(),
  prompt: opt.string(),
  cognition: opt.required(
    opt.that<Cognition>((v) => typeof (v as Cognition | null)?.run === "function", "a Cognition (an object with run(input)), e.g. new ReActCognition({ tools })"),
    "e.g. new ReActCognition({ tools })",
  ),
  description: opt.string(),
} satisfies Record<keyof AgentOptions, OptionRule<unknown>>;

/** An agent: runs `task` through its cognition. */
export class Agent {
  readonly name: string;
  readonly model: string;
  readonly prompt: string;
  readonly description: string;
  readonly cognition: Cognition;

  /**
   * @throws OptionsError for an unknown option, a missing required one or a
   *   value of the wrong kind (or `null` options), naming what is accepted.
   */
  constructor(options: AgentOptions) {
    const o = checkOptions(options, "Agent", AGENT_OPTIONS);
    this.name = o.name;
    this.model = o.model ?? "default";
    this.prompt = o.prompt ?? "";
    this.description = o.description ?? "";
    this.cognition = o.cognition;
  }

  /** Run `task` to its end. Never throws for a model or tool failure: those end in `stopReason: "error"`. */
  async run(task: string, ctx: RunContext): Promise<AgentResult> {
    ctx.emit("agent.start", { agent: this.name, task });
    const result = await this.cognition.run({ task, agent: this, ctx });
    ctx.emit("agent.end", { agent: this.name, stopReason: result.stopReason, steps: result.steps });
    return result;
  }
}
