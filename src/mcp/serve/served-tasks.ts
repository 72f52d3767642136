/**
 * @module mcp/serve/served-tasks
 * Served calls as MCP tasks (`io.modelcontextprotocol/tasks`, protocol
 * 2026-07-28, SEP-2663), on SDK 2.4.0's primitives: a `tools/call` answered
 * `{ resultType: "task", ... }` (the SDK passes it through), and
 * explicit-schema handlers for `tasks/get`, `tasks/update`, `tasks/cancel`.
 *
 * A task is one `CallRecord` (kind `task`) in a `CallRecordStore`, created
 * before its handle leaves the process and changed only by compare-and-set,
 * so every process on the store answers `tasks/get` alike and each question
 * is answered once. A task is bound to its caller (`ownerOf`): another
 * caller's id reads as unknown (`-32602`).
 *
 * Restart: a process starting on a store recovers the open records of its
 * module whose worker is a dead process on this host. A task waiting for a
 * person is taken over and run again here: an approval is asked of the
 * module's guard again (so it is back in the run's Asker, raced with
 * `tasks/update` on the same record) and an approved body runs once; a body
 * waiting on its own `ctx.elicit()` / `ctx.sample()` keeps its question and
 * runs from the top, its earlier questions answered from the record (code
 * before a question may run again). A task whose body was running ends
 * `failed` ("the server restarted while 'x' was running; it was not run
 * again"): its side effects may have happened, and running it again silently
 * could repeat them.
 */
import { hostname } from "node:os";
import type { ServerContext } from "@modelcontextprotocol/server";
import {
  FINAL_CALL_STATUSES,
  openQuestions,
  questionOf,
  type CallAnswer,
  type CallChange,
  type CallError,
  type CallQuestion,
  type CallRecord,
  type CallRecordStore,
} from "../../contracts/call-record.js";
import type { Asker, AskOptions, Decision, Elicitation } from "../../contracts/elicitation.js";
import type { RunContext } from "../../context/run-context.js";
import type { Caller } from "../../context/caller.js";
import type { ClientChannel, ElicitRequest, ElicitResult, SampleRequest, SampleResult } from "../../context/client-channel.js";
import { Cancelled } from "../../errors/cancelled.error.js";
import { ClientGaveUp } from "../../errors/client-gave-up.error.js";
import { recordOwner } from "./round-records.js";
import { MemoryCallRecords, newRecordId } from "../../records/memory-call-records.js";
import { invokeTool, type Admission, type ToolOutcome } from "../../tools/tool-invocation.js";
import type { Tool } from "../../tools/tool.js";
import type { ToolTaskMode } from "../../tools/tool.js";
import { describeValue, errorLine } from "../../util/format.js";
import { OptionsError } from "../../errors/options.error.js";
import { isProtocolError, sdkServer, type SdkServer } from "../peers/sdk-server.js";
import type { ServedCatalog } from "./served-catalog.js";
import { askThroughTask } from "./task-asking.js";
import { getLogger } from "../../util/logger.js";

/** The extension's identifier, as clients declare it and servers advertise it. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The request `_meta` key of the 2026-07-28 per-request client capabilities. */
const CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities";

/** Who answered a task's approval question when the run's Asker did (its answer, or its failure). */
const ASKER_ANSWERED = "the run's Asker";

/** `value` as plain JSON for the record (`{ unreadable: true }` when it cannot be written as JSON). */
function jsonCopy(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value) ?? "null") as unknown;
  } catch {
    return { unreadable: true };
  }
}

/** Who answered a question through `tasks/update`, as the record and the approval audit name it. */
export const CLIENT_ANSWERER = "the MCP client (tasks/update)";

/** Defaults of `tasks`: a call becomes a task after 10 s; a task is kept a day; clients poll every second. */
export const TASK_DEFAULTS = Object.freeze({ afterMs: 10_000, ttlMs: 86_400_000, pollIntervalMs: 1_000 });

const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

/**
 * The module / serve option `tasks`: where tasks live and how they are
 * handed out. `store` is any `CallRecordStore` (the inbox stores implement
 * it); default an in-process `MemoryCallRecords` (nothing survives a restart).
 */
export interface TasksOptions {
  /** Where the task records live; default in-process memory. */
  readonly store?: CallRecordStore;
  /** An `"auto"` call running this long (ms) becomes a task; `0`: at once. Default 10,000. */
  readonly afterMs?: number;
  /** How long a task is kept after it was created (ms); `null` until deleted. Default one day. */
  readonly ttlMs?: number | null;
  /** How often a client should poll `tasks/get` (ms). Default 1,000. */
  readonly pollIntervalMs?: number;
}

const MAX_TIMER_MS = 2_147_483_647;

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/**
 * How often a serving process drops the expired records of its store
 * (`expireRecords`): a tenth of the tasks' `ttlMs`, never more often than a
 * minute nor less often than an hour (hourly when tasks are kept until
 * deleted, for the store's other records). A record may so outlive its TTL by
 * at most this long.
 */
export function expirySweepMs(ttlMs: number | null): number {
  if (ttlMs === null) return HOUR_MS;
  return Math.min(HOUR_MS, Math.max(MINUTE_MS, Math.round(ttlMs / 10)));
}

/**
 * Check a `tasks` option (`where` names the entry point): an object with an
 * optional `store` (a `CallRecordStore`), `afterMs` (0..2^31-1), `ttlMs`
 * (positive, or `null`) and `pollIntervalMs` (positive). Throws
 * `OptionsError` naming the field and what is accepted.
 */
export function checkTasksOption(v: unknown, where: string): TasksOptions | undefined {
  if (v === undefined) return undefined;
  const bad = (option: string, accepted: string, got: unknown): never => {
    throw new OptionsError(where, option, `${where}: ${option} must be ${accepted}, got ${describeValue(got)}`);
  };
  if (!isObject(v)) return bad("tasks", "an object { store?, afterMs?, ttlMs?, pollIntervalMs? }", v);
  const known = new Set(["store", "afterMs", "ttlMs", "pollIntervalMs"]);
  const unknown = Object.keys(v).find((k) => !known.has(k));
  if (unknown) bad(`tasks.${unknown}`, "one of store, afterMs, ttlMs, pollIntervalMs (an unknown option)", v[unknown]);
  const store = v.store as Partial<CallRecordStore> | undefined;
  const methods = [
    "createRecord",
    "getRecord",
    "updateRecord",
    "answerRecord",
    "openRecords",
    "expireRecords",
    "subscribeRecords",
  ] as const;
  if (store !== undefined && (!isObject(store) || methods.some((m) => typeof store[m] !== "function")))
    bad(
      "tasks.store",
      "a call-record store (MemoryInboxStore, pgliteInboxStore(...), postgresInboxStore(...), or a CallRecordStore)",
      store,
    );
  const whole = (x: unknown, min: number): boolean => Number.isSafeInteger(x) && (x as number) >= min && (x as number) <= MAX_TIMER_MS;
  if (v.afterMs !== undefined && !whole(v.afterMs, 0))
    bad("tasks.afterMs", `a whole number of ms from 0 (at once) to ${MAX_TIMER_MS}`, v.afterMs);
  if (v.ttlMs !== undefined && v.ttlMs !== null && !(Number.isSafeInteger(v.ttlMs) && (v.ttlMs as number) > 0))
    bad("tasks.ttlMs", "a positive whole number of ms, or null (kept until deleted)", v.ttlMs);
  if (v.pollIntervalMs !== undefined && !whole(v.pollIntervalMs, 1))
    bad("tasks.pollIntervalMs", `a whole number of ms from 1 to ${MAX_TIMER_MS}`, v.pollIntervalMs);
  return Object.freeze({ ...v }) as TasksOptions;
}

/** True for a plain object. */
function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** True when this 2026-07-28 request's `_meta` client capabilities declare the tasks extension. */
export function declaresTasks(extra: ServerContext): boolean {
  const envelope = extra.mcpReq.envelope as Record<string, unknown> | undefined;
  return declaresTasksIn(envelope?.[CLIENT_CAPABILITIES_META_KEY]);
}

/** True when client capabilities `caps` (a request's `_meta` ones) declare the tasks extension. */
export function declaresTasksIn(caps: unknown): boolean {
  return isObject(caps) && isObject(caps.extensions) && isObject(caps.extensions[TASKS_EXTENSION]);
}

/** The wire `Task` of a record (what `tools/call` hands out and `tasks/get` starts from). */
export function taskOf(r: CallRecord): Record<string, unknown> {
  return {
    taskId: r.id,
    status: r.status,
    ...(r.statusMessage ? { statusMessage: r.statusMessage } : {}),
    createdAt: r.createdAt,
    lastUpdatedAt: r.lastUpdatedAt,
    ttlMs: r.ttlMs,
    pollIntervalMs: r.pollIntervalMs,
  };
}

/** `tasks/get`'s answer: the task, its open question as `inputRequests`, its final result inline or its error. */
export function detailedTask(r: CallRecord): Record<string, unknown> {
  return {
    ...taskOf(r),
    ...(r.status === "input_required" && r.question
      ? { inputRequests: Object.fromEntries(openQuestions(r.question).map((q) => [q.key, { method: q.method, params: q.params }])) }
      : {}),
    ...(r.status === "completed" && r.result ? { result: r.result } : {}),
    ...(r.status === "failed" && r.error ? { error: r.error } : {}),
  };
}

function rpcError(code: number, message: string, data?: unknown): Error {
  return new (sdkServer().ProtocolError)(code, message, data);
}

/** A tiny Standard Schema (the SDK validates custom methods' params with one): an object with a string `taskId`. */
function taskParams<T extends { taskId: string }>(
  method: string,
): { "~standard": { version: 1; vendor: string; validate(v: unknown): { value: T } | { issues: Array<{ message: string }> } } } {
  return {
    "~standard": {
      version: 1,
      vendor: "arc-agentkit",
      validate: (v) =>
        isObject(v) && typeof v.taskId === "string"
          ? { value: v as T }
          : { issues: [{ message: `${method} needs params.taskId (a string)` }] },
    },
  };
}

/** This process, as a record's `worker`: `host:pid:start`. */
const WORKER = `${hostname()}:${process.pid}:${Date.now()}`;

/** True when `worker` is a process on this host that is gone (another host's worker cannot be told: it is left alone). */
export function workerGone(worker: string): boolean {
  if (worker === WORKER) return false;
  const [host, pidText] = worker.split(":");
  if (host !== hostname()) return false;
  const pid = Number(pidText);
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** The approval form a task's client is shown: one boolean `approve`, the tool and its arguments in the message. */
function approvalForm(elicitation: Elicitation): Record<string, unknown> {
  const call = elicitation.toolCall ?? { name: "(a tool)", arguments: {} };
  let args: string;
  try {
    args = JSON.stringify(call.arguments);
  } catch {
    args = "(arguments that are not JSON)";
  }
  return {
    mode: "form",
    message: `${elicitation.question}\n\nTool: ${call.name}\nArguments: ${args}`,
    requestedSchema: {
      type: "object",
      properties: { approve: { type: "boolean", title: "Approve", description: `Run '${call.name}' with these arguments` } },
      required: ["approve"],
    },
  };
}

/** A client's answer to the approval form as a decision: accept with `approve: true` approves; anything else denies. */
function clientDecision(value: unknown): Decision {
  const approved = isObject(value) && value.action === "accept" && isObject(value.content) && value.content.approve === true;
  return approved
    ? { kind: "approve", actor: CLIENT_ANSWERER }
    : { kind: "reject", actor: CLIENT_ANSWERER, note: "the MCP client did not approve it" };
}

/** The decision an approval answer on the record stands for (the run's Asker's own, or the client's form). */
function decisionOf(answer: CallAnswer): Decision {
  if (answer.by === CLIENT_ANSWERER) return clientDecision(answer.value);
  const stored = isObject(answer.value) ? answer.value.decision : undefined;
  return isObject(stored) && typeof stored.kind === "string"
    ? (stored as unknown as Decision)
    : { kind: "reject", actor: answer.by, note: "an answer that is not a decision" };
}

/**
 * A module's tasks: the store, the defaults, the `tasks/*` handlers, the
 * calls this process runs, and recovery after a restart. One per served
 * module (all its sessions and requests share it).
 */
export class ServedTasks {
  /** Where the tasks live. */
  readonly store: CallRecordStore;
  /** An `"auto"` call running this long becomes a task (ms; 0 at once). */
  readonly afterMs: number;
  /** A task's `ttlMs` (null: kept until deleted). */
  readonly ttlMs: number | null;
  /** A task's `pollIntervalMs`. */
  readonly pollIntervalMs: number;
  /** Tasks this process runs, by id. */
  private readonly live = new Map<string, TaskCall>();

  constructor(
    /** The served module's name. */
    readonly server: string,
    options: TasksOptions = {},
  ) {
    this.store = options.store ?? new MemoryCallRecords();
    this.afterMs = options.afterMs ?? TASK_DEFAULTS.afterMs;
    this.ttlMs = options.ttlMs === undefined ? TASK_DEFAULTS.ttlMs : options.ttlMs;
    this.pollIntervalMs = options.pollIntervalMs ?? TASK_DEFAULTS.pollIntervalMs;
  }

  /** The expiry sweep's timer while the module serves (see `startSweeping`). */
  private sweeper: NodeJS.Timeout | undefined;
  /** The sweep in progress, if any: one at a time. */
  private sweeping: Promise<void> | undefined;

  /**
   * Drop the store's expired records every `expirySweepMs(ttlMs)` while the
   * module serves (an unref'd timer: it never keeps the process alive; one
   * sweep at a time). A sweep that fails is logged and tried at the next
   * tick. Idempotent; `stopSweeping` ends it.
   */
  startSweeping(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      this.sweeping ??= this.store
        .expireRecords(new Date())
        .then(
          () => undefined,
          (err: unknown) =>
            getLogger().warn(
              `agentkit: could not drop the expired task records of '${this.server}': ${errorLine(err)} (tried ` +
                `again in ${expirySweepMs(this.ttlMs) / 1000} s)`,
            ),
        )
        .finally(() => (this.sweeping = undefined));
    }, expirySweepMs(this.ttlMs));
    this.sweeper.unref();
  }

  /** Stop the expiry sweep (the module stopped serving). Idempotent. */
  stopSweeping(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /** This process, as records name their worker. */
  get worker(): string {
    return WORKER;
  }

  /**
   * The owner a request's tasks are bound to: the hosted principal
   * (`clientId` and `subject`) when there is one, else the serving module (its
   * name), so the same module restarted with a new token finds its tasks.
   */
  ownerOf(caller: Caller | undefined): string {
    // One binding for every record of the module: a task's owner is what a question round's is.
    return recordOwner(this.server, caller);
  }

  /** How a call of a tool declaring `mode` goes: a task call, in the call, or refused (the error or result to answer). */
  plan(
    mode: ToolTaskMode | undefined,
    extra: ServerContext,
    tool: string,
  ): { kind: "task" | "inline" } | { kind: "refuse"; error?: Error; text?: string } {
    const m = mode ?? "auto";
    if (m === "never") return { kind: "inline" };
    const modern = extra.mcpReq.envelope !== undefined;
    if (modern && declaresTasks(extra)) return { kind: "task" };
    if (m === "auto") return { kind: "inline" };
    const why =
      `tool '${tool}' runs only as an MCP task: the client must declare the '${TASKS_EXTENSION}' extension (protocol ` +
      `2026-07-28, in each request's _meta clientCapabilities.extensions)`;
    if (modern)
      return {
        kind: "refuse",
        error: new (sdkServer().MissingRequiredClientCapabilityError)(
          { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } as never,
          why,
        ),
      };
    return { kind: "refuse", text: why };
  }

  /** A new task call for one served call (not recorded until it `become`s a task). */
  call(start: TaskCallStart): TaskCall {
    return new TaskCall(this, start);
  }

  /** @internal A task call now has its record (or has ended). */
  track(id: string, call: TaskCall | undefined): void {
    if (call) this.live.set(id, call);
    else this.live.delete(id);
  }

  /** A new record of this module, not yet stored. */
  newRecord(owner: string, tool: string, args: Record<string, unknown>, started: boolean, statusMessage: string): CallRecord {
    const now = new Date().toISOString();
    return Object.freeze({
      id: newRecordId(),
      kind: "task",
      owner,
      server: this.server,
      tool,
      arguments: args,
      status: "working",
      statusMessage,
      started,
      round: 0,
      answers: [],
      cancelRequested: false,
      worker: WORKER,
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
      version: 1,
    } satisfies CallRecord);
  }

  /** The task `taskId` of `owner` (`ownerOf`), or `undefined`: unknown, expired, another owner's, or not a task. Throws the store's error. */
  async find(taskId: string, owner: string): Promise<CallRecord | undefined> {
    const record = await this.store.getRecord(taskId, owner);
    return record?.kind === "task" ? record : undefined;
  }

  /**
   * Register `tasks/get`, `tasks/update` and `tasks/cancel` on `server`
   * (explicit schemas: SDK 2.4.0 lets them through its 2026 era gate), for
   * requests whose owner is `ownerOf(extra)`. A request that did not declare
   * the extension gets `-32021`; an unknown id or another caller's `-32602`.
   * (`tasks/list` and `tasks/result` are not served: the SDK answers `-32601`.)
   */
  register(server: SdkServer, ownerOf: (extra: ServerContext) => string): void {
    const guarded = <T extends { taskId: string }>(
      method: string,
      fn: (record: CallRecord, params: T, extra: ServerContext) => Promise<Record<string, unknown>>,
    ) =>
      server.setRequestHandler(method, { params: taskParams<T>(method) }, async (given: unknown, extra: ServerContext) => {
        const params = given as T;
        if (!declaresTasks(extra)) {
          throw new (sdkServer().MissingRequiredClientCapabilityError)(
            { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } as never,
            `${method}: the client did not declare the '${TASKS_EXTENSION}' extension in this request's _meta clientCapabilities`,
          );
        }
        let record: CallRecord | undefined;
        try {
          record = await this.find(params.taskId, ownerOf(extra));
        } catch (err) {
          throw rpcError(INTERNAL_ERROR, `${method}: the task store failed: ${errorLine(err)}`);
        }
        if (!record) throw rpcError(INVALID_PARAMS, `${method}: no task '${params.taskId}' (unknown, expired, or not this caller's)`);
        return fn(record, params, extra);
      });
    guarded("tasks/get", (r) => Promise.resolve(detailedTask(r)));
    guarded<{ taskId: string; inputResponses?: unknown }>("tasks/update", async (r, params, extra) => {
      const responses = extra.mcpReq.inputResponses ?? (isObject(params.inputResponses) ? params.inputResponses : {});
      const open = openQuestions(r.question);
      for (const [key, value] of Object.entries(responses)) {
        // Unknown or already answered keys are ignored (the spec's SHOULD); the store's compare-and-set decides a race.
        const q = open.find((o) => o.key === key);
        if (q) await this.store.answerRecord(r.id, r.round, { key, method: q.method, value, by: CLIENT_ANSWERER });
      }
      return {};
    });
    guarded("tasks/cancel", async (r) => {
      if (FINAL_CALL_STATUSES.has(r.status)) return {};
      const running = this.live.get(r.id);
      // A task nobody runs any more (its process died) is cancelled here; a running one hears cancelRequested.
      const change: CallChange =
        running || !workerGone(r.worker)
          ? { cancelRequested: true }
          : { cancelRequested: true, status: "cancelled", statusMessage: "cancelled by the client" };
      await changeRecord(this.store, r, () => change);
      return {};
    });
  }

  /**
   * Recover this module's open tasks left by a process that died (see the
   * module note). Resolves once each record was decided; never rejects (a
   * store that fails is logged through `onError`). `guard` is the module's
   * guard: a task recovered while waiting for approval asks it again, so the
   * question is back in the run's Asker (the inbox), bound to the same record.
   */
  async recover(catalog: ServedCatalog, ctx: RunContext, onError: (err: unknown) => void = () => {}, guard?: RecoveryGuard): Promise<void> {
    let open: CallRecord[];
    try {
      open = await this.store.openRecords(this.server);
    } catch (err) {
      return onError(err);
    }
    for (const r of open) {
      if (r.kind !== "task" || this.live.has(r.id) || !workerGone(r.worker)) continue;
      try {
        if (resumable(r)) {
          const taken = await changeRecord(this.store, r, () => ({ worker: WORKER }));
          if (taken) this.resume(taken, catalog, ctx, guard);
          continue;
        }
        const message = `the server restarted while '${r.tool}' was running; it was not run again`;
        await changeRecord(this.store, r, () => ({ status: "failed", statusMessage: message, error: { code: INTERNAL_ERROR, message } }));
      } catch (err) {
        onError(err);
      }
    }
  }

  /**
   * A task recovered while it waited for a person, run again here: its
   * open question stays the one the client sees (`tasks/update` answers it),
   * an approval is asked of the module's guard again (the run's Asker, raced
   * with the client as before), and once answered the tool runs from the top
   * with the questions it already asked answered from the record (code before
   * a question may run again, as for every question round; a guard's verdict
   * on the record is not asked again).
   */
  private resume(record: CallRecord, catalog: ServedCatalog, ctx: RunContext, guard: RecoveryGuard | undefined): void {
    const served = catalog.byName.get(record.tool);
    const asking: { task?: TaskCall } = {};
    const child = ctx.child({
      caller: Object.freeze({ kind: "task", server: this.server, task: record.id }),
      channel: taskChannel((method, params) => asking.task!.ask(method, params)),
    });
    const task = (asking.task = new TaskCall(this, {
      owner: record.owner,
      tool: record.tool,
      arguments: { ...record.arguments },
      ctx: child,
      handOut: () => {},
      resumed: record,
    }));
    const end = async (outcome: ToolOutcome): Promise<void> => {
      await task.finish(outcome, outcomeResult(outcome));
      child.release();
    };
    if (!served) {
      const message = `tool '${record.tool}' is no longer served`;
      void end({
        ok: false,
        reason: "failed",
        message,
        running: false,
        arguments: record.arguments,
        error: rpcError(INTERNAL_ERROR, message),
      });
      return;
    }
    const earlier = recordedApproval(record);
    const guarded = async (a: Record<string, unknown>): Promise<Admission> => {
      const admitted =
        earlier ??
        (guard
          ? await guard({ tool: served.tool, name: record.tool, qualifiedName: served.qualifiedName, arguments: a, ctx: child })
          : ({ allowed: true } as const));
      if (!admitted.allowed) return admitted;
      const refused = await task.admitted();
      return refused === undefined ? admitted : { allowed: false, message: refused };
    };
    void invokeTool({ tool: served.tool, name: record.tool, arguments: { ...record.arguments }, ctx: child, admit: guarded }).then(
      end,
      () => undefined,
    );
  }
}

/** The client channel of a resumed task's body: its questions are the task's (`ask`); progress and logs have no request to go to. */
function taskChannel(
  ask: (method: "elicitation/create" | "sampling/createMessage", params: Record<string, unknown>) => Promise<unknown>,
): ClientChannel {
  return {
    progress: () => {},
    log: () => {},
    elicit: (request: ElicitRequest) => ask("elicitation/create", { ...request }) as Promise<ElicitResult>,
    sample: (request: SampleRequest) => ask("sampling/createMessage", { ...request }) as Promise<SampleResult>,
    end: () => {},
  };
}

/** One question a resumed task asked before its restart: its answer, or none (it was left open). */
interface PastQuestion {
  readonly key: string;
  readonly method: CallQuestion["method"];
  readonly answer?: CallAnswer;
}

/** The number a question key ends with (`elicit-3` → 3): the order the call asked in. */
const keyNumber = (key: string): number => Number(key.slice(key.lastIndexOf("-") + 1)) || 0;

/** A resumed record's questions in the order asked: answered ones (approvals left out) and those left open. */
function pastQuestions(r: CallRecord): PastQuestion[] {
  const answered = r.answers.filter((a) => !a.key.startsWith("approve-")).map((a) => ({ key: a.key, method: a.method, answer: a }));
  const open = openQuestions(r.question).map((q) => ({ key: q.key, method: q.method }));
  return [...answered, ...open].sort((a, b) => keyNumber(a.key) - keyNumber(b.key));
}

/**
 * True for a task that can be run again safely here: its body never began
 * (`started` is recorded before it runs: waiting for its approval, approved
 * but not yet begun, or not yet admitted), or it waits on its own question
 * (`input_required`: code before a question may run again).
 */
function resumable(r: CallRecord): boolean {
  const key = r.question?.key ?? "";
  if (!r.started) return true;
  return r.status === "input_required" && (key.startsWith("elicit-") || key.startsWith("sample-"));
}

/** The guard's verdict a task's record already holds (an answered approval), so a recovered call is not asked again. */
function recordedApproval(record: CallRecord): Admission | undefined {
  const answer = record.answers.find((a) => a.key.startsWith("approve-"));
  if (!answer) return undefined;
  const d = decisionOf(answer);
  return d.kind === "approve"
    ? { allowed: true }
    : { allowed: false, message: `tool '${record.tool}' was not run: rejected by ${d.actor ?? answer.by}${d.note ? `: ${d.note}` : ""}` };
}

/** What a module's guard is asked when a recovered task asks it again (a `ToolGuard` fits). */
export type RecoveryGuard = (request: {
  readonly tool: Tool;
  readonly name: string;
  readonly qualifiedName: string;
  readonly arguments: Record<string, unknown>;
  readonly ctx: RunContext;
}) => Promise<Admission>;

/**
 * Compare-and-set `change(record)` onto the stored record, re-reading on a conflict (a few times); the new record, or
 * `undefined` when it is gone or final.
 */
export async function changeRecord(
  store: CallRecordStore,
  record: CallRecord,
  change: (r: CallRecord) => CallChange,
): Promise<CallRecord | undefined> {
  let r: CallRecord | undefined = record;
  for (let i = 0; i < 8 && r && !FINAL_CALL_STATUSES.has(r.status); i++) {
    const u = await store.updateRecord(r.id, r.version, change(r));
    if (u.ok) return u.record;
    r = u.record;
  }
  return undefined;
}

/** A plain result of an outcome, for a recovered call (the served path builds its own). */
function outcomeResult(o: ToolOutcome): Record<string, unknown> {
  if (o.ok)
    return { content: [{ type: "text", text: typeof o.value === "string" ? o.value : (JSON.stringify(o.value) ?? String(o.value)) }] };
  return { content: [{ type: "text", text: o.message }], isError: true };
}

/** How a task ends: cancelled (the client asked), failed (the body threw a JSON-RPC error), else completed with its result. */
function finalChange(outcome: ToolOutcome, result: Record<string, unknown>, record: CallRecord): CallChange {
  if (!outcome.ok && outcome.reason === "cancelled" && record.cancelRequested)
    return { status: "cancelled", statusMessage: "cancelled by the client" };
  if (!outcome.ok && outcome.reason === "failed" && isProtocolError(outcome.error)) {
    const e = outcome.error as unknown as { code: number; message: string; data?: unknown };
    const error: CallError = { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) };
    return { status: "failed", statusMessage: e.message, error };
  }
  return { status: "completed", statusMessage: outcome.ok ? "completed" : "completed with an error", result };
}

/** What one task call starts from. */
export interface TaskCallStart {
  /** The caller the task is bound to (`ServedTasks.ownerOf`). */
  readonly owner: string;
  /** The tool's served name. */
  readonly tool: string;
  /** The call's arguments as received (stored on the record: a restarted process runs the call from them). */
  readonly arguments: Record<string, unknown>;
  /** The call's own context (tasks/cancel cancels it; approvals asked under it race the client). */
  readonly ctx: RunContext;
  /** Answer the `tools/call` request with this task handle. */
  readonly handOut: (handle: Record<string, unknown>) => void;
  /**
   * A task recovered from its record (a process that died left it waiting): it is a task already, its answers are
   * replayed, its open question is kept.
   */
  readonly resumed?: CallRecord;
}

/**
 * One served call that may become (or is) a task: its record once it has
 * one, the questions it puts to the client (`ask`, the approval race), and
 * its end. Not recorded (nothing stored, nothing handed out) until `become`.
 */
export class TaskCall {
  private record: CallRecord | undefined;
  private creating: Promise<CallRecord> | undefined;
  private started = false;
  private timer: NodeJS.Timeout | undefined;
  private off: (() => void) | undefined;
  private readonly waiters = new Set<(r: CallRecord) => void>();
  private readonly stopAsking: () => void;
  /**
   * A resumed task's questions from before its restart, in the order they
   * were asked (their keys' numbers): an answered one is answered again from
   * the record, one left open by the process that died stays the client's
   * (same key). Approvals answered are left out: the record's verdict admits
   * the call.
   */
  private readonly past: PastQuestion[] = [];

  constructor(
    private readonly tasks: ServedTasks,
    private readonly start: TaskCallStart,
  ) {
    this.stopAsking = askThroughTask(start.ctx, (asker, elicitation, options) => this.approval(asker, elicitation, options));
    const resumed = start.resumed;
    if (resumed) {
      this.record = resumed;
      this.creating = Promise.resolve(resumed);
      this.started = resumed.started;
      this.past = pastQuestions(resumed);
      tasks.track(resumed.id, this);
      this.off = tasks.store.subscribeRecords((e) => this.heard(e.record));
    }
  }

  /** True once the call is (or is being made) a task: its result goes to the record, not the request. */
  get isTask(): boolean {
    return this.creating !== undefined;
  }

  /** `"auto"`: become a task after `afterMs` (at once for 0); a store that fails then leaves the call in the request. */
  startTimer(): void {
    if (this.tasks.afterMs === 0) return void this.become("running").catch(() => undefined);
    this.timer = setTimeout(() => void this.become("running").catch(() => undefined), this.tasks.afterMs);
  }

  /** Record the task (durably) and hand its handle out; rejects with a clear error when the store fails (nothing is handed out then). */
  become(statusMessage: string): Promise<CallRecord> {
    if (this.creating) return this.creating;
    if (this.timer) clearTimeout(this.timer);
    const { owner, tool, arguments: args, ctx } = this.start;
    const record = this.tasks.newRecord(owner, tool, args, this.started, statusMessage);
    this.creating = this.tasks.store.createRecord(record).then(
      () => {
        this.record = record;
        this.tasks.track(record.id, this);
        this.off = this.tasks.store.subscribeRecords((e) => this.heard(e.record));
        ctx.emit("mcp.task.created", { taskId: record.id, tool, status: record.status });
        this.start.handOut({ resultType: "task", ...taskOf(record) });
        return record;
      },
      (err: unknown) => {
        this.creating = undefined;
        throw new Error(`'${tool}' could not be made an MCP task: the task store failed: ${errorLine(err)}`, { cause: err });
      },
    );
    return this.creating;
  }

  /** A record event: keep the newest version, hear a cancel, wake the question waiting on it. */
  private heard(r: CallRecord): void {
    if (!this.record || r.id !== this.record.id || r.version <= this.record.version) return;
    this.record = r;
    // The client stopped waiting: a person still asked about the call is told so (the gate records it as the client's
    // timeout, as for a cancelled request).
    if (r.cancelRequested && !this.start.ctx.cancelled)
      this.start.ctx.cancel(new ClientGaveUp("the MCP client", "it cancelled the task (tasks/cancel)"));
    for (const w of [...this.waiters]) w(r);
  }

  /** Change the record (compare-and-set, re-read on conflict). */
  private async change(change: (r: CallRecord) => CallChange): Promise<CallRecord | undefined> {
    const next = await changeRecord(this.tasks.store, this.record!, change);
    if (next && next.version > this.record!.version) this.record = next;
    return next;
  }

  /** Put a question to the client (status `input_required`); resolves with the answer the record takes first. */
  private async question(
    method: "elicitation/create" | "sampling/createMessage",
    params: Record<string, unknown>,
    prefix: string,
    statusMessage: string,
    questionId: string | undefined,
    signal: AbortSignal,
    onAsked?: (r: CallRecord) => void,
    status: "input_required" | "working" = "input_required",
  ): Promise<CallAnswer> {
    // A resumed task's body asks again what it asked before its restart, in order: answered from the record, or the
    // question the dead process left open (it stays the client's, same key, bound to the same record).
    const next = this.past[0]?.key.startsWith(`${prefix}-`) && this.past[0].method === method ? this.past.shift()! : undefined;
    if (next?.answer) return next.answer;
    if (!next) this.past.length = 0;
    await this.become(statusMessage);
    let key = "";
    let round = 0;
    const answered = (r: CallRecord): CallAnswer | undefined => r.answers.find((a) => a.key === key);
    const asked = next
      ? await this.change((r) => {
          key = next.key;
          round = r.round;
          // Its answer may have come already (tasks/update before the body asked again).
          if (answered(r)) return {};
          return { status, statusMessage, ...(questionId && r.question ? { question: { ...r.question, questionId } } : {}) };
        })
      : await this.change((r) => {
          round = r.round + 1;
          key = `${prefix}-${round}`;
          const mine: CallQuestion = { key, method, params, ...(questionId ? { questionId } : {}) };
          // The body asks while its other question is open (Promise.all of two ctx.elicit()): both are open at once.
          const beside =
            status === "input_required" && r.status === "input_required"
              ? openQuestions(r.question).filter((q) => !q.key.startsWith("approve-"))
              : [];
          return { status, statusMessage, round, question: questionOf([...beside, mine]) };
        });
    if (!asked) throw new Cancelled(`the task of '${this.start.tool}' ended before its question was asked`);
    this.start.ctx.emit("mcp.task.question", { taskId: asked.id, key, method, status });
    // The Asker is asked only while the question is open (a recovered one may be answered already).
    if (!answered(asked)) onAsked?.(asked);
    const answer = await new Promise<CallAnswer>((resolve, reject) => {
      const check = (r: CallRecord): void => {
        const answer = answered(r);
        if (answer) return done(() => resolve(answer));
        if (FINAL_CALL_STATUSES.has(r.status))
          return done(() => reject(new Cancelled(`the task of '${this.start.tool}' ended (${r.status}) before its question was answered`)));
      };
      const aborted = (): void =>
        done(() => reject(signal.reason instanceof Error ? signal.reason : new Cancelled("the question was withdrawn")));
      const done = (settle: () => void): void => {
        this.waiters.delete(check);
        signal.removeEventListener("abort", aborted);
        settle();
      };
      this.waiters.add(check);
      signal.addEventListener("abort", aborted, { once: true });
      if (signal.aborted) return aborted();
      check(this.record!);
    });
    this.start.ctx.emit("mcp.task.answered", { taskId: this.record!.id, key, by: answer.by });
    return answer;
  }

  /** `ctx.elicit()` / `ctx.sample()` inside the call: the task's `input_required` question, answered through `tasks/update`. */
  async ask(method: "elicitation/create" | "sampling/createMessage", params: Record<string, unknown>): Promise<unknown> {
    const answer = await this.question(
      method,
      params,
      method === "elicitation/create" ? "elicit" : "sample",
      "waiting for input",
      undefined,
      this.start.ctx.signal,
    );
    return answer.value;
  }

  /**
   * The guard asks a person: the call becomes a task (input_required with the
   * approval form) and the run's Asker is asked too. The record's
   * compare-and-set decides which answer is first; the other side is
   * withdrawn at once (the Asker's signal aborts), and the gate records the
   * one decision, naming who answered.
   */
  private async approval(asker: Asker, elicitation: Elicitation, options: AskOptions): Promise<Decision> {
    const withdraw = new AbortController();
    const onAbort = (): void => withdraw.abort(options.signal.reason);
    options.signal.addEventListener("abort", onAbort, { once: true });
    try {
      // Once the question is on the record, the run's Asker is asked too; its answer goes through the same compare-and-set.
      // The run's Asker's own answer (or failure) is kept as it came: the gate reads it as it would without a task (an
      // answer that is not a Decision, a throwing getter, an Asker that threw); the record holds its JSON for the race.
      let own: { readonly decision: unknown } | { readonly error: unknown } | undefined;
      const askAsker = (asked: CallRecord): void => {
        const open = asked.question!;
        const settle = (value: Record<string, unknown>, by: string) =>
          this.tasks.store.answerRecord(asked.id, asked.round, { key: open.key, method: open.method, value, by });
        void Promise.resolve()
          .then(() => asker.ask(elicitation, { signal: withdraw.signal, questionId: options.questionId }))
          .then(
            async (decision: unknown) => {
              if (withdraw.signal.aborted) return;
              own = { decision };
              await settle({ decision: jsonCopy(decision) }, ASKER_ANSWERED);
            },
            async (error: unknown) => {
              if (withdraw.signal.aborted) return;
              own = { error };
              await settle({ error: errorLine(error) }, ASKER_ANSWERED);
            },
          )
          .catch(() => undefined);
      };
      // The module's own Asker has the question: the task stays `working` ("waiting for approval"), so a client keeps polling
      // and gets the result once the person answers there (Claude Code stops polling at input_required until its own user
      // answers in /tasks). The question is on the record all the same: a tasks/update naming its key still races the Asker.
      const answer = await this.question(
        "elicitation/create",
        approvalForm(elicitation),
        "approve",
        "waiting for approval",
        options.questionId || undefined,
        options.signal,
        askAsker,
        "working",
      );
      if (answer.by === CLIENT_ANSWERER) {
        withdraw.abort(new Cancelled("answered by the MCP client (tasks/update)"));
        return decisionOf(answer);
      }
      if (own && "error" in own) throw own.error;
      return (own ? own.decision : decisionOf(answer)) as Decision;
    } finally {
      options.signal.removeEventListener("abort", onAbort);
    }
  }

  /** The guard admitted the call: `started` is recorded before the body runs (a store that fails refuses the run). */
  async admitted(): Promise<string | undefined> {
    // A resumed task whose body had started is running it again: its record says so already (and may hold its open question).
    if (this.start.resumed?.started) return undefined;
    this.started = true;
    if (!this.creating) return undefined;
    try {
      await this.creating;
      await this.change(() => ({ started: true, status: "working", statusMessage: "running" }));
      return undefined;
    } catch (err) {
      return `tool '${this.start.tool}' was not run: the task store failed: ${errorLine(err)}`;
    }
  }

  /** The call ended: its record takes the end (`true`), or there is no task and the request answers (`false`). */
  async finish(outcome: ToolOutcome, result: Record<string, unknown>): Promise<boolean> {
    if (this.timer) clearTimeout(this.timer);
    this.stopAsking();
    if (!this.creating) return false;
    try {
      await this.creating;
    } catch {
      return false;
    }
    const end = await this.change((r) => finalChange(outcome, result, r)).catch(() => undefined);
    this.off?.();
    this.tasks.track(this.record!.id, undefined);
    this.start.ctx.emit("mcp.task.status", { taskId: this.record!.id, status: end?.status ?? this.record!.status });
    return true;
  }

  /** The call was never made a task and is over: stop the timer and the approval routing. */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.stopAsking();
  }
}
