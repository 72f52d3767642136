/**
 * @module agents/agent
 * `Agent`: a name, a model, a prompt and a cognition that runs the loop.
 */
import { checkOptions, opt, type OptionRule } from "../options/option-checks.js";
import { RunContext } from "../context/run-context.js";
import type { AgentResult } from "./agent-result.js";
import type { RunStore } from "../contracts/run-record.js";
import { OptionsError } from "../errors/options.error.js";
import { errorLine } from "../util/format.js";
import { resultFromStored, RunJournal, type DurableSpec } from "./run-journal.js";

export type { AgentResult, StopReason, ToolCallRecord } from "./agent-result.js";

/** What a cognition is handed to run. */
export interface CognitionInput {
  readonly task: string;
  readonly agent: Agent;
  readonly ctx: RunContext;
  /** A durable run's journal: what the loop writes before each next step, and reads back on resume. */
  readonly journal?: RunJournal;
}

/** The loop behind an agent: ReAct over local tools, or a CLI that owns its own loop. */
export interface Cognition {
  /** Runs the task in `input` to its end (or its stop reason) and answers the result. */
  run(input: CognitionInput): Promise<AgentResult>;
  /**
   * Present on a cognition that records durable runs (`ReActCognition`,
   * `ClaudeCliCognition`, `CodexCliCognition`): the tools a resume compares,
   * and for a CLI which CLI and model.
   */
  readonly durable?: DurableSpec;
}

/** Options of `agent.run(input, options)` (the second argument may also be just the `RunContext`). */
export interface AgentRunOptions {
  /** The run's context (model, Asker, tier, events). Default: a new `RunContext()`. */
  readonly ctx?: RunContext;
  /** The durable run's id (default: a fresh UUID); one already in the store is refused (use `resume`). Needs `store`. */
  readonly runId?: string;
  /** Where the run is recorded, step by step (an inbox store: `new MemoryInboxStore()`, `pgliteInboxStore()`, `postgresInboxStore()`). */
  readonly store?: RunStore;
}

/** Options of `agent.resume(runId, options)`. */
export interface AgentResumeOptions {
  /** The store the run was recorded in. */
  readonly store: RunStore;
  /** The context the run goes on in (the model and the Asker come from it, as in `run`). Default: a new `RunContext()`. */
  readonly ctx?: RunContext;
}

/** A `RunStore`: an object with the run methods. */
const isRunStore = (v: unknown): v is RunStore =>
  v !== null &&
  typeof v === "object" &&
  ["createRun", "loadRun", "claimRun", "appendRunStep", "setRunStatus", "releaseRun", "runs"].every(
    (m) => typeof (v as Record<string, unknown>)[m] === "function",
  );

const STORE_RULE = opt.that<RunStore>(
  isRunStore,
  "a run store (an inbox store: new MemoryInboxStore(), pgliteInboxStore({ dataDir }) or postgresInboxStore({ ... }))",
);
const CTX_RULE = opt.that<RunContext>((v) => v instanceof RunContext, "a RunContext (new RunContext({ llm, asker }) or makeTestCtx())");

/** `agent.run`'s options, declared once. */
const RUN_OPTIONS = { ctx: CTX_RULE, runId: opt.string("a non-empty run id", true), store: STORE_RULE } satisfies Record<
  keyof AgentRunOptions,
  OptionRule<unknown>
>;

/** `agent.resume`'s options, declared once. */
const RESUME_OPTIONS = { store: opt.required(STORE_RULE, "the store the run was recorded in"), ctx: CTX_RULE } satisfies Record<
  keyof AgentResumeOptions,
  OptionRule<unknown>
>;

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
  name: opt.required(
    opt.that<string>((v) => typeof v === "string" && v.trim() !== "", "a non-empty string"),
    "a non-empty string",
  ),
  model: opt.string(),
  prompt: opt.string(),
  cognition: opt.required(
    opt.that<Cognition>(
      (v) => typeof (v as Cognition | null)?.run === "function",
      "a Cognition (an object with run(input)), e.g. new ReActCognition({ tools })",
    ),
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

  /**
   * Run `task` to its end. The second argument is the run's `RunContext`, or
   * options `{ ctx?, runId?, store? }`: with a `store` the run is durable —
   * every model turn, tool call (started, finished) and question is recorded
   * before the next step, `result.runId` names it, and `resume` continues it
   * after its process died. Cancelling a durable run's context stops it
   * where it is; it stays resumable. Never throws for a model or tool
   * failure: those end in `stopReason: "error"`.
   *
   * @throws OptionsError for bad options (a `runId` without a `store`, a cognition that does not record runs).
   * @throws RunResumeError (rejects) when `runId` is already in the store, or the store fails before the run starts; nothing ran.
   */
  async run(task: string, options: RunContext | AgentRunOptions = {}): Promise<AgentResult> {
    if (options instanceof RunContext) return this.#drive(task, options);
    const o = checkOptions(options, "agent.run", RUN_OPTIONS);
    const ctx = o.ctx ?? new RunContext();
    if (!o.store) {
      if (o.runId !== undefined)
        throw new OptionsError(
          "agent.run",
          "runId",
          "agent.run: 'runId' names a durable run, which needs a 'store' (an inbox store) to be recorded in",
        );
      return this.#drive(task, ctx);
    }
    const durable = this.#durable("agent.run");
    return this.#drive(task, ctx, await RunJournal.start(o.store, this, durable, task, o.runId));
  }

  /**
   * Continue the durable run `runId` from `store` after its process died:
   * finished model turns are read back, finished tool calls are not run
   * again, a pending question is asked again under the same `questionId`, a
   * side-effecting call that started but never finished runs again only
   * after the Asker says yes to a question with source `resume` (a
   * read-only one runs again), and a finished run returns its stored result.
   *
   * @throws RunResumeError (rejects), nothing run, when the run is unknown, held by a live worker (named), was started
   * by a changed agent (each change named), or cannot be read (another version's state, a truncated step), or the store
   * fails.
   */
  async resume(runId: string, options: AgentResumeOptions): Promise<AgentResult> {
    const o = checkOptions(options, "agent.resume", RESUME_OPTIONS);
    const durable = this.#durable("agent.resume");
    const journal = await RunJournal.resume(o.store, this, durable, runId);
    if (journal.ended) return resultFromStored(journal.head.result ?? {}, runId);
    return this.#drive(journal.head.input, o.ctx ?? new RunContext(), journal);
  }

  #durable(where: string): DurableSpec {
    const durable = this.cognition.durable;
    if (!durable) {
      throw new OptionsError(
        where,
        "store",
        `${where}: agent '${this.name}' runs on ${this.cognition.constructor?.name ?? "a cognition"}, which does ` +
          `not record durable runs; a 'store' needs ReActCognition, ClaudeCliCognition or CodexCliCognition`,
      );
    }
    return durable;
  }

  async #drive(task: string, ctx: RunContext, journal?: RunJournal): Promise<AgentResult> {
    ctx.emit("agent.start", { agent: this.name, task, ...(journal ? { runId: journal.runId } : {}) });
    let result: AgentResult;
    if (!journal) result = await this.cognition.run({ task, agent: this, ctx });
    else {
      try {
        result = await this.cognition.run({ task, agent: this, ctx, journal });
        result = Object.freeze({ ...result, runId: journal.runId });
        await journal.end(result);
      } catch (err) {
        // The store stopped taking steps: the run stops here, resumable from what was written.
        const error = new Error(
          `run '${journal.runId}' stopped: its step could not be recorded (${errorLine(err)}); resume it once the store is back`,
          { cause: err },
        );
        result = Object.freeze({ output: "", stopReason: "error", steps: 0, toolCalls: [], usage: {}, error, runId: journal.runId });
      } finally {
        await journal.release();
      }
    }
    ctx.emit("agent.end", { agent: this.name, stopReason: result.stopReason, steps: result.steps });
    return result;
  }
}
