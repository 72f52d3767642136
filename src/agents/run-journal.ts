/**
 * @module agents/run-journal
 * The journal of a durable run: what the agent loop writes to a `RunStore`
 * before each next step (a model turn, a question, a tool call started, a
 * tool call finished), and, on resume, what it reads back so a finished
 * turn is never requested again and a finished call never run again. Also
 * the agent's fingerprint (name, model, instructions, tools) that a resume
 * compares, and the checks of what was read (format, truncated steps).
 */
import { createHash, randomUUID } from "node:crypto";
import { RunResumeError } from "../errors/run-resume.error.js";
import { RUN_STATE_FORMAT, type RunHead, type RunStatus, type RunStep, type RunStepKind, type RunStore } from "../contracts/run-record.js";
import type { LLMTurn } from "../contracts/llm.js";
import type { Tool } from "../tools/tool.js";
import { errorLine } from "../util/format.js";
import type { AgentResult, StopReason, ToolCallRecord } from "./agent-result.js";

/** What the journal needs of an agent: its identity and its tools. */
export interface JournaledAgent {
  readonly name: string;
  readonly model: string;
  readonly prompt: string;
}

/** What a durable cognition offers a run's fingerprint: its tools, and for a cognition that owns its loop (a CLI) which CLI and model. */
export interface DurableSpec {
  readonly tools: readonly Tool[];
  /** E.g. `{ cli: "claude", model: "sonnet" }`: a resume on another CLI or model is refused. */
  readonly cognition?: Readonly<Record<string, string>>;
}

/** A tool as the fingerprint keeps it. */
interface ToolPrint {
  readonly schema: string;
  readonly sideEffecting: boolean;
  readonly requiresApproval: boolean;
  readonly caps: readonly string[];
}

/** JSON with object keys sorted, so equal values give equal text. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

/**
 * The fingerprint of `agent` with `tools` (and, for a cognition that owns its
 * loop, such as a CLI, `cognition`: which CLI and model): what a resume must
 * find unchanged.
 */
export function agentFingerprint(
  agent: JournaledAgent,
  tools: readonly Tool[],
  cognition?: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const printed: Record<string, ToolPrint> = {};
  for (const t of tools) {
    printed[t.name] = {
      schema: createHash("sha256").update(canonical(t.schema)).digest("hex").slice(0, 16),
      sideEffecting: t.sideEffecting,
      requiresApproval: t.requiresApproval,
      caps: [...t.caps].sort(),
    };
  }
  return {
    agent: agent.name,
    model: agent.model,
    instructions: createHash("sha256").update(agent.prompt).digest("hex").slice(0, 16),
    tools: printed,
    ...(cognition ? { cognition } : {}),
  };
}

/** Each difference between a stored fingerprint and the agent's now, in words (empty: the same agent). */
export function fingerprintChanges(stored: Readonly<Record<string, unknown>>, now: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  if (stored.agent !== now.agent) out.push(`name: '${String(stored.agent)}' -> '${String(now.agent)}'`);
  if (stored.model !== now.model) out.push(`model: '${String(stored.model)}' -> '${String(now.model)}'`);
  if (stored.instructions !== now.instructions) out.push("instructions (the prompt) changed");
  if (canonical(stored.cognition) !== canonical(now.cognition))
    out.push(`cognition: ${canonical(stored.cognition ?? "a ReActCognition")} -> ${canonical(now.cognition ?? "a ReActCognition")}`);
  const was = (stored.tools ?? {}) as Record<string, ToolPrint>;
  const is = (now.tools ?? {}) as Record<string, ToolPrint>;
  for (const name of Object.keys(was).sort()) {
    const a = was[name]!;
    const b = is[name];
    if (!b) {
      out.push(`tool '${name}' is gone`);
      continue;
    }
    if (a.schema !== b.schema) out.push(`tool '${name}': its schema changed`);
    if (a.sideEffecting !== b.sideEffecting)
      out.push(`tool '${name}': sideEffecting ${String(a.sideEffecting)} -> ${String(b.sideEffecting)}`);
    if (a.requiresApproval !== b.requiresApproval)
      out.push(`tool '${name}': requiresApproval ${String(a.requiresApproval)} -> ${String(b.requiresApproval)}`);
    if (canonical(a.caps) !== canonical(b.caps)) out.push(`tool '${name}': caps ${canonical(a.caps)} -> ${canonical(b.caps)}`);
  }
  for (const name of Object.keys(is).sort()) if (!was[name]) out.push(`tool '${name}' is new`);
  return out;
}

/** A question a call asked (the approval, or a resume's "run it again?"). */
export interface PastQuestion {
  readonly questionId: string;
  /** ISO 8601, or null (no deadline). */
  readonly deadlineAt: string | null;
  /** `gate`: the call's approval; `resume`: whether to run a started call again (for its `start`-th start). */
  readonly purpose: "gate" | "resume";
  readonly start: number;
}

/** What the journal knows of one call (by its key, `<step>.<index>`). */
export interface PastCall {
  gate?: PastQuestion;
  /** Resume questions, by the start they are about. */
  readonly resume: Map<number, PastQuestion>;
  /** How many times it was started (its arguments the last time). */
  starts: number;
  startedWith?: Record<string, unknown>;
  finished?: ToolCallRecord;
}

const STEP_KINDS: readonly RunStepKind[] = ["turn", "question", "call_started", "call_finished", "cli_session"];

/** The session a CLI cognition's run goes on in (the CLI's own id, which its resume flag takes). */
export interface CliSession {
  /** Which CLI: `claude` or `codex`. */
  readonly cli: string;
  /** Claude Code's session id, or Codex's thread id. */
  readonly sessionId: string;
  /**
   * The mark the session's processes carry in their environment (so a resume can end a CLI a dead worker left running);
   * default `sessionId`.
   */
  readonly mark?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Why step `s` cannot be read (`undefined` when it can). */
function stepProblem(s: RunStep, expectedSeq: number): string | undefined {
  if (!isObject(s)) return "it is not an object";
  if (s.seq !== expectedSeq) return `its number is ${String(s.seq)}, expected ${expectedSeq} (a step is missing)`;
  if (!STEP_KINDS.includes(s.kind)) return `its kind ${JSON.stringify(s.kind)} is none of ${STEP_KINDS.join(", ")}`;
  const d = s.data;
  if (!isObject(d)) return "it has no data";
  const need = (k: string, test: (v: unknown) => boolean, what: string): string | undefined =>
    test(d[k]) ? undefined : `its '${k}' is missing or not ${what}`;
  const str = (v: unknown) => typeof v === "string";
  switch (s.kind) {
    case "turn":
      return need("step", Number.isInteger, "a step number") ?? need("content", str, "text") ?? need("toolCalls", Array.isArray, "a list");
    case "question":
      return (
        need("key", str, "a call key") ??
        need("questionId", str, "a question id") ??
        need("purpose", (v) => v === "gate" || v === "resume", '"gate" or "resume"')
      );
    case "call_started":
      return need("key", str, "a call key") ?? need("arguments", isObject, "an object");
    case "cli_session":
      return (
        need("cli", str, "a CLI name") ??
        need("sessionId", (v) => str(v) && v !== "", "a session id") ??
        need("mark", (v) => v === undefined || str(v), "text")
      );
    default:
      return (
        need("key", str, "a call key") ??
        need("record", (v) => isObject(v) && typeof v.result === "string" && typeof v.ok === "boolean", "a tool call record")
      );
  }
}

/**
 * True for a store logged in in the inbox's worker role (`postgresInboxStore({ role: "worker" })`): its login sees only
 * the runs it started.
 */
const onlyOwnRuns = (store: RunStore): boolean => (store as { role?: unknown }).role === "worker";

/** What an unknown run id adds on such a store: the run may be another login's. */
const WORKER_SEES_OWN =
  ". This store logs in in the inbox's worker role, which sees only the runs its own login started: resume a run with a store on the login that started it";

/** A stored result as an `AgentResult` (its error, when it had one, as a plain `Error` with the stored message). */
export function resultFromStored(stored: Readonly<Record<string, unknown>>, runId: string): AgentResult {
  const { error, ...rest } = stored as Record<string, unknown> & { error?: { message?: string } };
  return Object.freeze({
    ...(rest as unknown as AgentResult),
    runId,
    ...(error ? { error: new Error(String(error.message ?? "the run failed")) } : {}),
  });
}

/** An `AgentResult` as plain JSON for the store. */
function storedResult(result: AgentResult): Record<string, unknown> {
  const { error, ...rest } = result;
  return JSON.parse(JSON.stringify({ ...rest, ...(error ? { error: { name: error.name, message: error.message } } : {}) })) as Record<
    string,
    unknown
  >;
}

/**
 * One durable run's journal, held by this process while the run goes on.
 * Writes go to the store in order; the first write that fails is kept
 * (`failed`) and every later write throws it, so the loop stops where the
 * store stopped taking steps.
 *
 * Fewer waits, the same order: a model turn that asks for calls is held
 * until the next write (a call's start, a question, a call's end), and goes
 * to the store with it in one write (`RunStore.appendRunSteps` when the
 * store has it), so a step waits for one round trip before its first call
 * runs; a call's end is written behind the loop (the next model request
 * goes out while it is written) and every later step is written after it.
 * A crash before that end is durable leaves a call started and not
 * finished, which a resume settles by the rules for one (read-only: run
 * again; side-effecting: only after a person says yes).
 */
export class RunJournal {
  readonly #turns = new Map<number, LLMTurn>();
  readonly #calls = new Map<string, PastCall>();
  #seq: number;
  #cliSession: CliSession | undefined;
  #failed: Error | undefined;
  /** The last write handed to the store (never rejects: its failure is kept in `#failed`). */
  #writing: Promise<void> = Promise.resolve();
  /** Steps recorded here and not yet handed to the store. */
  readonly #queue: RunStep[] = [];
  /** The write that will take the queued steps, once the one before it ended (undefined once it started). */
  #next: Promise<void> | undefined;
  /** True once the run's end was written (a finished or failed run is let go with it). */
  #letGo = false;

  private constructor(
    readonly store: RunStore,
    readonly runId: string,
    readonly head: RunHead,
    steps: readonly RunStep[],
  ) {
    this.#seq = steps.length;
    for (const s of steps) this.#read(s);
  }

  /** The first write that failed, once one has. */
  get failed(): Error | undefined {
    return this.#failed;
  }

  /** True when the run had already ended (its result is stored). */
  get ended(): boolean {
    return this.head.status === "finished" || this.head.status === "failed";
  }

  /**
   * Create run `runId` (a fresh UUID when absent) in `store`, held by its worker.
   *
   * @throws RunResumeError `duplicate_run` when the id is already there; `store` when the store failed.
   */
  static async start(
    store: RunStore,
    agent: JournaledAgent,
    durable: DurableSpec,
    input: string,
    runId: string = randomUUID(),
  ): Promise<RunJournal> {
    const now = new Date().toISOString();
    const head: RunHead = {
      runId,
      status: "running",
      agent: agent.name,
      updatedAt: now,
      createdAt: now,
      format: RUN_STATE_FORMAT,
      input,
      fingerprint: agentFingerprint(agent, durable.tools, durable.cognition),
      holder: store.worker,
    };
    try {
      await store.createRun(head);
    } catch (err) {
      // No read before the create (a statement a run would pay each time): only a refused create looks for the id.
      const existing = await store.loadRun(runId).catch(() => undefined);
      if (existing)
        throw new RunResumeError(
          "duplicate_run",
          runId,
          `run '${runId}' is already in the store (${existing.head.status}); continue it with ` +
            `agent.resume('${runId}', { store }) or give a new runId`,
        );
      throw RunJournal.#storeFailure(runId, err);
    }
    return new RunJournal(store, runId, head, []);
  }

  /**
   * Read run `runId` back, check it is this agent's and readable, and take it
   * (a lease in the store). Nothing is written unless every check passes.
   *
   * @throws RunResumeError naming the run and what is wrong; nothing ran.
   */
  static async resume(store: RunStore, agent: JournaledAgent, durable: DurableSpec, runId: string): Promise<RunJournal> {
    const loaded = await RunJournal.#load(store, runId);
    const changes = fingerprintChanges(loaded.head.fingerprint, agentFingerprint(agent, durable.tools, durable.cognition));
    if (changes.length) {
      throw new RunResumeError(
        "agent_changed",
        runId,
        `run '${runId}' was started by a different agent; nothing ran. What changed: ${changes.join("; ")}. Resume ` +
          `it with the agent it was started with, or start a new run`,
        { changes },
      );
    }
    if (loaded.head.status === "finished" || loaded.head.status === "failed")
      return new RunJournal(store, runId, loaded.head, loaded.steps);
    const claim = await RunJournal.#storeCall(runId, () => store.claimRun(runId, store.worker));
    if (!claim.ok) {
      if ("missing" in claim) throw new RunResumeError("unknown_run", runId, `run '${runId}' is not in the store any more`);
      throw new RunResumeError(
        "held",
        runId,
        `run '${runId}' is held by worker '${claim.holder}', which is still alive; it resumes there (or here once ` +
          `that worker stops and its lease lapses)`,
        { holder: claim.holder },
      );
    }
    // Read again under the lease when a worker that died after the first read wrote more (or the store does not say).
    const held = claim.steps === loaded.steps.length ? loaded : await RunJournal.#load(store, runId);
    return new RunJournal(store, runId, held.head, held.steps);
  }

  static async #load(store: RunStore, runId: string): Promise<{ head: RunHead; steps: readonly RunStep[] }> {
    if (typeof runId !== "string" || runId.trim() === "")
      throw new RunResumeError(
        "unknown_run",
        String(runId),
        `agent.resume: the run id must be a non-empty string, got ${JSON.stringify(runId)}`,
      );
    const loaded = await RunJournal.#storeCall(runId, () => store.loadRun(runId));
    if (!loaded)
      throw new RunResumeError(
        "unknown_run",
        runId,
        `there is no run '${runId}' in the store; store.runs() (or \`agentkit runs\`) lists the runs it ` +
          `holds${onlyOwnRuns(store) ? WORKER_SEES_OWN : ""}`,
      );
    const { head, steps } = loaded;
    if (head.format !== RUN_STATE_FORMAT) {
      throw new RunResumeError(
        "unreadable",
        runId,
        `run '${runId}' was written in run state format ${JSON.stringify(head.format)} (another version of ` +
          `arc-agentkit); this version reads format ${RUN_STATE_FORMAT} only. Resume it with the version that ` +
          `started it; nothing ran`,
      );
    }
    if (!isObject(head.fingerprint) || typeof head.input !== "string")
      throw new RunResumeError(
        "unreadable",
        runId,
        `run '${runId}' is truncated: its ${typeof head.input !== "string" ? "input" : "fingerprint"} is missing; nothing ran`,
      );
    steps.forEach((s, i) => {
      const problem = stepProblem(s, i + 1);
      if (problem)
        throw new RunResumeError(
          "unreadable",
          runId,
          `run '${runId}' is truncated or damaged at step ${i + 1} of ${steps.length}: ${problem}; nothing ran`,
        );
    });
    return loaded;
  }

  static async #storeCall<T>(runId: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw RunJournal.#storeFailure(runId, err);
    }
  }

  /** The error for a run store that failed `runId`'s start or resume (nothing ran). */
  static #storeFailure(runId: string, err: unknown): RunResumeError {
    return new RunResumeError("store", runId, `run '${runId}': the run store failed (${errorLine(err)}); nothing ran`, { cause: err });
  }

  /** The recorded model turn `step`, when it finished before. */
  turn(step: number): LLMTurn | undefined {
    return this.#turns.get(step);
  }

  /** What is known of call `key`. */
  call(key: string): PastCall {
    let c = this.#calls.get(key);
    if (!c) this.#calls.set(key, (c = { resume: new Map(), starts: 0 }));
    return c;
  }

  /** The CLI session this run goes on in, once one was recorded. */
  get cliSession(): CliSession | undefined {
    return this.#cliSession;
  }

  /** Record the CLI session the run goes on in (a CLI cognition, before it lets the CLI take its first step). */
  recordCliSession(session: CliSession): Promise<void> {
    return this.#append("cli_session", {
      cli: session.cli,
      sessionId: session.sessionId,
      ...(session.mark !== undefined ? { mark: session.mark } : {}),
    });
  }

  /**
   * Record model turn `step`. A turn that asks for calls is held and written with the next step (before its first call
   * runs or asks: a call's start, question or end); a turn without calls is written now. Rejects with the first write
   * that failed.
   */
  recordTurn(step: number, turn: LLMTurn): Promise<void> {
    const data: Record<string, unknown> = { step, content: turn.content ?? "", toolCalls: turn.toolCalls ?? [] };
    if (turn.stopReason) data.stopReason = turn.stopReason;
    if (turn.usage) data.usage = turn.usage;
    if (turn.model) data.model = turn.model;
    return turn.toolCalls?.length ? this.#hold("turn", data) : this.#append("turn", data);
  }

  /** Record that call `key` asks `question` (before the Asker is asked). */
  recordQuestion(key: string, question: PastQuestion): Promise<void> {
    return this.#append("question", { key, ...question });
  }

  /** Record that call `key` starts with `args` (before the tool runs). */
  recordStarted(key: string, name: string, args: Record<string, unknown>): Promise<void> {
    return this.#append("call_started", { key, name, arguments: args });
  }

  /**
   * Record how call `key` ended, behind the loop: the write starts now and every later step is written after it, but
   * the loop does not wait for it (a failure is thrown by the next write). Throws at once when a write failed before.
   */
  recordFinished(key: string, record: ToolCallRecord): void {
    if (this.#failed) throw this.#failed;
    this.#append("call_finished", { key, record: JSON.parse(JSON.stringify(record)) as Record<string, unknown> }).catch(() => undefined);
  }

  /**
   * The run ended: `finished` (or `failed` for an error) with its result, which also lets go of it (the store's
   * contract); a cancelled run is left as it stands, resumable.
   */
  async end(result: AgentResult): Promise<void> {
    if (result.stopReason === "cancelled" || this.#failed) return;
    const status: RunStatus = (result.stopReason as StopReason) === "error" ? "failed" : "finished";
    await this.#flush();
    await this.store.setRunStatus(this.runId, this.store.worker, status, storedResult(result));
    this.#letGo = true;
  }

  /** Let go of the run's lease, unless its end did (best effort: a lease the store cannot end lapses by itself). */
  async release(): Promise<void> {
    await this.#flush().catch(() => undefined);
    if (this.#letGo) return;
    await this.store.releaseRun(this.runId, this.store.worker).catch(() => undefined);
  }

  /** Record a step and write it (with every step held before it); resolves once it is in the store. */
  #append(kind: RunStepKind, data: Record<string, unknown>): Promise<void> {
    const held = this.#hold(kind, data);
    return this.#failed ? held : this.#flush();
  }

  /** Record a step to be written with the next one (or by `end`/`release`). */
  #hold(kind: RunStepKind, data: Record<string, unknown>): Promise<void> {
    if (this.#failed) return Promise.reject(this.#failed);
    const step: RunStep = { seq: ++this.#seq, kind, data, at: new Date().toISOString() };
    this.#read(step);
    this.#queue.push(step);
    return Promise.resolve();
  }

  /** Write every queued step, after the writes before; resolves once they are in the store, rejects with the first failure. */
  #flush(): Promise<void> {
    if (!this.#queue.length)
      return this.#writing.then(() => {
        if (this.#failed) throw this.#failed;
      });
    if (!this.#next) {
      const next = this.#writing.then(() => {
        this.#next = undefined;
        if (this.#failed) throw this.#failed;
        return this.#write(this.#queue.splice(0));
      });
      this.#next = next;
      this.#writing = next.catch((err: unknown) => {
        this.#failed ??= err instanceof Error ? err : new Error(String(err));
      });
    }
    return this.#next;
  }

  /** Hand `steps` to the store: one write when it takes several at once, else one by one in order. */
  async #write(steps: readonly RunStep[]): Promise<void> {
    const { store, runId } = this;
    if (steps.length > 1 && store.appendRunSteps) return store.appendRunSteps(runId, store.worker, steps);
    for (const step of steps) await store.appendRunStep(runId, store.worker, step);
  }

  #read(s: RunStep): void {
    const d = s.data as Record<string, unknown>;
    if (s.kind === "turn") {
      this.#turns.set(
        d.step as number,
        Object.freeze({
          content: d.content as string,
          toolCalls: d.toolCalls as LLMTurn["toolCalls"],
          ...(d.stopReason ? { stopReason: d.stopReason as LLMTurn["stopReason"] } : {}),
          ...(d.usage ? { usage: d.usage as LLMTurn["usage"] } : {}),
          ...(d.model ? { model: d.model as string } : {}),
        }),
      );
      return;
    }
    if (s.kind === "cli_session") {
      this.#cliSession = Object.freeze({
        cli: d.cli as string,
        sessionId: d.sessionId as string,
        ...(typeof d.mark === "string" ? { mark: d.mark } : {}),
      });
      return;
    }
    const c = this.call(d.key as string);
    if (s.kind === "question") {
      const q: PastQuestion = {
        questionId: d.questionId as string,
        deadlineAt: (d.deadlineAt as string | null | undefined) ?? null,
        purpose: d.purpose as PastQuestion["purpose"],
        start: Number(d.start ?? 0),
      };
      if (q.purpose === "gate") c.gate = q;
      else c.resume.set(q.start, q);
    } else if (s.kind === "call_started") {
      c.starts++;
      c.startedWith = d.arguments as Record<string, unknown>;
    } else {
      c.finished = Object.freeze(d.record as unknown as ToolCallRecord);
    }
  }
}
