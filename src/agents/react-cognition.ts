/**
 * @module agents/react-cognition
 * `ReActCognition`: ask the model, run the tools it calls, feed the results back, repeat.
 */
import { randomUUID } from "node:crypto";
import { OptionsError } from "../errors/options.error.js";
import { Cancelled } from "../errors/cancelled.error.js";
import { pyList } from "../util/format.js";
import { invokeTool, unknownToolMessage, type Admission, type ToolOutcome } from "../tools/tool-invocation.js";
import {
  GateRecorder,
  gateVerdict,
  notRunMessage,
  timeoutVerdict,
  type GateRecord,
  type GateSubject,
  type GateVerdict,
} from "../gate/index.js";
import { checkOptions, opt, type OptionRule } from "../options/option-checks.js";
import { resultText } from "../tools/result-text.js";
import type { AgentResult, Cognition, CognitionInput, StopReason, ToolCallRecord } from "./agent.js";
import { toolFactsOf, type Asker, type ToolCall } from "../contracts/elicitation.js";
import type { LLMStreamEvent, Message, ModelStopReason } from "../contracts/llm.js";
import type { RunContext } from "../context/run-context.js";
import type { Tool, ToolSchema } from "../tools/tool.js";
import { isToolContent } from "../tools/tool-content.js";
import type { PastCall, PastQuestion, RunJournal } from "./run-journal.js";

/** A call of a durable run: its journal and its key there (`<step>.<index>`). */
interface Journaled {
  readonly journal: RunJournal;
  readonly key: string;
}

/** How one call is put to the gate: the approval of a call, or a resume's "run it again?". */
interface Settling {
  readonly args: Record<string, unknown>;
  readonly via: string;
  readonly question: string;
  readonly requiresApproval: boolean;
  readonly purpose: PastQuestion["purpose"];
  /** For a resume question: the start it is about. */
  readonly start: number;
  /** The question asked before, when the run asked it before it stopped. */
  readonly past: PastQuestion | undefined;
}

const CANCELLED = Symbol("cancelled");

/** `work`, or, when `ctx` is cancelled first, what `instead` gives (`work` is left to settle unheard). */
async function unlessCancelled<T>(ctx: RunContext, work: Promise<T>, instead: () => Promise<T>): Promise<T> {
  let off: () => void = () => undefined;
  const cancelled = new Promise<typeof CANCELLED>((resolve) => (off = ctx.onCancel(() => resolve(CANCELLED))));
  try {
    const first = await Promise.race([work, cancelled]);
    return first === CANCELLED ? await instead() : first;
  } finally {
    off();
  }
}

/** Options of a `ReActCognition`. */
export interface ReActOptions {
  /** The tools the model may call (any `Tool`: local, `@Tool`-built or MCP-adapted). */
  readonly tools: Iterable<Tool>;
  /** Model turns before stopping with `"max_steps"`. Default 10. */
  readonly maxSteps?: number;
  /** The deadline for an Asker's answer to a gated call, enforced here (source `timeout`); unset waits forever. */
  readonly approvalTimeoutMs?: number;
  /**
   * A JSONL audit file (created 0600; its directory must exist): one fsync'd
   * line per tool call the gate settled — ungated ones too (source
   * `autonomy`) — before the call runs. When a line cannot be written, an
   * allow becomes a deny (the gate recorder's one policy).
   */
  readonly auditPath?: string;
}

/** The options a `ReActCognition` accepts, declared once. */
const REACT_OPTIONS = {
  tools: opt.required(
    opt.that<Iterable<Tool>>(
      (v) => typeof v === "object" && v !== null && typeof (v as Iterable<Tool>)[Symbol.iterator] === "function",
      "an array (or other iterable) of tools",
    ),
    "an array of tools, e.g. ToolRegistry.fromTools([...]).tools() or []",
  ),
  maxSteps: opt.positiveInt(10),
  approvalTimeoutMs: opt.timeoutMs(),
  auditPath: opt.string("a file path", true),
} satisfies Record<keyof ReActOptions, OptionRule<unknown>>;

/** The `onEvent` of one step's request: stream events become `llm.delta` / `llm.tool_call` on `ctx`. */
function streamEvents(ctx: RunContext, step: number): (event: LLMStreamEvent) => void {
  return (e) => {
    if (e.type === "text") ctx.emit("llm.delta", { step, text: e.text });
    else if (e.type === "tool_call") ctx.emit("llm.tool_call", { step, id: e.id, tool: e.name });
  };
}

/** `record`, plus the tool's content parts when it returned a `ToolContent` (images for a vision-capable model). */
function withParts(record: ToolCallRecord, value: unknown): ToolCallRecord {
  return isToolContent(value) ? Object.freeze({ ...record, parts: value.parts }) : record;
}

/**
 * The ReAct loop over local tools. Uses `ctx.llm`. Each call is gated by
 * `shouldGate(tool, { keyStep: tool.sideEffecting, autonomy: ctx.autonomy })`;
 * a gated call is settled by the approval engine (`gate/`: it asks
 * `ctx.asker` under `approvalTimeoutMs` and the run's signal, handing it
 * `{ signal, questionId }`). Every call to a known tool is recorded through
 * the gate's recorder (`decisions`, the `auditPath` file, `gate.check` on
 * `ctx`, `via: "react"`); a call the tier leaves ungated is recorded as
 * source `autonomy`, as `ApprovalServer` does. A refused, failed or
 * malformed call is reported back to the model as the tool's result, so the
 * model can route around it; the run ends with `"error"` only when the model
 * itself fails.
 *
 * Events besides the tool and gate ones, for a UI that shows a run live:
 * - `llm.delta` `{ step, text }`: a piece of the model's text, as a streaming
 *   provider reports it (before `llm.turn` of the same step);
 * - `llm.tool_call` `{ step, id, tool }`: the model started a tool call (its
 *   arguments may still be arriving);
 * - `llm.request` `{ step, model }`: a turn's request is about to be sent;
 * - `llm.turn` `{ step, content, toolCalls, stopReason?, model?, usage? }`: the
 *   whole turn (`stopReason`, the answering `model` and token `usage` when the
 *   provider reported them).
 * A provider that does not stream (e.g. `FakeLLM`) emits only `llm.turn`.
 * When the last turn's provider reported why it stopped, the result's
 * `details.modelStopReason` says so (`max_tokens` means the text was cut).
 */
export class ReActCognition implements Cognition {
  readonly tools: readonly Tool[];
  readonly maxSteps: number;
  /** The deadline for an Asker's answer, or `undefined` (forever). */
  readonly approvalTimeoutMs: number | undefined;
  private readonly byName: Map<string, Tool>;
  private readonly recorder: GateRecorder;
  /**
   * The schemas the model is shown (tools with `schema: null` left out): one list for every turn, so a provider can
   * keep its converted form.
   */
  private readonly schemas: readonly ToolSchema[];

  /**
   * @throws OptionsError for an unknown option, a missing required one or a
   *   value of the wrong kind (or `null` options), naming what is accepted.
   */
  constructor(options: ReActOptions) {
    const o = checkOptions(options, "ReActCognition", REACT_OPTIONS);
    this.tools = Object.freeze([...o.tools]);
    this.schemas = Object.freeze(this.tools.map((t) => t.schema).filter((s): s is ToolSchema => s !== null));
    this.maxSteps = o.maxSteps;
    this.approvalTimeoutMs = o.approvalTimeoutMs;
    this.recorder = new GateRecorder({ auditPath: o.auditPath, where: "ReActCognition" });
    this.byName = new Map();
    for (const t of this.tools) {
      if (this.byName.has(t.name))
        throw new OptionsError("ReActCognition", "options", `ReActCognition: two tools are named '${t.name}'; give one a prefix`);
      this.byName.set(t.name, t);
    }
  }

  /** Every call the gate settled, over this cognition's life, in order (a live, read-only view). */
  get decisions(): readonly GateRecord[] {
    return this.recorder.decisions;
  }

  /** What a durable run records and a resume compares: this cognition's tools. */
  get durable(): { readonly tools: readonly Tool[] } {
    return { tools: this.tools };
  }

  /** Runs the ReAct loop for `task`: model turns and tool calls until a final answer, a step limit or a stop; recorded step by step when `journal` is set. */
  async run({ task, agent, ctx, journal }: CognitionInput): Promise<AgentResult> {
    const llm = ctx.llm;
    const calls: ToolCallRecord[] = [];
    const usage: Record<string, number> = {};
    const schemas = this.schemas;
    const messages: Message[] = [];
    if (agent.prompt) messages.push({ role: "system", content: agent.prompt });
    messages.push({ role: "user", content: task });
    let modelStop: ModelStopReason | undefined;
    const done = (output: string, stopReason: StopReason, steps: number, error?: Error): AgentResult => {
      const result: { -readonly [K in keyof AgentResult]: AgentResult[K] } = { output, stopReason, steps, toolCalls: calls, usage };
      if (error) result.error = error;
      if (modelStop) result.details = Object.freeze({ modelStopReason: modelStop });
      return Object.freeze(result);
    };
    if (!llm)
      return done(
        "",
        "error",
        0,
        new OptionsError(
          "ReActCognition",
          "llm",
          `agent '${agent.name}': ReActCognition needs ctx.llm (makeTestCtx({ llm }) or new RunContext({ llm }))`,
        ),
      );
    let last = "";
    for (let step = 1; step <= this.maxSteps; step++) {
      if (ctx.cancelled) return done(last, "cancelled", step - 1);
      // A durable run's finished turn is read back, never requested again.
      let turn = journal?.turn(step);
      if (!turn) {
        ctx.emit("llm.request", { step, model: agent.model });
        try {
          turn = await llm.complete({
            model: agent.model,
            messages: [...messages],
            tools: schemas,
            signal: ctx.signal,
            onEvent: streamEvents(ctx, step),
          });
        } catch (err) {
          if (ctx.cancelled || err instanceof Cancelled) return done(last, "cancelled", step);
          return done(last, "error", step, err instanceof Error ? err : new Error(String(err)));
        }
        if (journal) await journal.recordTurn(step, turn);
      }
      const used = turn.usage;
      if (used) for (const k in used) usage[k] = (usage[k] ?? 0) + used[k]!;
      last = turn.content ?? "";
      modelStop = turn.stopReason;
      const toolCalls = turn.toolCalls ?? [];
      // Assigned, not spread (the same keys in the same order): this runs on every turn.
      const seen: Record<string, unknown> = { step, content: last, toolCalls: toolCalls.map((c) => c.name) };
      if (turn.stopReason) seen["stopReason"] = turn.stopReason;
      if (turn.model) seen["model"] = turn.model;
      if (used) seen["usage"] = used;
      ctx.emit("llm.turn", seen);
      const said: { -readonly [K in keyof Message]: Message[K] } = { role: "assistant", content: last };
      if (toolCalls.length) said.toolCalls = toolCalls;
      messages.push(said);
      if (!toolCalls.length) return done(last, "complete", step);
      for (const [i, call] of toolCalls.entries()) {
        if (ctx.cancelled) return done(last, "cancelled", step);
        const j: Journaled | undefined = journal && { journal, key: `${step}.${i}` };
        let record = j?.journal.call(j.key).finished;
        if (!record) {
          record = await this.execute(call, ctx, j);
          // A cancelled durable run stops where it is: the call stays unfinished, for a resume to settle.
          if (j && ctx.cancelled) return done(last, "cancelled", step);
          // Written behind the loop: the next model request goes out while it is (and the next turn is written after it).
          if (j) j.journal.recordFinished(j.key, record);
        }
        calls.push(record);
        messages.push({
          role: "tool",
          content: record.result,
          toolCallId: call.id,
          name: call.name,
          ...(record.parts ? { parts: record.parts } : {}),
        });
        if (ctx.cancelled) return done(last, "cancelled", step);
      }
    }
    return done(last, "max_steps", this.maxSteps);
  }

  /** One call through the core's invocation (`tools/tool-invocation`), admitted by the gate, recorded as the model reads it. */
  private async execute(call: ToolCall, ctx: RunContext, j?: Journaled): Promise<ToolCallRecord> {
    const args = call.arguments ?? {};
    const rec = (result: string, ok: boolean, used = args): ToolCallRecord =>
      Object.freeze({ id: call.id, name: call.name, arguments: used, result, ok });
    const t = this.byName.get(call.name);
    const past = j?.journal.call(j.key);
    ctx.emit("tool.call", { id: call.id, tool: call.name });
    let outcome: ToolOutcome | undefined;
    if (t && j && past && past.starts > 0) {
      const again = await this.rerun(t, call, ctx, j, past);
      if ("refused" in again) {
        ctx.emit("tool.result", { id: call.id, tool: call.name, ok: false });
        return rec(again.refused, false, past.startedWith ?? args);
      }
      outcome = again.outcome;
    } else if (t) {
      const settling: Settling = {
        args,
        via: "react",
        question: `Allow ${t.name}?`,
        requiresApproval: t.requiresApproval,
        purpose: "gate",
        start: 0,
        past: past?.gate,
      };
      outcome = await invokeTool({
        tool: t,
        name: call.name,
        arguments: args,
        ctx,
        admit: async () => {
          const admission = await this.gate(t, call, ctx, settling, j);
          if (admission.allowed && j) await j.journal.recordStarted(j.key, t.name, admission.arguments ?? args);
          return admission;
        },
      });
    }
    ctx.emit("tool.result", { id: call.id, tool: call.name, ok: outcome?.ok === true });
    if (!outcome) return rec(unknownToolMessage(call.name, pyList([...this.byName.keys()].sort())), false);
    if (outcome.ok) return withParts(rec(resultText(outcome.value), true, outcome.arguments), outcome.value);
    // The loop's wording of a cancelled call, whether it had started or not.
    const message = outcome.reason === "cancelled" ? `the run was cancelled; '${call.name}' was not completed` : outcome.message;
    return rec(message, false, outcome.arguments);
  }

  /**
   * A call a durable run started before it stopped, and never saw finish: a
   * read-only tool runs again; a side-effecting one only when the Asker says
   * yes to a question with source `resume` (modify: with the edited
   * arguments). A refusal is the text the model reads.
   */
  private async rerun(
    t: Tool,
    call: ToolCall,
    ctx: RunContext,
    j: Journaled,
    past: PastCall,
  ): Promise<{ outcome: ToolOutcome } | { refused: string }> {
    const args = past.startedWith ?? call.arguments ?? {};
    let runWith = args;
    if (t.sideEffecting) {
      const question = `The run stopped while '${t.name}' was running, so it may or may not have taken effect. Run it again?`;
      const settling: Settling = {
        args,
        via: "resume",
        question,
        requiresApproval: true,
        purpose: "resume",
        start: past.starts,
        past: past.resume.get(past.starts),
      };
      const admission = await this.gate(t, { ...call, arguments: args }, ctx, settling, j);
      if (!admission.allowed)
        return { refused: `'${t.name}' was started before the run stopped and was not run again: ${admission.message}` };
      runWith = admission.arguments ?? args;
    }
    const outcome = await invokeTool({
      tool: t,
      name: call.name,
      arguments: runWith,
      ctx,
      admit: async () => {
        await j.journal.recordStarted(j.key, t.name, runWith);
        return { allowed: true, arguments: runWith };
      },
    });
    return { outcome };
  }

  /**
   * Settle one call with the approval engine (ungated: source `autonomy`) and
   * record it; never throws. In a durable run the question is written to the
   * run before the Asker is asked, under the id it had before the run stopped
   * (so the Asker finds an answer given meanwhile), and its deadline is the
   * one it had: a deadline that passed while no process was alive is a
   * timeout, in the same words as before a restart.
   */
  private async gate(t: Tool, call: ToolCall, ctx: RunContext, how: Settling, j?: Journaled): Promise<Admission> {
    const questionId = how.past?.questionId ?? (j ? randomUUID() : undefined);
    const subject: GateSubject = { tool: t.name, arguments: how.args, id: call.id, via: how.via, ...(questionId ? { questionId } : {}) };
    const deadline = how.past?.deadlineAt ? Date.parse(how.past.deadlineAt) : undefined;
    let given: GateVerdict;
    if (deadline !== undefined && deadline <= Date.now()) {
      given = timeoutVerdict(subject, this.approvalTimeoutMs ?? 0);
      await withdrawTimedOut(j, questionId!, given.record.reason);
    } else {
      const ask = {
        ...subject,
        asker: j ? this.recordingAsker(ctx.asker, j, how, questionId!) : ctx.asker,
        requiresApproval: how.requiresApproval,
        keyStep: t.sideEffecting,
        autonomy: ctx.autonomy,
        timeoutMs: deadline !== undefined ? deadline - Date.now() : this.approvalTimeoutMs,
        question: how.question,
        toolFacts: toolFactsOf(t),
      };
      // A durable run's question outlives a cancelled context (the run is resumable): the gate stops waiting, the question stays.
      given = j
        ? await unlessCancelled(ctx, gateVerdict(ask), () =>
            gateVerdict({ ...ask, signal: ctx.signal, abandoned: "the run was cancelled while waiting for approval", asker: undefined }),
          )
        : await gateVerdict({ ...ask, signal: ctx.signal, abandoned: "the run was cancelled while waiting for approval" });
      if (given.record.source === "timeout" && deadline !== undefined && this.approvalTimeoutMs !== undefined)
        given = timeoutVerdict(subject, this.approvalTimeoutMs);
    }
    const verdict = await this.recorder.record(subject, given, ctx);
    return verdict.allowed ? { allowed: true, arguments: verdict.arguments } : { allowed: false, message: notRunMessage(t.name, verdict) };
  }

  /** `asker`, writing the question to the run before it is asked (once: a question asked before the run stopped is already there). */
  private recordingAsker(asker: Asker | undefined, j: Journaled, how: Settling, questionId: string): Asker | undefined {
    if (!asker) return undefined;
    const timeoutMs = this.approvalTimeoutMs;
    return {
      ask: async (request, options) => {
        if (!how.past) {
          const deadlineAt = timeoutMs === undefined ? null : new Date(Date.now() + timeoutMs).toISOString();
          await j.journal.recordQuestion(j.key, { questionId, deadlineAt, purpose: how.purpose, start: how.start });
        }
        return asker.ask(request, how.past && options ? { ...options, again: true } : options);
      },
    };
  }
}

/**
 * A question whose deadline passed while no process was alive: taken off the inbox as timed out, when the run's store
 * is an inbox store (best effort).
 */
async function withdrawTimedOut(j: Journaled | undefined, questionId: string, reason: string): Promise<void> {
  const settle = (j?.journal.store as { settle?: (id: string, s: { status: "timed_out"; reason: string }) => Promise<unknown> } | undefined)
    ?.settle;
  if (typeof settle !== "function") return;
  await settle.call(j!.journal.store, questionId, { status: "timed_out", reason: `timed out: ${reason}` }).catch(() => undefined);
}
