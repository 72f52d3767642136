/**
 * @module mcp/serve/round-records
 * A 2026-07-28 multi-round-trip call that asks its client is one
 * `CallRecord` (kind `"rounds"`) in the served module's `CallRecordStore`,
 * on loopback and hosted alike. Its question is written to the record
 * before the `input_required` answer (and the `requestState` naming the
 * record and round) leaves the process; the client's retry is taken by the
 * store's compare-and-set (`answerRecord`), so each round is answered once
 * on every process sharing the store: a replayed state is refused with a
 * JSON-RPC `-32602` naming why. A server-side guard's verdict is the
 * record's first answer (key `guard`), so a call run again is not asked
 * about again.
 *
 * The contract a tool author relies on: code after a question runs once per
 * call; code before a question may run again (a hosted call runs again from
 * the top on each answer, its earlier questions answered from the record).
 */
import { createHash, randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { ServerContext } from "@modelcontextprotocol/server";
import type { Caller } from "../../context/caller.js";
import {
  FINAL_CALL_STATUSES,
  type CallAnswer,
  type CallQuestion,
  type CallRecord,
  type CallRecordStore,
  type CallStatus,
} from "../../contracts/call-record.js";
import { newRecordId } from "../../records/memory-call-records.js";
import type { Admission } from "../../tools/tool-invocation.js";
import { describeValue, errorLine } from "../../util/format.js";
import { getLogger } from "../../util/logger.js";
import { refuse, type RequestStateSigner, type RoundClaim } from "./request-state.js";

/** The two questions a tool can ask its client. */
export type AskMethod = CallQuestion["method"];

/** The key of a guard's verdict among a record's answers. */
export const GUARD_ANSWER_KEY = "guard";

/** At most this many questions in one call before its record may be dropped (its TTL is this many state lifetimes). */
export const RECORD_TTL_ROUNDS = 17;

/** How often, at most, a module's rounds sweep expired records from the store. */
const SWEEP_EVERY_MS = 60_000;
/** A state is minted just after its record is written: a record is past its state's life this long after `lastUpdatedAt + ttl`. */
const STATE_CLOCK_SLACK_MS = 5_000;

const CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo";

/** Reads the client's name from the 2026-07-28 envelope (for the record of a client that gave up, or answered). */
export function envelopeClient(extra: ServerContext): string {
  const info = (extra.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_INFO_META_KEY] as { name?: unknown } | undefined;
  return typeof info?.name === "string" && info.name ? info.name : "the MCP client";
}

const ACTIONS = new Set(["accept", "decline", "cancel"]);
const ROLES = new Set(["assistant", "user"]);

/** What is wrong with a client's answer to `method` (the shape the tool's `ctx.elicit()` / `ctx.sample()` promises), or `undefined`. */
export function answerProblem(method: AskMethod, a: Record<string, unknown>): string | undefined {
  if (method === "elicitation/create") {
    const ok =
      typeof a.action === "string" &&
      ACTIONS.has(a.action) &&
      (a.action !== "accept" ||
        a.content === undefined ||
        (typeof a.content === "object" && a.content !== null && !Array.isArray(a.content)));
    return ok
      ? undefined
      : `an answer to elicitation/create needs action 'accept', 'decline' or 'cancel' (and content, an object, with 'accept'); got action ${describeValue(a.action)}`;
  }
  const ok =
    typeof a.role === "string" && ROLES.has(a.role) && typeof a.content === "object" && a.content !== null && typeof a.model === "string";
  return ok
    ? undefined
    : `an answer to sampling/createMessage needs role 'assistant' or 'user', content (an object or array) and model (a string); got ${describeValue(a)}`;
}

/** `ClientRequestError`'s kind of a question. */
export function kindOf(method: AskMethod): "elicitation" | "sampling" {
  return method === "elicitation/create" ? "elicitation" : "sampling";
}

/** The key of round `round`'s question in `inputRequests` / `inputResponses`. */
export function questionKey(method: AskMethod, round: number): string {
  return `${method === "elicitation/create" ? "elicit" : "sample"}-${round}`;
}

/**
 * The call a question belongs to: its tool, its arguments as received, the exchange holding it, and its guard's verdict
 * (when a guard admitted it).
 */
export interface RoundCall {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly extra: ServerContext;
  readonly admitted?: () => Admission | undefined;
}

/** A retry taken: the record with its answer, and the answer the tool receives. */
export interface TakenAnswer {
  readonly record: CallRecord;
  readonly value: unknown;
}

/** The guard's verdict a record holds (the first run's), if any. */
export function admittedBy(record: CallRecord | undefined): Admission | undefined {
  const a = record?.answers.find((x) => x.key === GUARD_ANSWER_KEY);
  const content = (a?.value as { content?: { approve?: unknown; arguments?: unknown } } | undefined)?.content;
  if (content?.approve !== true) return undefined;
  const args = content.arguments;
  return args && typeof args === "object" && !Array.isArray(args)
    ? { allowed: true, arguments: args as Record<string, unknown> }
    : { allowed: true };
}

/** The client's answers a record holds, in the order the tool asked (the guard's verdict left out). */
export function clientAnswers(record: CallRecord | undefined): readonly CallAnswer[] {
  return record ? record.answers.filter((a) => a.key !== GUARD_ANSWER_KEY) : [];
}

/** Why round `round` of `record` cannot take an answer now (a replay, or the call ended), as a -32602 message; `undefined` when it can. */
function replayed(record: CallRecord, round: number): string | undefined {
  if (round < record.round || (round === record.round && !record.question)) {
    const next = FINAL_CALL_STATUSES.has(record.status) ? "the call already ended" : "retry with the latest requestState";
    return (
      `requestState: round ${round} of this call was already answered (a replayed state: each requestState is ` +
      `answered once); ${next}, or call the tool afresh without one`
    );
  }
  if (FINAL_CALL_STATUSES.has(record.status))
    return `requestState: the call already ended (${record.status}); call the tool afresh without one`;
  if (round > record.round)
    return "requestState: it names a round this call never asked (not a state this server issued); call the tool afresh without one";
  return undefined;
}

/**
 * The waiting calls of one served module, in its store, under its signer.
 * `ownerOf(extra)` is the caller a record is bound to (see `CallRecord.owner`).
 */
export class RoundRecords {
  private readonly worker = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  private lastSweep = 0;

  constructor(
    readonly store: CallRecordStore,
    readonly signer: RequestStateSigner,
    readonly server: string,
    private readonly ownerOf: (extra: ServerContext) => string,
  ) {}

  /** The round a retry's `requestState` names (a bad state rejects with `-32602`, see `RequestStateSigner.open`). */
  open(state: unknown, call: RoundCall): Promise<RoundClaim> {
    return this.signer.open(state, call.tool, call.args, call.extra);
  }

  /**
   * Record that `call` asks `method` now: the record is created on its first
   * question (with the guard's verdict, if any) and advanced on later ones
   * (compare-and-set on `current`), then the state naming the round is
   * minted. Rejects with the store's error, or when the record changed
   * under the call; nothing has left the process then.
   */
  async asked(
    current: CallRecord | undefined,
    call: RoundCall,
    method: AskMethod,
    params: Record<string, unknown>,
  ): Promise<{ readonly record: CallRecord; readonly key: string; readonly state: string }> {
    const round = (current?.round ?? 0) + 1;
    const question: CallQuestion = { key: questionKey(method, round), method, params };
    const waiting = { status: "input_required" as const, statusMessage: `waiting on the client's answer (${method})`, round, question };
    let record: CallRecord;
    if (!current) {
      record = this.fresh(call, waiting);
      await this.store.createRecord(record);
      this.sweep();
    } else {
      const next = await this.store.updateRecord(current.id, current.version, waiting);
      if (!next.ok)
        throw new Error(
          `call record '${current.id}' changed under the call (now ` +
            `${next.record ? `${next.record.status} at round ${next.record.round}` : "gone"})`,
        );
      record = next.record;
    }
    return { record, key: question.key, state: await this.signer.mint({ id: record.id, round }, call.tool, call.args, call.extra) };
  }

  /**
   * Take a retry's answer to round `claim.round`: the record (`known`, or
   * read from the store under the caller) must wait on that round, the
   * retry must carry a well-formed answer under the question's key, and the
   * store's compare-and-set must take it. Rejects with a `-32602` naming
   * why not: no such record here (naming the fix for a fleet), a replayed
   * round, an ended call, a missing or malformed answer.
   */
  async take(claim: RoundClaim, known: CallRecord | undefined, call: RoundCall): Promise<TakenAnswer> {
    const record = known?.id === claim.id ? known : await this.store.getRecord(claim.id, this.ownerOf(call.extra));
    if (!record) {
      throw refuse(
        "requestState: this process's call-record store has no record of the call (it expired, or it was asked on a process that does not share this store: give every process of the fleet the same store, e.g. agentkit host --store postgres://...); call the tool afresh without one",
      );
    }
    const why = replayed(record, claim.round);
    if (why) throw refuse(why);
    const { key, method } = record.question!;
    const value = call.extra.mcpReq.inputResponses?.[key];
    if (value === null || typeof value !== "object") {
      throw refuse(
        `inputResponses: the retry of '${call.tool}' carries no answer under '${key}' (the key of the question in ` +
          `the input_required result); answer that question and retry with the same requestState`,
      );
    }
    const wrong = answerProblem(method, value as Record<string, unknown>);
    if (wrong) throw refuse(`inputResponses['${key}']: ${wrong}`);
    const taken = await this.store.answerRecord(claim.id, claim.round, {
      key,
      method,
      value,
      by: `${envelopeClient(call.extra)} (requestState retry)`,
    });
    if (!taken.ok)
      throw refuse(
        taken.record
          ? (replayed(taken.record, claim.round) ?? `requestState: round ${claim.round} of this call was already answered`)
          : "requestState: the call's record is gone; call the tool afresh without one",
      );
    return { record: taken.record, value };
  }

  /** The call ended (`status`): its record is final. A store error is logged, never thrown: the call's answer still goes out. */
  ended(record: CallRecord, status: Extract<CallStatus, "completed" | "failed" | "cancelled">): void {
    this.store.updateRecord(record.id, record.version, { status, statusMessage: status, question: undefined }).catch((err: unknown) => {
      getLogger().warn(
        `agentkit: could not mark call record '${record.id}' of '${record.tool}' ${status}: ${errorLine(err)} (it expires with its TTL)`,
      );
    });
  }

  private fresh(call: RoundCall, waiting: Pick<CallRecord, "status" | "statusMessage" | "round" | "question">): CallRecord {
    const now = new Date().toISOString();
    const admitted = call.admitted?.();
    const guard: CallAnswer[] = admitted?.allowed
      ? [
          {
            key: GUARD_ANSWER_KEY,
            method: "elicitation/create",
            value: { action: "accept", content: { approve: true, ...(admitted.arguments ? { arguments: admitted.arguments } : {}) } },
            by: "the module's approval guard",
          },
        ]
      : [];
    return {
      id: newRecordId(),
      kind: "rounds",
      owner: this.ownerOf(call.extra),
      server: this.server,
      tool: call.tool,
      arguments: call.args,
      ...waiting,
      started: true,
      answers: guard,
      cancelRequested: false,
      worker: this.worker,
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.signer.ttlMs * RECORD_TTL_ROUNDS,
      pollIntervalMs: 0, // a rounds call is never polled: its client retries with the answer
      version: 1,
    };
  }

  /** Now and then: end this module's rounds whose question outlived its state, and drop expired final records. */
  private sweep(): void {
    const now = Date.now();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    this.sweepNow(now).catch((err: unknown) =>
      getLogger().warn(`agentkit: could not sweep the call records of '${this.server}': ${errorLine(err)}`),
    );
  }

  /**
   * A hosted call whose client never came back leaves its record waiting,
   * and no process waits in it: once its question's state has expired no
   * retry can answer it, so it ends `cancelled` (compare-and-set: a record
   * that moved meanwhile is left alone), and `expireRecords` drops it later.
   */
  private async sweepNow(now: number): Promise<void> {
    for (const r of await this.store.openRecords(this.server)) {
      if (
        r.kind !== "rounds" ||
        r.status !== "input_required" ||
        Date.parse(r.lastUpdatedAt) + this.signer.ttlMs + STATE_CLOCK_SLACK_MS > now
      )
        continue;
      await this.store.updateRecord(r.id, r.version, {
        status: "cancelled",
        statusMessage: "its client did not come back with the answer before the request state expired",
        question: undefined,
      });
    }
    await this.store.expireRecords(new Date(now));
  }
}

/** The owner of a record: a hash of the served module's name and (hosted) the caller's client and subject. */
export function recordOwner(server: string, caller: Caller | undefined): string {
  const who = caller?.kind === "hosted" ? `${caller.clientId}\0${caller.subject ?? ""}` : "";
  return createHash("sha256").update(`${server}\0${who}`).digest("base64url");
}
