/**
 * @module contracts/call-record
 * The one record of a served call that waits: an MCP task
 * (`io.modelcontextprotocol/tasks`, 2026-07-28), a multi-round-trip call whose
 * question waits on its client (loopback or hosted), and the approval such a
 * call waits on. Each is a `CallRecord` in a `CallRecordStore`, the same
 * database as the inbox's questions and decisions (memory, PGlite,
 * PostgreSQL): written before anything that names it leaves the process (a
 * task handle, a `requestState`), changed only by compare-and-set, so each
 * question is answered once on every process that shares the store.
 *
 * The contract every store keeps:
 * - `create` resolves only once a `get` of the same id (from any process on
 *   the store) finds the record; an id already present rejects.
 * - `update(id, version, change)` applies `change` only when the stored
 *   record's `version` is `version`, bumps `version` by one and returns the
 *   new record; otherwise it returns `{ ok: false, record }` with the record
 *   as it now stands (`undefined` when there is none). A terminal status
 *   (`completed`, `failed`, `cancelled`) never changes again.
 * - `answer(id, round, key, value)` is the compare-and-set of a question:
 *   it records the answer only while round `round`'s question `key` is open
 *   (the record's `question` or one of its `others`; an answered one leaves
 *   the rest open, and the last one answered sets the call `working`), so a replayed answer (the same `requestState` again, a second
 *   `tasks/update`, another process) is refused with the record as it stands.
 * - `owner` binds a record to its caller; a store never returns a record to
 *   a reader that names another owner (`get(id, owner)`), so another caller's
 *   id is indistinguishable from an unknown one.
 * - `open({ server })` lists the records of one served module that are not
 *   terminal, oldest first: what a restarted process recovers.
 * - `subscribeRecords` tells of changes from every process on the store: not
 *   necessarily every version (a database may skip intermediate ones), but
 *   each record's versions in order, and always its last one.
 * - Every method may reject with the store's error (the database is down):
 *   a caller fails closed (no task is handed out, no answer is taken) and
 *   nothing already recorded is lost.
 */

/** Where a task (or a waiting call) stands; the first three may change, the last three are final. */
export type CallStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** The final statuses: a record in one of them never changes again. */
export const FINAL_CALL_STATUSES: ReadonlySet<CallStatus> = new Set(["completed", "failed", "cancelled"]);

/** One question a call asks its client (an MCP input request: `elicitation/create` or `sampling/createMessage`). */
export interface CallQuestion {
  /** Its key in `inputRequests` / `inputResponses`, unique for the call's life (`elicit-1`, `approve-2`, ...). */
  readonly key: string;
  /** The MCP method it stands for. */
  readonly method: "elicitation/create" | "sampling/createMessage";
  /** The request's params as the client receives them. */
  readonly params: Readonly<Record<string, unknown>>;
  /** The inbox question mirroring it (an approval also asked of the run's Asker), when there is one. */
  readonly questionId?: string;
  /**
   * Further questions open at the same time (a body asking several at once:
   * `Promise.all([ctx.elicit(a), ctx.elicit(b)])`), each answered on its own
   * and in any order; the call waits until the last is answered. Never nested.
   */
  readonly others?: readonly CallQuestion[];
}

/** Every question `question` holds open: itself (without `others`), then its `others`, in the order asked. */
export function openQuestions(question: CallQuestion | undefined): CallQuestion[] {
  if (!question) return [];
  const { others, ...first } = question;
  return [first, ...(others ?? [])];
}

/** The record's `question` holding `open` (the first, the rest as its `others`), or `undefined` when none is left. */
export function questionOf(open: readonly CallQuestion[]): CallQuestion | undefined {
  const [first, ...rest] = open;
  return first && Object.freeze({ ...first, ...(rest.length > 0 ? { others: rest } : {}) });
}

/** An answered question, in the order the call asked: what a call run again on another process (or after a restart) is answered from. */
export interface CallAnswer {
  readonly key: string;
  readonly method: CallQuestion["method"];
  /** The client's (or the person's) answer, as the tool receives it. */
  readonly value: unknown;
  /** Who answered, in words (`the MCP client (tasks/update)`, `inbox session 2 (3fa9c1)`). */
  readonly by: string;
}

/** A JSON-RPC error a task ended with (`failed`). */
export interface CallError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** One served call that waits, as stored (plain JSON, so a database can hold it). */
export interface CallRecord {
  /** Unguessable (≥ 128 random bits, base64url): the task id on the wire, and the key of every operation. */
  readonly id: string;
  /** `task`: the client holds a task handle; `rounds`: a multi-round-trip call answered in its own requests. */
  readonly kind: "task" | "rounds";
  /** The caller the record is bound to (a hash of the serving module's name on loopback, of the principal when hosted). */
  readonly owner: string;
  /** The served module's name. */
  readonly server: string;
  /** The tool's served name. */
  readonly tool: string;
  /** The call's arguments as received (a record outlives its process: a call is run again from them). */
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly status: CallStatus;
  /** A short line for the client (`waiting for approval`, `running`). */
  readonly statusMessage?: string;
  /** True once the tool body began (after the guard admitted it): a process that dies now may have done side effects. */
  readonly started: boolean;
  /** The number of the current question (0 before the first). */
  readonly round: number;
  /** The question the call waits on (status `input_required`), if any, with any others open at once (`question.others`). */
  readonly question?: CallQuestion;
  /** Every question answered so far, in order. */
  readonly answers: readonly CallAnswer[];
  /** The final `CallToolResult` (status `completed`). */
  readonly result?: Readonly<Record<string, unknown>>;
  /** The JSON-RPC error (status `failed`). */
  readonly error?: CallError;
  /** True once the client asked to cancel (cooperative: the running process cancels the tool's context). */
  readonly cancelRequested: boolean;
  /**
   * The process running the call (`host:pid:start`), for recovery: a record whose worker is gone is recovered by the
   * next process on the store.
   */
  readonly worker: string;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601. */
  readonly lastUpdatedAt: string;
  /** How long the record is kept after `createdAt`, in ms (`null`: until it is deleted). */
  readonly ttlMs: number | null;
  /** How often a client should poll, in ms. */
  readonly pollIntervalMs: number;
  /** Bumped by every change: the compare-and-set token. */
  readonly version: number;
}

/** What `update` may change (never the id, kind, owner, server, tool, arguments, createdAt or version). */
export type CallChange = Partial<
  Pick<
    CallRecord,
    | "status"
    | "statusMessage"
    | "started"
    | "round"
    | "question"
    | "answers"
    | "result"
    | "error"
    | "cancelRequested"
    | "worker"
    | "pollIntervalMs"
  >
>;

/** How a compare-and-set went: applied (the new record), or not (the record as it stands, `undefined` when there is none). */
export type CallUpdate =
  { readonly ok: true; readonly record: CallRecord } | { readonly ok: false; readonly record: CallRecord | undefined };

/** What a call-record store tells its subscribers: a record was created or changed (any process on the store). */
export interface CallRecordEvent {
  readonly type: "record";
  readonly record: CallRecord;
}

/**
 * The store seam of served tasks and waiting calls (implemented by the inbox stores: `MemoryInboxStore`,
 * `pgliteInboxStore`, `postgresInboxStore`).
 */
export interface CallRecordStore {
  /** Add a record (durably: resolves once any process on the store can `get` it). Rejects when the id exists. */
  createRecord(record: CallRecord): Promise<void>;
  /** The record `id` when it is `owner`'s (else `undefined`, as for an unknown id). */
  getRecord(id: string, owner: string): Promise<CallRecord | undefined>;
  /** Compare-and-set (see the module's contract). */
  updateRecord(id: string, version: number, change: CallChange): Promise<CallUpdate>;
  /**
   * Record the answer to round `round`'s open question `key` once (see the module's contract); the record then has no
   * open question and status `working`.
   */
  answerRecord(id: string, round: number, answer: CallAnswer): Promise<CallUpdate>;
  /** The records of `server` that are not final, oldest first. */
  openRecords(server: string): Promise<CallRecord[]>;
  /** Delete final records whose `createdAt + ttlMs` is before `now`; returns how many went. */
  expireRecords(now: Date): Promise<number>;
  /**
   * Later record events until the returned function is called. A database
   * store may skip intermediate versions of a record (it reads a record when
   * woken, and several changes may have landed by then); each record's events
   * arrive in version order, and its last version always arrives. A listener
   * must therefore act on the record as it now stands, never count events.
   */
  subscribeRecords(listener: (event: CallRecordEvent) => void): () => void;
}
