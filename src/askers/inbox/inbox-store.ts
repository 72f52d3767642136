/**
 * @module askers/inbox/inbox-store
 * Where an inbox's questions and decisions live, behind one small interface:
 * the asking side puts a question and waits for it to be settled; the page
 * settles it (compare-and-set: the first settlement wins). The default store
 * lives in this process; a database-backed one (rows for the truth, a
 * notification for the wake-up) implements the same interface so asking
 * processes elsewhere and the one page meet there. Every inbox store is
 * also a `CallRecordStore` (`contracts/call-record`): the same database
 * holds questions, decisions and the records of calls that wait.
 */
import type { CallAnswer, CallChange, CallRecord, CallRecordEvent, CallRecordStore, CallUpdate } from "../../contracts/call-record.js";
import type { ToolFacts } from "../../contracts/elicitation.js";
import type { GateSource } from "../../gate/gate-source.js";
import { checkOptions, opt } from "../../options/option-checks.js";
import { MEMORY_RECORD_LIMIT, MemoryCallRecords } from "../../records/memory-call-records.js";
import type { RunClaim, RunHead, RunStatus, RunStep, RunStore, RunSummary } from "../../contracts/run-record.js";
import { MemoryRuns } from "../../records/memory-runs.js";
import { InboxError } from "./inbox.error.js";
import { checkAnswer, checkChange, checkExpiry, checkRecord, duplicateRecord } from "./record-input.js";

/** Where a question stands. Only `pending` can change, exactly once. */
export type QuestionStatus = "pending" | "answered" | "timed_out" | "withdrawn" | "abandoned";

/** A person's answer as the page recorded it. */
export interface InboxAnswer {
  /** `approve`, `reject` or `modify`. */
  readonly kind: "approve" | "reject" | "modify";
  /**
   * Who answered, as the page's server knows it: the session the answer came
   * through (`inbox session 2 (3fa9c1)`), never text from the request.
   */
  readonly actor: string;
  /** The name typed on the page, when one was: self-declared, nothing checks it (recorded as `claimedActor`). */
  readonly claimed?: string;
  /** The database login that wrote the answer, on a shared store (set by the store's SQL, not by the page's request). */
  readonly login?: string;
  /** A rejection's note (may be empty). */
  readonly note?: string;
  /** For `modify`: the edited arguments (a JSON object, checked by the page's server). */
  readonly value?: Record<string, unknown>;
}

/**
 * The `actor` a decision records for `answer`: its session, after the
 * database login that wrote it when a shared store says which
 * (`inbox_page: inbox session 2 (3fa9c1)`).
 */
export function answerActor(answer: InboxAnswer): string {
  return answer.login ? `${answer.login}: ${answer.actor}` : answer.actor;
}

/** Who answered, in words for the page: the actor, then a typed name as a claim (`… (claims “alice”)`). Not escaped. */
export function answeredByText(answer: InboxAnswer | undefined): string {
  if (!answer) return "?";
  return `${answerActor(answer)}${answer.claimed ? ` (claims “${answer.claimed}”)` : ""}`;
}

/** One question as stored (plain JSON, so a database can hold it). */
export interface StoredQuestion {
  /** The inbox's own id (a UUID), the key of every operation. */
  readonly id: string;
  /** The tool call's id as the asking side named it, when there was one. */
  readonly callId: string | null;
  /** The tool name (`"(no tool)"` for a plain question). */
  readonly tool: string;
  /** The arguments as asked about. */
  readonly arguments: Record<string, unknown>;
  /** The question in words. */
  readonly question: string;
  /**
   * What the tool declares about itself (description, caps, annotations), bounded (`boundedToolFacts`); absent when the
   * asking side did not know the tool.
   */
  readonly toolFacts?: ToolFacts;
  /** Which entry point asked (`approval_server`, `mcp_guard`, `react`, ...), or `null`. */
  readonly source: string | null;
  /** Which run or server it came from: the `source` given to `inbox.asker({ source })`. */
  readonly from: string;
  /** When it was asked, ISO 8601. */
  readonly askedAt: string;
  /** When the asking side's deadline fires, ISO 8601, or `null` (it waits forever). */
  readonly deadlineAt: string | null;
  readonly status: QuestionStatus;
  /** Set when `status` is `answered`. */
  readonly answer?: InboxAnswer;
  /** When it stopped being pending, ISO 8601. */
  readonly settledAt?: string;
  /** Why it was timed out, withdrawn or abandoned, in words. */
  readonly reason?: string;
  /** The asking process, in a shared store (`host:pid:...`); a question whose process stops renewing its lease is `abandoned`. */
  readonly worker?: string;
  /** The asking process's name as its owner gave it (`inboxAsker({ worker })`, `--worker NAME`), shown on the page. */
  readonly workerName?: string;
}

/** One row of the decisions list: a gate record's facts (without the arguments), plus where it came from. */
export interface StoredDecision {
  /** The row's key: the question's id when the row is about an inbox question, else a fresh UUID. */
  readonly id: string;
  readonly tool: string;
  readonly allowed: boolean;
  /** How it was settled: `asker`, `auto_allow`, `autonomy`, `timeout` or `error`. */
  readonly source: GateSource;
  readonly asked: boolean;
  /** Who decided (the gate record's `actor`), or `null`. */
  readonly actor: string | null;
  /** The name the decider typed about themselves, self-declared (the gate record's `claimedActor`); absent when none. */
  readonly claimedActor?: string;
  readonly reason: string;
  /** ISO 8601. */
  readonly at: string;
  /** Which run or server (the asker's `source`). */
  readonly from: string;
  /** True once the gate's own record replaced the row the page wrote on answering. */
  readonly confirmed: boolean;
  /** The arguments decided on, when the row carries them (else the page shows its question's). */
  readonly arguments?: Record<string, unknown>;
}

/** What a store tells its subscribers. */
export type InboxEvent =
  | { readonly type: "question"; readonly question: StoredQuestion }
  | { readonly type: "settled"; readonly question: StoredQuestion }
  | { readonly type: "decision"; readonly decision: StoredDecision }
  /** A shared store lost its database: events may be missed until `available` (an asker waiting then denies, source `error`). */
  | { readonly type: "unavailable"; readonly error: Error }
  /** The database is back; events missed meanwhile have been delivered. */
  | { readonly type: "available" };

/** How a settlement went: it took effect, or the question was not pending (its current state, or `undefined` when unknown). */
export type SettleResult =
  { readonly ok: true; readonly question: StoredQuestion } | { readonly ok: false; readonly question: StoredQuestion | undefined };

/** What settles a pending question. */
export type Settlement =
  { readonly status: "answered"; readonly answer: InboxAnswer } | { readonly status: "timed_out" | "withdrawn"; readonly reason: string };

/**
 * The store seam of `ApprovalInbox.start({ store })` and `inboxAsker({ store })`.
 * Every method may be asynchronous (a database round trip). Contract:
 * - `put` adds a pending question and announces it (`question`).
 * - `settle` is compare-and-set: only a `pending` question changes, exactly
 *   once; the winner announces `settled`; a loser gets `{ ok: false }` and
 *   the question as it now stands.
 * - `recordDecision` inserts, or replaces the row with the same `id` (a confirmed row is never replaced by an
 * unconfirmed one), and announces `decision`.
 * - `subscribe` delivers every later event, in order, until the returned function is called.
 */
export interface InboxStore {
  /** Adds a pending question and announces it (`question`). */
  put(question: StoredQuestion): Promise<void>;
  /** Settles a pending question exactly once (compare-and-set); a loser gets `{ ok: false }` and the question as it stands. */
  settle(id: string, settlement: Settlement): Promise<SettleResult>;
  /** The question with this id, or `undefined`. */
  get(id: string): Promise<StoredQuestion | undefined>;
  /** Pending questions, oldest first. */
  pending(): Promise<StoredQuestion[]>;
  /** The latest decisions, newest first (at most `limit`). */
  decisions(limit: number): Promise<StoredDecision[]>;
  /** Inserts a decision, or replaces the row with its id (never a confirmed row by an unconfirmed one), and announces it (`decision`). */
  recordDecision(decision: StoredDecision): Promise<void>;
  /**
   * Delivers every later event to `listener`, in order, until the returned function is called. A store over a
   * database tells what changed after it listens, which it starts doing in the background: subscribe, then read
   * (`pending()`), and nothing falls between them.
   */
  subscribe(listener: (event: InboxEvent) => void): () => void;
}

/** How many settled questions and decisions the in-process store keeps (the oldest are dropped). */
export const MEMORY_STORE_LIMIT = 1000;

/** How many questions the in-process store holds pending at once, by default (a question past it is refused, so its call is denied). */
export const MEMORY_PENDING_LIMIT = 500;

/** Options of `new MemoryInboxStore()`. */
export interface MemoryInboxStoreOptions {
  /** The most questions pending at once (default `MEMORY_PENDING_LIMIT`, 500); `put` past it rejects with `InboxError` `inbox_full`. */
  readonly maxPending?: number;
  /**
   * The most call records held at once (default 10 000); past it the oldest final record is dropped, and with none
   * final `createRecord` rejects with `InboxError` `inbox_full`.
   */
  readonly maxRecords?: number;
}

/**
 * The default store: everything in this process's memory, bounded (the
 * newest `MEMORY_STORE_LIMIT` decisions and settled questions are kept; at
 * most `maxPending` questions pending, a question past that is refused with
 * `InboxError` `inbox_full`, which the gate turns into a deny). Its call
 * records are a `MemoryCallRecords` (at most `maxRecords`): the contract of
 * `CallRecordStore` in this process, gone with it.
 * Listeners are called synchronously, in order; one that throws is skipped.
 */
export class MemoryInboxStore implements InboxStore, CallRecordStore, RunStore {
  readonly #questions = new Map<string, StoredQuestion>();
  readonly #decisions = new Map<string, StoredDecision>();
  readonly #listeners = new Set<(event: InboxEvent) => void>();
  readonly #maxPending: number;
  readonly #records: MemoryCallRecords;
  #pendingCount = 0;
  readonly #runs = new MemoryRuns();

  /** @throws OptionsError when `maxPending` or `maxRecords` is not a positive integer. */
  constructor(options: MemoryInboxStoreOptions = {}) {
    const o = checkOptions(options, "MemoryInboxStore", {
      maxPending: opt.positiveInt(MEMORY_PENDING_LIMIT),
      maxRecords: opt.positiveInt(MEMORY_RECORD_LIMIT),
    });
    this.#maxPending = o.maxPending;
    this.#records = new MemoryCallRecords(o.maxRecords);
  }

  /** Adds a pending question and announces it (`question`). */
  put(question: StoredQuestion): Promise<void> {
    if (question.status === "pending" && !this.#questions.has(question.id) && this.#pendingCount >= this.#maxPending) {
      return Promise.reject(
        new InboxError(
          "inbox_full",
          `the approval inbox already holds ${this.#maxPending} pending questions; the question about ` +
            `'${String(question.tool).slice(0, 100)}' was refused (its call is denied). Answer the waiting ones on ` +
            `the page, or give the store a larger maxPending`,
        ),
      );
    }
    if (question.status === "pending" && this.#questions.get(question.id)?.status !== "pending") this.#pendingCount++;
    this.#questions.set(question.id, Object.freeze({ ...question }));
    this.#trim(this.#questions, (q) => q.status !== "pending");
    this.#emit({ type: "question", question: this.#questions.get(question.id)! });
    return Promise.resolve();
  }

  /** Settles a pending question exactly once (compare-and-set); a loser gets `{ ok: false }` and the question as it stands. */
  settle(id: string, settlement: Settlement): Promise<SettleResult> {
    const q = this.#questions.get(id);
    if (!q || q.status !== "pending") return Promise.resolve({ ok: false, question: q });
    const settledAt = new Date().toISOString();
    const next: StoredQuestion = Object.freeze(
      settlement.status === "answered"
        ? { ...q, status: "answered", answer: Object.freeze({ ...settlement.answer }), settledAt }
        : { ...q, status: settlement.status, reason: settlement.reason, settledAt },
    );
    this.#questions.set(id, next);
    this.#pendingCount--;
    this.#emit({ type: "settled", question: next });
    return Promise.resolve({ ok: true, question: next });
  }

  /** The question with this id, or `undefined`. */
  get(id: string): Promise<StoredQuestion | undefined> {
    return Promise.resolve(this.#questions.get(id));
  }

  pending(): Promise<StoredQuestion[]> {
    return Promise.resolve([...this.#questions.values()].filter((q) => q.status === "pending"));
  }

  decisions(limit: number): Promise<StoredDecision[]> {
    return Promise.resolve([...this.#decisions.values()].reverse().slice(0, limit));
  }

  /** Inserts a decision, or replaces the row with its id (never a confirmed row by an unconfirmed one), and announces it (`decision`). */
  recordDecision(decision: StoredDecision): Promise<void> {
    const row = Object.freeze({ ...decision });
    // The gate's record is final: the page's row arriving after it (both are written without waiting) does not replace it.
    if (!row.confirmed && this.#decisions.get(row.id)?.confirmed) return Promise.resolve();
    // A replaced row keeps its place: the list is ordered by when the question was first decided.
    this.#decisions.set(row.id, row);
    this.#trim(this.#decisions, () => true);
    this.#emit({ type: "decision", decision: row });
    return Promise.resolve();
  }

  /** Delivers every later event to `listener`, in order, until the returned function is called. */
  subscribe(listener: (event: InboxEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Add a call record (see `CallRecordStore`).
   *
   * @throws InboxError (code `inbox_store`) `invalid` when the record is not a storable `CallRecord` (naming the field) or its id is
   * already held; InboxError `inbox_full` when `maxRecords` records are held and none is final.
   */
  async createRecord(record: CallRecord): Promise<void> {
    checkRecord(record);
    if (this.#records.has(record.id)) throw duplicateRecord(`createRecord '${record.id}'`);
    try {
      await this.#records.createRecord(record);
    } catch (err) {
      throw new InboxError("inbox_full", (err as Error).message, { cause: err });
    }
  }

  /** The record `id` when it is bound to `owner`, else `undefined`. */
  getRecord(id: string, owner: string): Promise<CallRecord | undefined> {
    return this.#records.getRecord(id, owner);
  }

  /**
   * Compare-and-set (see `CallRecordStore`). @throws InboxError (code `inbox_store`) `invalid` for a change of an unknown field or a
   * value of the wrong kind.
   */
  async updateRecord(id: string, version: number, change: CallChange): Promise<CallUpdate> {
    checkChange(id, version, change);
    return this.#records.updateRecord(id, version, change);
  }

  /**
   * Record the answer to round `round`'s open question once (see `CallRecordStore`). @throws InboxError (code `inbox_store`) `invalid`
   * for an answer that is not `{ key, method, value, by }`.
   */
  async answerRecord(id: string, round: number, answer: CallAnswer): Promise<CallUpdate> {
    checkAnswer(id, round, answer);
    return this.#records.answerRecord(id, round, answer);
  }

  /** The records of `server` that are not final, oldest first. */
  openRecords(server: string): Promise<CallRecord[]> {
    return this.#records.openRecords(server);
  }

  /**
   * Delete the final records whose `createdAt + ttlMs` is before `now`; returns how many went. @throws InboxError (code `inbox_store`)
   * `invalid` when `now` is not a valid Date.
   */
  async expireRecords(now: Date): Promise<number> {
    checkExpiry(now);
    return this.#records.expireRecords(now);
  }

  /** Every later record created or changed in this store, synchronously and in order, until the returned function is called. */
  subscribeRecords(listener: (event: CallRecordEvent) => void): () => void {
    return this.#records.subscribeRecords(listener);
  }

  /** This store's worker name: the holder of the durable runs it runs. */
  get worker(): string {
    return this.#runs.worker;
  }

  /** Add a durable run (see `RunStore`); rejects when its id is taken. */
  createRun(head: RunHead): Promise<void> {
    return this.#runs.createRun(head);
  }

  /** A durable run and its steps, or `undefined`. */
  loadRun(runId: string): Promise<{ head: RunHead; steps: readonly RunStep[] } | undefined> {
    return this.#runs.loadRun(runId);
  }

  /** Take a durable run nobody holds (in this process: one whose worker let go of it). */
  claimRun(runId: string, holder: string): Promise<RunClaim> {
    return this.#runs.claimRun(runId, holder);
  }

  /** Append a step to a run `holder` holds. */
  appendRunStep(runId: string, holder: string, step: RunStep): Promise<void> {
    return this.#runs.appendRunStep(runId, holder, step);
  }

  /** Append consecutive steps to a run `holder` holds, all or none. */
  appendRunSteps(runId: string, holder: string, steps: readonly RunStep[]): Promise<void> {
    return this.#runs.appendRunSteps(runId, holder, steps);
  }

  /** Set a held run's status (and its result). */
  setRunStatus(runId: string, holder: string, status: RunStatus, result?: Readonly<Record<string, unknown>>): Promise<void> {
    return this.#runs.setRunStatus(runId, holder, status, result);
  }

  /** Let go of a run. */
  releaseRun(runId: string, holder: string): Promise<void> {
    return this.#runs.releaseRun(runId, holder);
  }

  /** The durable runs, newest change first (`{ status }`: only those). */
  runs(filter?: { readonly status?: RunStatus }): Promise<RunSummary[]> {
    return this.#runs.runs(filter);
  }

  #emit(event: InboxEvent): void {
    for (const l of [...this.#listeners]) {
      try {
        l(event);
      } catch {
        // one broken subscriber must not keep the others (or the asker) from hearing it
      }
    }
  }

  #trim<T>(map: Map<string, T>, removable: (v: T) => boolean): void {
    if (map.size <= MEMORY_STORE_LIMIT) return;
    for (const [k, v] of map) {
      if (map.size <= MEMORY_STORE_LIMIT) break;
      if (removable(v)) map.delete(k);
    }
  }
}
