/**
 * @module records/memory-call-records
 * The in-process `CallRecordStore`: the default of a served module with no
 * `tasks.store`, and the record half of `MemoryInboxStore`. It keeps the
 * contract of `contracts/call-record` (compare-and-set, answered once,
 * owner-bound reads) but nothing outlives the process; for records that
 * survive a restart use an embedded (`pgliteInboxStore`) or shared
 * (`postgresInboxStore`) store.
 */
import { randomBytes } from "node:crypto";
import {
  FINAL_CALL_STATUSES,
  openQuestions,
  questionOf,
  type CallAnswer,
  type CallChange,
  type CallRecord,
  type CallRecordEvent,
  type CallRecordStore,
  type CallUpdate,
} from "../contracts/call-record.js";

/** How many records the in-process store holds at once by default (a `createRecord` past it rejects, so the call is not made a task). */
export const MEMORY_RECORD_LIMIT = 10_000;

/** A fresh record id: 144 random bits, base64url (24 characters). */
export function newRecordId(): string {
  return randomBytes(18).toString("base64url");
}

/** The record after `change` (version bumped, `lastUpdatedAt` now), frozen. */
export function changedRecord(record: CallRecord, change: CallChange, now = new Date()): CallRecord {
  return Object.freeze({ ...record, ...change, version: record.version + 1, lastUpdatedAt: now.toISOString() });
}

/** Why `answer` cannot be taken for `record`'s round `round` (`undefined` when it can). */
export function answerRefusal(record: CallRecord, round: number, answer: CallAnswer): string | undefined {
  if (FINAL_CALL_STATUSES.has(record.status)) return `the call already ended (${record.status})`;
  if (record.round !== round) return `round ${round} is not the open one (the call is at round ${record.round})`;
  if (!record.question) return `round ${round} was already answered`;
  const open = openQuestions(record.question).map((q) => q.key);
  if (!open.includes(answer.key))
    return `'${answer.key}' is not an open question (${open.map((k) => `'${k}'`).join(", ")} ${open.length === 1 ? "is" : "are"})`;
  return undefined;
}

/** The change that records `answer`: its question closed; the call working again once no other question is open. */
export function answeredChange(record: CallRecord, answer: CallAnswer): CallChange {
  const answers = [...record.answers, Object.freeze({ ...answer })];
  const left = openQuestions(record.question).filter((q) => q.key !== answer.key);
  if (left.length > 0) return { answers, question: questionOf(left) };
  return { answers, question: undefined, status: "working", statusMessage: "working" };
}

/**
 * Records in this process's memory, bounded (`maxRecords`, default
 * `MEMORY_RECORD_LIMIT`; final records past their TTL are dropped by
 * `expireRecords` and, oldest first, when the store is full). Listeners are
 * called synchronously, in order; one that throws is skipped.
 */
export class MemoryCallRecords implements CallRecordStore {
  readonly #records = new Map<string, CallRecord>();
  readonly #listeners = new Set<(event: CallRecordEvent) => void>();

  constructor(private readonly maxRecords: number = MEMORY_RECORD_LIMIT) {}

  /** How many records are held now. */
  get size(): number {
    return this.#records.size;
  }

  createRecord(record: CallRecord): Promise<void> {
    if (this.#records.has(record.id)) return Promise.reject(new Error(`a call record with id '${record.id}' already exists`));
    if (this.#records.size >= this.maxRecords && !this.#dropOldestFinal()) {
      return Promise.reject(
        new Error(
          `the in-process call-record store already holds ${this.maxRecords} records (the cap); let tasks end or use a database store`,
        ),
      );
    }
    const stored = Object.freeze({ ...record });
    this.#records.set(record.id, stored);
    this.#emit(stored);
    return Promise.resolve();
  }

  getRecord(id: string, owner: string): Promise<CallRecord | undefined> {
    const r = this.#records.get(id);
    return Promise.resolve(r && r.owner === owner ? r : undefined);
  }

  updateRecord(id: string, version: number, change: CallChange): Promise<CallUpdate> {
    const r = this.#records.get(id);
    if (!r || r.version !== version || FINAL_CALL_STATUSES.has(r.status)) return Promise.resolve({ ok: false, record: r });
    return Promise.resolve(this.#set(changedRecord(r, change)));
  }

  answerRecord(id: string, round: number, answer: CallAnswer): Promise<CallUpdate> {
    const r = this.#records.get(id);
    if (!r || answerRefusal(r, round, answer) !== undefined) return Promise.resolve({ ok: false, record: r });
    return Promise.resolve(this.#set(changedRecord(r, answeredChange(r, answer))));
  }

  openRecords(server: string): Promise<CallRecord[]> {
    const open = [...this.#records.values()].filter((r) => r.server === server && !FINAL_CALL_STATUSES.has(r.status));
    // oldest first by createdAt (a stable sort: records created in the same millisecond keep their order)
    return Promise.resolve(open.sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt)));
  }

  /** True when a record `id` is held (whoever's it is). */
  has(id: string): boolean {
    return this.#records.has(id);
  }

  expireRecords(now: Date): Promise<number> {
    let n = 0;
    for (const [id, r] of this.#records) {
      // only a final record goes: one still running is its process's (or its recoverer's) to end
      if (FINAL_CALL_STATUSES.has(r.status) && r.ttlMs !== null && Date.parse(r.createdAt) + r.ttlMs < now.getTime()) {
        this.#records.delete(id);
        n++;
      }
    }
    return Promise.resolve(n);
  }

  subscribeRecords(listener: (event: CallRecordEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #set(next: CallRecord): CallUpdate {
    this.#records.set(next.id, next);
    this.#emit(next);
    return { ok: true, record: next };
  }

  #dropOldestFinal(): boolean {
    for (const [id, r] of this.#records) {
      if (FINAL_CALL_STATUSES.has(r.status)) {
        this.#records.delete(id);
        return true;
      }
    }
    return false;
  }

  #emit(record: CallRecord): void {
    for (const l of [...this.#listeners]) {
      try {
        l({ type: "record", record });
      } catch {
        // one broken subscriber must not keep the others from hearing it
      }
    }
  }
}
