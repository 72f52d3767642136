/**
 * @module mcp/serve/suspended-calls
 * Multi-round-trip (protocol revision 2026-07-28) on loopback, for
 * `ctx.elicit()` / `ctx.sample()` inside a served tool's `run()`. The era has
 * no server-to-client request mid-call: the call's question is written to its
 * record (`round-records`), the call is answered `input_required` with a
 * `requestState` naming that record and round (the module's signer,
 * `request-state`), and the tool's promise stays suspended in this process.
 * The client's retry is taken once by the store (a replayed state is refused
 * with `-32602`) and resumes the same run. Suspended calls are capped and
 * expire (the tool's context is cancelled with a `ClientGaveUp`).
 */
import type { ServerContext } from "@modelcontextprotocol/server";
import type { CallRecord } from "../../contracts/call-record.js";
import { ClientRequestError } from "../../context/client-request.error.js";
import { Cancelled } from "../../errors/cancelled.error.js";
import { ClientGaveUp } from "../../errors/client-gave-up.error.js";
import type { RunContext } from "../../context/run-context.js";
import { errorLine, seconds } from "../../util/format.js";
import { refuse, type RoundClaim } from "./request-state.js";
import { envelopeClient, kindOf, type AskMethod, type RoundCall, type RoundRecords } from "./round-records.js";

export { envelopeClient, type AskMethod } from "./round-records.js";

/** At most this many calls wait on their client's answer at once, by default. */
export const DEFAULT_MAX_SUSPENDED = 64;
/** A suspended call not resumed within this many ms is abandoned, by default (ten minutes). */
export const DEFAULT_SUSPEND_TTL_MS = 600_000;

/** How a call's questions reach its client: `ask` (from the call's channel), and `reply` (the call's one answer). */
export interface CallRounds {
  ask(method: AskMethod, params: Record<string, unknown>): Promise<unknown>;
  reply(result: unknown): void;
}

/** One call's exchange hooks: what the call handler does when its call suspends and when a retry resumes it. */
export interface RoundHooks {
  /** The call's answer to the current exchange went out (`input_required`): stop what belongs to that exchange. */
  suspended(): void;
  /** A retry took the call over: bind progress, logs, heartbeat and cancellation to `extra` and its server's in-flight calls. */
  resumed(extra: ServerContext, calls: Map<string | number, RunContext>): void;
}

/**
 * One 2026-07-28 call that may ask its client, on loopback. Built when the
 * call first asks; `ask()` is what the call's channel calls; `reply()` is the
 * only way the call's handler answers the exchange currently holding it.
 */
export class InputRounds implements CallRounds {
  private record: CallRecord | undefined;
  private respond: ((result: unknown) => void) | undefined;
  private pending: { method: AskMethod; resolve(v: unknown): void; reject(e: unknown): void } | undefined;
  private expiry: NodeJS.Timeout | undefined;
  private done = false;

  /** `client` names the client (from the call's envelope) when it gives up. */
  constructor(
    private readonly table: SuspendedCalls,
    private readonly records: RoundRecords,
    private readonly call: RoundCall,
    private readonly child: RunContext,
    private readonly hooks: RoundHooks,
    respond: (result: unknown) => void,
    private client: () => string,
  ) {
    this.respond = respond;
  }

  /** The tool's served name. */
  get tool(): string {
    return this.call.tool;
  }

  /** The id of the call's record (once its first question was recorded). */
  get recordId(): string | undefined {
    return this.record?.id;
  }

  /** The round of the question asked last (0 before the first). */
  get round(): number {
    return this.record?.round ?? 0;
  }

  /**
   * Suspend the run on a question: the question is recorded, then the
   * current exchange is answered `input_required`; resolves with the
   * client's answer from its retry. Rejects with a `ClientRequestError` when
   * the call cannot ask (one question at a time, the cap, the store failing).
   */
  ask(method: AskMethod, params: Record<string, unknown>): Promise<unknown> {
    if (this.done || !this.respond || this.pending)
      return Promise.reject(
        new ClientRequestError(
          kindOf(method),
          `${method}: the call to '${this.tool}' has no exchange to ask on (it already ended or is already waiting ` +
            `on an answer); ask one question at a time`,
        ),
      );
    const refusal = this.table.admit(this, kindOf(method));
    if (refusal) return Promise.reject(refusal);
    const answer = new Promise<unknown>((resolve, reject) => (this.pending = { method, resolve, reject }));
    void this.suspend(method, params);
    return answer;
  }

  /**
   * A retry of this call (its state already verified, naming `claim`): the
   * store takes the answer once, then the suspended question resolves with
   * it and this exchange holds the call. Rejects with a `-32602` naming why
   * the retry was refused (the call keeps waiting for a good one).
   */
  async resume(claim: RoundClaim, extra: ServerContext, calls: Map<string | number, RunContext>): Promise<unknown> {
    if (!this.pending || this.respond || !this.record)
      throw refuse(
        `requestState: the call to '${this.tool}' is not waiting on an answer (round ${claim.round} was already ` +
          `answered); send each requestState once`,
      );
    const { record, value } = await this.records.take(claim, this.record, { ...this.call, extra });
    const pending = this.pending;
    if (this.done || !pending)
      throw refuse(`requestState: the call to '${this.tool}' ended while its answer was being recorded; call the tool afresh without one`);
    this.record = record;
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = undefined;
    this.pending = undefined;
    const result = new Promise<unknown>((resolve) => (this.respond = resolve));
    this.client = () => envelopeClient(extra);
    this.hooks.resumed(extra, calls);
    pending.resolve(value);
    return result;
  }

  /**
   * The call ended (a result, a cancel, the deadline, the server stopping): answer the exchange holding it, if any; its
   * record is final; forget the call.
   */
  reply(result: unknown): void {
    this.done = true;
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = undefined;
    this.table.forget(this);
    if (this.record) this.records.ended(this.record, this.child.cancelled ? "cancelled" : "completed");
    const pending = this.pending;
    this.pending = undefined;
    // After the ending's own cancel (the deadline, the server stopping cancel right after answering): the question rejects with its reason.
    if (pending)
      queueMicrotask(() =>
        pending.reject(
          this.child.cancelled
            ? this.child.signal.reason
            : new Cancelled(`the call to '${this.tool}' ended while it waited on its client's answer`),
        ),
      );
    const respond = this.respond;
    this.respond = undefined;
    respond?.(result);
  }

  /** Record the question, then answer the exchange `input_required` (unless the call ended meanwhile). */
  private async suspend(method: AskMethod, params: Record<string, unknown>): Promise<void> {
    let asked;
    try {
      asked = await this.records.asked(this.record, this.call, method, params);
    } catch (err) {
      const pending = this.pending;
      this.pending = undefined;
      this.table.forget(this);
      pending?.reject(
        new ClientRequestError(
          kindOf(method),
          `${method}: the call to '${this.tool}' could not record its question, so it was not asked: ${errorLine(err)}`,
          { cause: err },
        ),
      );
      return;
    }
    this.record = asked.record;
    this.table.track(asked.record.id, this);
    const respond = this.respond;
    if (this.done || !respond) return; // the call ended while its question was being recorded; reply() settled it
    this.respond = undefined;
    this.hooks.suspended();
    this.expiry = setTimeout(() => this.expire(method), this.table.ttlMs);
    this.expiry.unref(); // the listener keeps the process up; a waiting call alone does not
    respond({ resultType: "input_required", inputRequests: { [asked.key]: { method, params } }, requestState: asked.state });
  }

  private expire(method: AskMethod): void {
    this.expiry = undefined;
    this.child.cancel(
      new ClientGaveUp(
        this.client(),
        `it did not retry with the answer to ${method} within ${seconds(this.table.ttlMs)} (multi-round-trip, MCP 2026-07-28)`,
      ),
    );
  }
}

/**
 * The calls of one served registry waiting on their client's answer, by
 * record id. At most `max` wait at once (the next question is refused with a
 * `ClientRequestError` naming the cap); each waits at most `ttlMs`.
 */
export class SuspendedCalls {
  private readonly admitted = new Set<InputRounds>();
  private readonly byRecord = new Map<string, InputRounds>();

  constructor(
    readonly max: number = DEFAULT_MAX_SUSPENDED,
    readonly ttlMs: number = DEFAULT_SUSPEND_TTL_MS,
  ) {}

  /** How many calls wait now. */
  get size(): number {
    return this.admitted.size;
  }

  /** `undefined` when `call` may wait (it already does, or there is room); else the refusal naming the cap. */
  admit(call: InputRounds, kind: "elicitation" | "sampling"): ClientRequestError | undefined {
    if (this.admitted.has(call)) return undefined;
    if (this.admitted.size >= this.max) {
      return new ClientRequestError(
        kind,
        `the call to '${call.tool}' cannot ask its client: ${this.max} calls are already waiting on their clients' ` +
          `answers (the cap); answer or cancel those, or raise the cap`,
      );
    }
    this.admitted.add(call);
    return undefined;
  }

  /** `call` waits under record `id` (its retry finds it there). */
  track(id: string, call: InputRounds): void {
    if (this.admitted.has(call)) this.byRecord.set(id, call);
  }

  /** Drop an ended call. */
  forget(call: InputRounds): void {
    this.admitted.delete(call);
    const id = call.recordId;
    if (id !== undefined && this.byRecord.get(id) === call) this.byRecord.delete(id);
  }

  /** The call waiting under record `id`; a `-32602` when none does here. */
  waitingOn(id: string): InputRounds {
    const call = this.byRecord.get(id);
    if (!call)
      throw refuse(
        "requestState: no call is waiting under it (it already ended, expired, or the server restarted); call the tool afresh without one",
      );
    return call;
  }
}
