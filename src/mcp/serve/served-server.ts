/**
 * @module mcp/serve/served-server
 * The low-level SDK `Server` that runs a served registry's tools, and its
 * `tools/call` handler: the error contract (the handler never throws), the
 * deadline, the two cancellation rows, and the optional guard. The dispatch
 * path validates synchronously and awaits the tool's `run()` once.
 */
import type {
  CallToolRequest,
  CallToolResult,
  JSONRPCNotification,
  JsonSchemaValidator,
  jsonSchemaValidator,
  MessageExtraInfo,
  ServerContext,
} from "@modelcontextprotocol/server";
import { resultText } from "../../tools/result-text.js";
import { isToolContent } from "../../tools/tool-content.js";
import { contentBlocksOf, isRichToolResult } from "../../tools/mcp-content.js";
import type { RunContext } from "../../context/run-context.js";
import type { Caller } from "../../context/caller.js";
import { endRequest, incomingRequest } from "../../context/run-observer.js";
import { Cancelled } from "../../errors/cancelled.error.js";
import { ClientGaveUp } from "../../errors/client-gave-up.error.js";
import { ToolArgumentError } from "../../errors/tool-argument.error.js";
import type { Tool } from "../../tools/tool.js";
import { cancelledMessage, invokeTool, unknownToolMessage, type ToolOutcome } from "../../tools/tool-invocation.js";
import type { CacheHint } from "../../tools/served-options.js";
import { sdkServer, type SdkServer } from "../peers/sdk-server.js";
import type { ServedCatalog, ServedTool } from "./served-catalog.js";
import { CallChannel } from "./call-channel.js";
import { DEFAULT_HEARTBEAT_MS, RequestProgress, startHeartbeat, waited } from "./heartbeat.js";
import { loopbackCaller, registerExtraHandlers, servedCapabilities, type CallerOf, type SessionState } from "./extra-handlers.js";
import { ServedExtras } from "./served-extras.js";
import { envelopeClient, InputRounds, SuspendedCalls, type AskMethod, type CallRounds } from "./suspended-calls.js";
import { ReplayRounds } from "./replay-rounds.js";
import { RequestStateSigner } from "./request-state.js";
import { admittedBy, recordOwner, RoundRecords, type RoundCall } from "./round-records.js";
import type { CallRecord, CallRecordStore } from "../../contracts/call-record.js";
import { MemoryCallRecords } from "../../records/memory-call-records.js";
import type { Admission } from "../../tools/tool-invocation.js";
import { TASKS_EXTENSION, type ServedTasks, type TaskCall } from "./served-tasks.js";
import { READ_RESULT, resultChars, ServedResults, type ResultsOptions } from "./served-results.js";
import { AgentkitError } from "../../errors/agentkit.error.js";
import { errorLine } from "../../util/format.js";
import { PACKAGE_VERSION } from "../../util/package-version.js";

/** What a guard is asked before a served tool runs. */
export interface ToolGuardRequest {
  /** The tool about to run. */
  readonly tool: Tool;
  /** Its wire name. */
  readonly name: string;
  /** `mcp__<server>__<name>`. */
  readonly qualifiedName: string;
  /** The call's arguments as received (already checked against the tool's schema when the tool can check them). */
  readonly arguments: Record<string, unknown>;
  /** The call's context (cancelled with the run, or when the client cancels the request). */
  readonly ctx: RunContext;
  /** The model's tool-use id when the client sent one in the request's `_meta` (the Claude CLI: `claudecode/toolUseId`). */
  readonly toolUseId?: string;
}

/** A guard's answer: run (optionally with replaced arguments), or refuse with the text the model reads. */
export type ToolGuardResult =
  { readonly allowed: true; readonly arguments?: Record<string, unknown> } | { readonly allowed: false; readonly message: string };

/**
 * Consulted (only when given) after the cancellation check and argument
 * validation (a malformed call is refused with the `ToolArgumentError` text,
 * nobody asked), before `run()`. A denial becomes an `isError` result whose
 * text is `message`; the tool body never runs. A guard that throws or rejects
 * is a denial too (`tool 'x' was not run: its guard failed: ...`).
 */
export type ToolGuard = (request: ToolGuardRequest) => Promise<ToolGuardResult>;

/** Options of the served server. */
export interface ServedServerOptions {
  /** The run context each call's child context derives from. */
  readonly ctx: RunContext;
  /** The per-call deadline in ms; `undefined` waits forever. */
  readonly timeoutMs?: number;
  /** A pending call silent this long sends its client a progress heartbeat; 0 never (see `mcp/serve/heartbeat`). Default 30,000. */
  readonly heartbeatMs?: number;
  /**
   * The words of a heartbeat, for a server whose tools wait on something of
   * their own (the approval server's `approve` waits on a person): given the
   * call's arguments and how long it has waited. Default: `'x' is waiting for
   * approval (…)` before the tool runs, `'x' is still running (…)` after.
   */
  readonly heartbeatText?: (args: Record<string, unknown>, waitedMs: number) => string;
  /**
   * The tool list never changes and the tools never log (the approval
   * server): declare `tools` alone, without `listChanged` or `logging`, so a
   * 2026-07-28 client opens no `subscriptions/listen` stream beside each call.
   */
  readonly fixedTools?: boolean;
  readonly guard?: ToolGuard;
  /** Resources and prompts served beside the tools (default none). */
  readonly extras?: ServedExtras;
  /** Filled with every live session's server (for `list_changed`); a closed one leaves it. */
  readonly live?: Set<SdkServer>;
  /** The 2026-07-28 calls waiting on their client's answer (default: a fresh table with the default cap and expiry). */
  readonly suspended?: SuspendedCalls;
  /**
   * Stateless serving (`arc-agentkit/express`), with the fleet's signer of
   * request states: a 2026-07-28 question ends the run and the retry runs
   * the tool again with the answers its record holds (see `replay-rounds`);
   * a 2025-era client cannot be asked (no session), and the tool's
   * `ctx.elicit()` / `ctx.sample()` say so. Unset: loopback, where a
   * question suspends the run in this process, signed with a random key of
   * the module.
   */
  readonly replay?: RequestStateSigner;
  /**
   * Where the module's waiting calls are recorded (`contracts/call-record`):
   * a 2026-07-28 call that asks is a record there before its question
   * leaves, and each round is answered once on every process sharing it.
   * Default: one in-process `MemoryCallRecords` per options object (one
   * served module). A fleet needs one store shared by every process.
   */
  readonly records?: CallRecordStore;
  /** Who is calling: each request's `ctx.caller` (default `loopbackCaller`; stdio and the hosted router pass their own). */
  readonly callerOf?: CallerOf;
  /** The cache hint of the 2026-07-28 list results (default none: the SDK's `{ ttlMs: 0, cacheScope: "private" }`). */
  readonly cacheHint?: CacheHint;
  /** MCP tasks (`io.modelcontextprotocol/tasks`): the module's store and defaults; absent, no call becomes a task. */
  readonly tasks?: ServedTasks;
  /** Results within a budget (see `served-results`): absent, every result goes out whole. */
  readonly results?: ServedResults;
}

/**
 * A module's results within a budget. Budgets are on unless the module says
 * `results: false` and none of its tools declares `maxResultChars` (then
 * `undefined`: every result goes out whole, and nothing is added). Adds the
 * module's `read_result` tool to `catalog` and its `agentkit://results/{id}`
 * resource to `extras`. A module tool of its own named `read_result` is
 * refused (code `mcp_name`), naming why.
 */
export function serveResults(
  catalog: ServedCatalog,
  extras: ServedExtras | undefined,
  option: ResultsOptions | false | undefined,
): ServedResults | undefined {
  if (option === false && !catalog.tools.some((s) => s.tool.maxResultChars !== undefined)) return undefined;
  const results = new ServedResults(catalog.server, option);
  const reader = results.reader;
  const held = catalog.byName.get(READ_RESULT);
  if (held && held.tool !== reader) {
    throw new AgentkitError(
      "mcp_name",
      `tool '${held.tool.name}' serves as '${READ_RESULT}', the name of the module's own tool that reads results ` +
        `over their budget (see the 'results' option); rename it, or serve with results: false`,
    );
  }
  if (!held) catalog.add(reader);
  if (extras && !extras.byKey(results.resourceTemplate)) extras.addResource(results.resource());
  return results;
}

/** Counts `tools/call` requests that reached the server (unknown names included). */
export interface CallCounter {
  calls: number;
  /** Calls in flight: each entry ends its call with "the server stopped" (see `stopInflight`). */
  readonly inflight?: Set<() => void>;
}

/** A fresh counter with an in-flight set. */
export function newCallCounter(): CallCounter {
  return { calls: 0, inflight: new Set() };
}

/**
 * End every call still in flight with an `isError` result (`the server stopped
 * while 'x' was running`) and cancel its context, so a client waiting on it
 * gets an answer instead of a stream that just closes. Used by `stop()`.
 */
export function stopInflight(counter: CallCounter): void {
  const pending = [...(counter.inflight ?? [])];
  counter.inflight?.clear();
  for (const stop of pending) stop();
}

type Extra = ServerContext;

function textResult(text: string, isError: boolean): CallToolResult {
  return isError ? { content: [{ type: "text", text }], isError: true } : { content: [{ type: "text", text }] };
}

/**
 * A non-string return value as a result: MCP content blocks (or a whole
 * `RichToolResult`) unchanged, a `ToolContent`'s parts, `structuredContent`
 * (with its JSON as text) for a tool declaring an `outputSchema`, otherwise
 * today's text. Kept off the string path, which stays one `typeof`.
 */
export function valueResult(value: unknown, served: ServedTool): CallToolResult {
  if (isRichToolResult(value)) return value as unknown as CallToolResult;
  if (isToolContent(value)) return { content: value.parts.map((p) => ({ ...p })) as CallToolResult["content"] };
  const blocks = contentBlocksOf(value);
  if (blocks) return { content: blocks as CallToolResult["content"] };
  if (served.descriptor.outputSchema && value !== null && typeof value === "object" && !Array.isArray(value)) {
    return { content: [{ type: "text", text: resultText(value) }], structuredContent: value as Record<string, unknown> };
  }
  return textResult(resultText(value), false);
}

/**
 * The calls one SDK `Server` (one session) has in flight, by JSON-RPC request
 * id: a client's `notifications/cancelled` for an id cancels that call's
 * context. (Not a listener on the SDK's per-request signal: adding one costs
 * ~6 µs per call on Node 20, measured.)
 */
export type InflightCalls = Map<string | number, RunContext>;

/**
 * The `tools/call` handler of a served catalog. Never throws and never
 * rejects: every failure is an `isError` result naming the tool and the fault. `calls`
 * is the calling server's in-flight map (see `InflightCalls`). The call runs
 * through the core's one invocation (`tools/tool-invocation`), the guard as its
 * admission step and `timeoutMs` as its deadline.
 */
export function makeCallHandler(
  catalog: ServedCatalog,
  options: ServedServerOptions,
  counter: CallCounter,
): (request: CallToolRequest, extra: Extra, calls: InflightCalls, session?: SessionState) => Promise<CallToolResult> {
  const suspended = options.suspended ?? new SuspendedCalls();
  const rounds = roundRecordsOf(options, catalog.server, suspended.ttlMs);
  return (request, extra, calls, session) => {
    counter.calls++;
    const name = request.params.name;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    // A 2026-07-28 retry carrying a requestState: the store takes its answer once (or it is refused, naming why).
    const state = extra.mcpReq.envelope ? extra.mcpReq.requestState() : undefined;
    const call: RoundCall = { tool: name, args, extra };
    // Stateless: the retry runs the tool again, its earlier questions answered from the call's record.
    if (state !== undefined && options.replay)
      return rounds
        .open(state, call)
        .then((claim) => rounds.take(claim, undefined, call))
        .then((taken) => begin(taken.record));
    if (state !== undefined) return resumeCall(rounds, suspended, call, calls);
    return begin(undefined);
    function begin(record: CallRecord | undefined): Promise<CallToolResult> {
      const served = catalog.byName.get(name);
      if (!served) return Promise.resolve(textResult(unknownToolMessage(name, catalog.available), true));
      if (options.ctx.cancelled) return Promise.resolve(textResult(cancelledMessage(name, false), true));
      // --- MCP tasks (see served-tasks): refused before anything runs when the tool needs a task the client cannot
      // take (a call run again from its record never becomes one).
      const plan = options.tasks && record === undefined ? options.tasks.plan(served.tool.task, extra, name) : undefined;
      if (plan?.kind === "refuse") return plan.error ? Promise.reject(plan.error) : Promise.resolve(textResult(plan.text!, true));
      const tasking = plan?.kind === "task" ? (served.tool.task ?? "auto") : undefined;
      // --- end MCP tasks
      return new ServedCall(
        { catalog, options, counter, suspended, rounds, served, args, record, tasking },
        { request, extra, calls, session },
      ).result;
    }
  };
}

/** One `RoundRecords` per options object (one served module, however many catalog views serve it). */
const moduleRounds = new WeakMap<ServedServerOptions, RoundRecords>();

function roundRecordsOf(options: ServedServerOptions, server: string, ttlMs: number): RoundRecords {
  let rounds = moduleRounds.get(options);
  if (!rounds) {
    // Loopback: a random key of this module; the state is bound to the request's Authorization header.
    const signer =
      options.replay ?? new RequestStateSigner(undefined, ttlMs, (extra) => extra.http?.req?.headers.get("authorization") ?? "");
    rounds = new RoundRecords(options.records ?? options.tasks?.store ?? new MemoryCallRecords(), signer, server, (extra) =>
      recordOwner(server, (options.callerOf ?? loopbackCaller)(extra, server)),
    );
    moduleRounds.set(options, rounds);
  }
  return rounds;
}

/** The request one served call starts from (a call that becomes an MCP task lets it go once the handle is out). */
interface ServedCallRequest {
  readonly request: CallToolRequest;
  readonly extra: Extra;
  readonly calls: InflightCalls;
  readonly session: SessionState | undefined;
}

/** What one served call keeps for its whole life. */
interface ServedCallLife {
  readonly catalog: ServedCatalog;
  readonly options: ServedServerOptions;
  readonly counter: CallCounter;
  readonly suspended: SuspendedCalls;
  readonly rounds: RoundRecords;
  readonly served: ServedTool;
  readonly args: Record<string, unknown>;
  /** A replayed (hosted) call's record, its latest round answered (`undefined` on a call's first run). */
  readonly record: CallRecord | undefined;
  /** The call may become an MCP task (the client declared the extension): how (`"auto"` or `"required"`). */
  readonly tasking?: "auto" | "required" | "never";
}

/**
 * One served call: its own context (cancelled with the run, when the client
 * cancels the request, at the deadline, or when the server stops; released
 * when the call ends), its exchange(s) with the client, and the wording of
 * who ended it. `onCancel()` is a plain callback on this call's own context:
 * no listener on a long-lived signal, and no AbortController unless the tool
 * reads ctx.signal.
 */
class ServedCall implements CallRounds {
  readonly result: Promise<CallToolResult>;
  private resolve!: (r: CallToolResult) => void;
  private reject!: (err: unknown) => void;
  private settled = false;
  private running = false;
  private stopped = false;
  private readonly name: string;
  private readonly child: RunContext;
  private readonly traced: ReturnType<typeof incomingRequest>;
  private exchange: Exchange | undefined;
  /** A 2026-07-28 call's channel: its questions go through `ask()`. */
  private readonly asking: CallChannel | undefined;
  /** Who called (bound into the records of what the call keeps). */
  private readonly caller: Caller;
  /** The request the call came with, until the call goes on without it (it became an MCP task). */
  private extra: Extra | undefined;
  /** The call's rounds, made by its first question (most calls never ask). */
  private rounds: InputRounds | ReplayRounds | undefined;
  /** The call's answer, once it has one. */
  private answer: CallToolResult | undefined;
  /** The guard's verdict on this run (the call's record keeps it for a run again). */
  private admitted: Admission | undefined;
  /** The call's MCP task, when it may become one (see `served-tasks`). */
  private readonly task: TaskCall | undefined;

  constructor(
    private readonly start: ServedCallLife,
    begun: ServedCallRequest,
  ) {
    const { catalog, options, served, args } = start;
    const { request, extra, session, calls } = begun;
    this.extra = extra;
    this.result = new Promise<CallToolResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    const name = (this.name = request.params.name);
    const caller = (this.caller = (options.callerOf ?? loopbackCaller)(extra, catalog.server));
    const progress = new RequestProgress(extra);
    const channel = session ? new CallChannel(session, extra, progress) : undefined;
    this.child = options.ctx.child(channel ? { caller, channel } : { caller });
    // A traced server (arc-agentkit/otel) continues the client's trace from the request's _meta.
    this.traced = incomingRequest(this.child, { method: "tools/call", server: catalog.server, name, meta: request.params._meta });
    this.exchange = new Exchange(extra, calls, this.child, progress, this.beat);
    if (channel && extra.mcpReq.envelope) {
      this.asking = channel;
      channel.rounds = this;
    }
    if (channel && options.replay && !extra.mcpReq.envelope) channel.noSession = true;
    // Cancelled before this handler ran (the SDK aborted its signal: a client's cancel, or the connection closed): the
    // child starts cancelled.
    if (extra.mcpReq.signal.aborted) this.child.cancel(cancelledEarly(extra.mcpReq.signal.reason));
    start.counter.inflight?.add(this.stop);
    const guard = options.guard;
    // Asked once per call: a hosted call run again takes the verdict its record holds.
    const earlier = admittedBy(start.record);
    // Read now: the guard's closure keeps no part of the request (a task outlives it).
    const toolUseId = toolUseIdOf(request);
    const guarded =
      guard &&
      (async (a: Record<string, unknown>) =>
        (this.admitted =
          earlier ??
          (await guard({ tool: served.tool, name, qualifiedName: served.qualifiedName, arguments: a, ctx: this.child, ...toolUseId }))));
    // --- MCP tasks: the call's task (recorded once it waits for a person, runs afterMs, or at once when required).
    const tasks = options.tasks;
    const task = (this.task =
      start.tasking && tasks
        ? tasks.call({ owner: tasks.ownerOf(caller), tool: name, arguments: args, ctx: this.child, handOut: (h) => this.handOut(h) })
        : undefined);
    const admit = task ? taskAdmission(task, guarded) : guarded;
    const invoke = (): void =>
      // A call that became a task is no longer held to the request's deadline: it ends on its own or with tasks/cancel.
      void invokeTool({
        tool: served.tool,
        name,
        arguments: args,
        ctx: this.child,
        timeoutMs: options.timeoutMs,
        onRunning: () => (this.running = true),
        ...(admit ? { admit } : {}),
        ...(task ? { outlivesDeadline: () => task.isTask } : {}),
      }).then((o) => this.answerWith(o));
    if (task && start.tasking === "required") {
      task.become("working").then(invoke, (err: unknown) => this.refuse(err));
      return;
    }
    task?.startTimer();
    // --- end MCP tasks
    invoke();
  }

  /** The call became an MCP task: the request is answered with its handle; the call goes on without the request. */
  private handOut(handle: Record<string, unknown>): void {
    this.exchange?.end();
    // The request is answered: the task lets it go (its stream, its per-request server, its session), keeping only what it runs on.
    this.exchange = undefined;
    this.extra = undefined;
    this.asking?.detach();
    this.resolve(handle as unknown as CallToolResult);
  }

  /** A `"required"` task could not be recorded (the store failed): the request gets a JSON-RPC error naming why; nothing ran. */
  private refuse(err: unknown): void {
    this.settled = true;
    this.exchange?.end();
    this.start.counter.inflight?.delete(this.stop);
    endRequest(this.traced, false);
    this.child.release();
    this.task?.dispose();
    this.reject(new (sdkServer().ProtocolError)(-32603, (err as Error).message));
  }

  /**
   * A question of this 2026-07-28 call's tool: the first makes the call's
   * rounds (`inputRounds`); a call that already has its answer makes them
   * already answered, so the question is refused as it always was.
   */
  ask(method: AskMethod, params: Record<string, unknown>): Promise<unknown> {
    // A call that may be a task asks through its task (input_required on the record, answered by tasks/update).
    if (this.task) return this.task.ask(method, params);
    if (!this.rounds) {
      this.rounds = this.inputRounds(this.asking!);
      if (this.answer) this.rounds.reply(this.answer);
    }
    return this.rounds.ask(method, params);
  }

  /** The call's one answer to the exchange holding it (through its rounds once it asked). */
  reply(result: CallToolResult): void {
    this.answer = result;
    if (this.rounds) this.rounds.reply(result);
    else this.resolve(result);
  }

  /** On 2026-07-28 a question suspends the call between exchanges: each exchange keeps its own progress, heartbeat and cancellation. */
  private inputRounds(channel: CallChannel): InputRounds | ReplayRounds {
    const { suspended, rounds, args, options, record } = this.start;
    const extra = this.extra!;
    const call: RoundCall = { tool: this.name, args, extra, admitted: () => this.admitted };
    // Stateless: a question ends the run; the retry runs it again with the record's answers (see `replay-rounds`).
    if (options.replay) return new ReplayRounds(rounds, record, call, this.child, this.resolve as (r: unknown) => void);
    const moves = {
      suspended: () => this.exchange?.end(),
      resumed: (next: Extra, nextCalls: InflightCalls) => {
        const exchange = (this.exchange = new Exchange(next, nextCalls, this.child, new RequestProgress(next), this.beat));
        channel.rebind(next, exchange.progress);
      },
    };
    return new InputRounds(suspended, rounds, call, this.child, moves, this.resolve as (r: unknown) => void, () => envelopeClient(extra));
  }

  /** A person may take their time (a guard asking), and so may a tool: the client hears "still waiting". */
  private readonly beat = (p: RequestProgress): (() => void) =>
    startHeartbeat(p, this.start.options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS, (ms) => {
      const words = this.start.options.heartbeatText;
      if (words) return words(this.start.args, ms);
      return this.running ? `'${this.name}' is still running (${waited(ms)})` : `'${this.name}' is waiting for approval (${waited(ms)})`;
    });

  /** The server stops: answer now (before the connection goes), then cancel the call. */
  private readonly stop = (): void => {
    this.stopped = true;
    this.finish(textResult(this.cancelledText(this.running), true));
    this.child.cancel(new Cancelled(`the server stopped while '${this.name}' was running`));
  };

  /**
   * The outcome's result, within the tool's budget (see `served-results`): a
   * result over it is answered with a preview and a link (the whole kept for
   * this caller); one under it goes out as it is, after one pass over its blocks.
   */
  private answerWith(o: ToolOutcome): void {
    const result = this.resultOf(o);
    const results = this.start.options.results;
    const tool = this.start.served.tool;
    if (!o.ok || !results || tool === results.reader) return this.finish(result, o);
    const budget = results.budgetOf(tool);
    if (!results.over(result, budget)) return this.finish(result, o);
    const owner = recordOwner(this.start.catalog.server, this.caller);
    results.spill(result, budget, owner, this.name).then(
      (fitted) => this.finish(fitted, o),
      (err: unknown) =>
        this.finish(
          textResult(
            `the result of '${this.name}' (${resultChars(result)} characters) is over its budget of ${budget} ` +
              `characters and could not be kept for reading: ${errorLine(err)}`,
            true,
          ),
          o,
        ),
    );
  }

  private resultOf(o: ToolOutcome): CallToolResult {
    if (o.ok) return typeof o.value === "string" ? textResult(o.value, false) : valueResult(o.value, this.start.served);
    return textResult(o.reason === "cancelled" ? this.cancelledText(o.running) : o.message, true);
  }

  /** Who ended the call, in the model's words: the server stopping, the client cancelling this call, or the run. */
  private cancelledText(running: boolean): string {
    const name = this.name;
    if (this.stopped) return running ? `the server stopped while '${name}' was running` : `the server stopped; '${name}' was not run`;
    if (this.child.cancelled && !this.start.options.ctx.cancelled)
      return running ? `the call to '${name}' was cancelled while it was running` : `the call to '${name}' was cancelled; it was not run`;
    return cancelledMessage(name, running);
  }

  private finish(result: CallToolResult, outcome?: ToolOutcome): void {
    if (this.settled) return;
    this.settled = true;
    this.exchange?.end();
    this.start.counter.inflight?.delete(this.stop);
    const task = this.task;
    // A task's end goes to its record (the request was answered with the handle); a call that never became one answers here.
    if (task && outcome) {
      void task.finish(outcome, result as unknown as Record<string, unknown>).then((took) => {
        endRequest(this.traced, result.isError !== true);
        this.child.release();
        if (!took) this.reply(result);
      });
      return;
    }
    task?.dispose();
    endRequest(this.traced, result.isError !== true);
    this.child.release();
    this.reply(result);
  }
}

/**
 * The request currently holding a call: its in-flight entry (so its client's
 * cancel or closed connection cancels the call), its progress and heartbeat.
 * A 2026-07-28 call that asks its client moves from one exchange to the next.
 */
class Exchange {
  private readonly requestId: string | number;
  private readonly stopHeartbeat: () => void;

  constructor(
    extra: Extra,
    private readonly calls: InflightCalls,
    private readonly child: RunContext,
    readonly progress: RequestProgress,
    beat: (p: RequestProgress) => () => void,
  ) {
    this.requestId = extra.mcpReq.id;
    this.stopHeartbeat = beat(progress);
    if (!extra.mcpReq.signal.aborted) calls.set(this.requestId, child);
  }

  /** The exchange is over (answered, or the call ended): no more heartbeat or progress on it; its request no longer holds the call. */
  end(): void {
    this.stopHeartbeat();
    this.progress.end();
    if (this.calls.get(this.requestId) === this.child) this.calls.delete(this.requestId);
  }
}

/** A task call's admission: the guard (when there is one), then `started` recorded before the body runs. */
function taskAdmission(
  task: TaskCall,
  guarded: ((a: Record<string, unknown>) => Promise<ToolGuardResult>) | undefined,
): (a: Record<string, unknown>) => Promise<ToolGuardResult> {
  return async (a) => {
    const admitted = guarded ? await guarded(a) : ({ allowed: true } as const);
    if (!admitted.allowed) return admitted;
    const refused = await task.admitted();
    return refused === undefined ? admitted : { allowed: false, message: refused };
  };
}

/**
 * A 2026-07-28 retry on loopback: the suspended call its `requestState` names takes this exchange over once its answer
 * is taken (a bad state or a replayed round rejects with a JSON-RPC -32602 naming why).
 */
async function resumeCall(rounds: RoundRecords, suspended: SuspendedCalls, call: RoundCall, calls: InflightCalls): Promise<CallToolResult> {
  const claim = await rounds.open(call.extra.mcpReq.requestState(), call);
  return (await suspended.waitingOn(claim.id).resume(claim, call.extra, calls)) as CallToolResult;
}

/** `{ toolUseId }` from the request's `_meta` (`claudecode/toolUseId`, as the Claude CLI sends it), or nothing. */
function toolUseIdOf(request: CallToolRequest): { toolUseId?: string } {
  const id = (request.params._meta as Record<string, unknown> | undefined)?.["claudecode/toolUseId"];
  return typeof id === "string" && id !== "" ? { toolUseId: id } : {};
}

/** The `ToolArgumentError` text when `args` do not fit the served tool's schema; `undefined` when they do (or it cannot tell). */
export function argumentError(served: ServedTool, args: Record<string, unknown>): string | undefined {
  try {
    served.tool.checkArguments?.(args);
    return undefined;
  } catch (err) {
    return err instanceof ToolArgumentError ? err.message : undefined;
  }
}

/** A request whose signal the SDK aborted before the handler ran: a client's cancel (a string reason) or the connection closing. */
function cancelledEarly(reason: unknown): Cancelled {
  return typeof reason === "string"
    ? clientCancelled(reason)
    : new Cancelled("the request was cancelled (by its client, or its connection closed) before the call started", reason);
}

/**
 * What a call's context is cancelled with when its client sends
 * `notifications/cancelled` (with the client's reason, if any): the client
 * stopped waiting, so a person still being asked about the call is told so.
 */
function clientCancelled(reason: unknown, client = "the client"): ClientGaveUp {
  return new ClientGaveUp(client, typeof reason === "string" && reason ? `it cancelled the call: ${reason}` : "it cancelled the call");
}

/** True when `server` (one 2025-era session) subscribed to resource `uri` (`resources/subscribe`). */
export function subscribedTo(server: SdkServer, uri: string): boolean {
  return (server as { session?: SessionState }).session?.subscriptions.has(uri) === true;
}

/**
 * The Server's JSON Schema validator is for its own `elicitInput()`, which these
 * servers never call (`ctx.elicit()` hands the client's reply to the tool as it
 * came); skip building an Ajv per session.
 */
const NO_SCHEMA_VALIDATION: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input: unknown) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

/**
 * One session's calls in flight, kept by request id, and its state. Its
 * server (`ServedSdkServer`) hands it the two protocol events it follows,
 * through the SDK's documented subclass hooks: a client's
 * `notifications/cancelled` (after the SDK's own handler has aborted the
 * request, so no response is sent) cancels that call's context, and the
 * connection closing cancels every call in flight.
 */
class ServedSession {
  readonly calls: InflightCalls = new Map();
  readonly session: SessionState;
  /** True once the connection closed while a call of this session was still running. */
  interrupted = false;

  constructor(
    private readonly server: Pick<SdkServer, "getClientCapabilities" | "getClientVersion">,
    serverName: string,
  ) {
    this.session = { serverName, logLevel: undefined, subscriptions: new Set(), clientCapabilities: () => server.getClientCapabilities() };
  }

  /** The connection closed: every call still running hears that its client is gone. */
  closed(): void {
    // A 2026-07-28 request closes its one-shot server after every answer: build the error
    // (a stack trace) only when a call is still running to receive it.
    if (this.calls.size === 0) return;
    this.interrupted = true;
    const inflight = [...this.calls.values()];
    this.calls.clear();
    const gone = new ClientGaveUp(this.clientName(), "its connection closed while the call was running");
    for (const call of inflight) call.cancel(gone);
  }

  /** A notification arrived (the SDK has dispatched it): a `notifications/cancelled` also cancels the call it names. */
  notified(message: JSONRPCNotification): void {
    if (message.method !== "notifications/cancelled") return;
    const params = (message as { params?: { requestId?: unknown; reason?: unknown } }).params;
    const requestId = params?.requestId;
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    const reason = params?.reason;
    // The SDK queued its own handler (which aborts the request) first; run after it.
    queueMicrotask(() => this.calls.get(requestId)?.cancel(clientCancelled(reason, this.clientName())));
  }

  /** The client as it named itself in `initialize`, for the record of a call it gave up on. */
  private clientName(): string {
    return this.server.getClientVersion()?.name || "the client";
  }
}

/** The first protocol revision of the 2026 era (per-request `_meta` envelope, no sessions). */
const FIRST_MODERN_VERSION = "2026-07-28";

/** True for a negotiated protocol version of the 2026 era or later (revisions are dates: they order as strings). */
function isModernVersion(version: string | undefined): boolean {
  return version !== undefined && version >= FIRST_MODERN_VERSION;
}

/** The `serverInfo` a served module `name` answers with (the package's version). */
export function servedServerInfo(name: string): { readonly name: string; readonly version: string } {
  return { name, version: PACKAGE_VERSION };
}

/**
 * A factory of low-level SDK `Server`s for a catalog (one per HTTP session or
 * per stdio connection). Never `McpServer`: the schema already exists and the
 * tool's own `ToolArgumentError` is the better diagnosis, so the SDK neither
 * derives nor validates anything.
 */
export function servedServerFactory(catalog: ServedCatalog, options: ServedServerOptions, counter: CallCounter): () => SdkServer {
  const { Server } = sdkServer();
  const listResult = catalog.listResult;
  const onCall = makeCallHandler(catalog, options, counter);
  const info = servedServerInfo(catalog.server);
  /** The SDK's `Server`, following its session (see `ServedSession`) through the two hooks the SDK documents for subclasses. */
  class ServedSdkServer extends Server {
    readonly followed: ServedSession = new ServedSession(this, catalog.server);

    /** The session's state (`subscribedTo` reads it). */
    get session(): SessionState {
      return this.followed.session;
    }

    /** A notification from the client: the SDK dispatches it, then the session follows a cancel. */
    protected override _onnotification(notification: JSONRPCNotification, extra?: MessageExtraInfo): void {
      super._onnotification(notification, extra);
      this.followed.notified(notification);
    }

    /**
     * The capabilities as advertised: the tasks extension exists only on
     * 2026-07-28 (`server/discover`), so a session negotiated on a 2025-era
     * revision (`initialize`) is not told of it (its calls never become tasks);
     * other extensions (skills) stay.
     */
    override getCapabilities(): ReturnType<SdkServer["getCapabilities"]> {
      const all = super.getCapabilities();
      const version = this.getNegotiatedProtocolVersion();
      if (!all.extensions?.[TASKS_EXTENSION] || version === undefined || isModernVersion(version)) return all;
      // Only the tasks extension goes (skills are served in both eras).
      const { [TASKS_EXTENSION]: _modernOnly, ...others } = all.extensions;
      const { extensions: _all, ...rest } = all;
      return Object.keys(others).length ? { ...rest, extensions: others } : rest;
    }

    /**
     * The connection closed: the calls still running are cancelled first
     * (`ClientGaveUp`), then the SDK tears the protocol down. A 2026-07-28
     * server serves one exchange and is closed right after its answer; the
     * SDK's close then builds a "Connection closed" error for
     * whatever still waits on the connection. When no call was cut short
     * nothing does (the era has no server-to-client requests to settle), so
     * its stack trace is not captured: about a tenth of such a request's
     * server CPU (measured). Anything else closes as the SDK does.
     */
    protected override _onclose(): void {
      this.followed.closed();
      if (this.followed.interrupted || !isModernVersion(this.getNegotiatedProtocolVersion())) return super._onclose();
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      try {
        super._onclose();
      } finally {
        Error.stackTraceLimit = limit;
      }
    }
  }
  const extras = options.extras ?? new ServedExtras();
  const live = options.live;
  const hint = options.cacheHint;
  const cacheHints = hint
    ? { "tools/list": hint, "resources/list": hint, "resources/templates/list": hint, "prompts/list": hint, "server/discover": hint }
    : undefined;
  return () => {
    const served = options.fixedTools ? { tools: {} } : servedCapabilities(extras);
    const capabilities = options.tasks ? { ...served, extensions: { ...served.extensions, [TASKS_EXTENSION]: {} } } : served;
    const s = new ServedSdkServer(info, { capabilities, jsonSchemaValidator: NO_SCHEMA_VALIDATION, ...(cacheHints ? { cacheHints } : {}) });
    s.setRequestHandler("tools/list", () => listResult);
    s.setRequestHandler("tools/call", (request, extra) => onCall(request, extra, s.followed.calls, s.followed.session));
    // a fixed tool list declares no logging, so it has no `logging/setLevel` (nor resources or prompts)
    if (!options.fixedTools) registerExtraHandlers(s, extras, options.ctx, s.followed.session, options.callerOf);
    const tasks = options.tasks;
    if (tasks) tasks.register(s, (extra) => tasks.ownerOf((options.callerOf ?? loopbackCaller)(extra, catalog.server)));
    if (live) {
      live.add(s);
      const prev = s.onclose;
      s.onclose = () => {
        live.delete(s);
        prev?.();
      };
    }
    return s;
  };
}
