/**
 * @module askers/inbox/postgres-store
 * `postgresInboxStore()`: an `InboxStore` whose questions and decisions are
 * rows in PostgreSQL, so asking processes on any machine and the one page
 * meet there. Rows are the truth; LISTEN/NOTIFY is only the wake-up:
 * - every change is one statement that also `pg_notify`s the row's kind, id
 *   and change number (delivered on commit, in commit order) — never the
 *   row: any login may LISTEN or NOTIFY, so a store reads each row it is
 *   woken for, with its own rights, and decides only on what it read;
 * - the page (`role: "page"`) listens to every change; a worker
 *   (`role: "worker"`) only to its own questions' (a channel per process),
 *   and only while one of them is pending;
 * - PostgreSQL before 19 signals every listening backend on each notifying
 *   commit, whatever the channel: under load every worker has a question
 *   pending, so with a listening connection each, every question would wake
 *   hundreds of backends (measured before sharing: 467 answered/s with 8
 *   worker processes, 189 with 128; BENCHMARKS.md section 8's "own" row: CPU
 *   per answer 3.8 ms with 8, 14.0 with 128, 10.6 of it the database's). So
 *   the worker stores of one OS user on one host share ONE
 *   listening connection (`wakeups: "shared"`, the default): the first
 *   becomes the host's relay (a unix-domain socket in a private directory,
 *   see `wakeup-relay`), the others ask it for their channel's wake-ups; if
 *   it goes away they catch up by change number and one takes over. Where no
 *   private socket can be made, a store LISTENs itself (logged once);
 *   `wakeups: "own"` always does; the page always does. Shared, the CPU per
 *   answer stays flat (4.9 ms with 8 worker processes, 4.8 with 128, 1.9 of
 *   it the database's): each notifying commit wakes two backends, the page's
 *   and the relay's, however many workers wait;
 * - "settle" is a compare-and-set `UPDATE ... WHERE status = 'pending'`, so a
 *   question is decided at most once however many people click;
 * - an asking store renews a lease for its process (a heartbeat); the page's
 *   store, once subscribed, marks the pending questions of a process whose
 *   lease lapsed `abandoned`;
 * - the database enforces who may do what (see `postgres-schema`): a worker's
 *   login adds questions and reads, times out or withdraws its own; only the
 *   page's login answers;
 * - when the listening connection drops, subscribers hear `unavailable`; once
 *   it is back, every change made meanwhile is delivered (read by change
 *   number), then `available`.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { OptionsError } from "../../errors/options.error.js";
import { getLogger, ignoreRejection } from "../../util/logger.js";
import { checkOptions, checkTimeoutMs, opt, type CheckedOptions, type OptionSpec } from "../../options/option-checks.js";
import type { CallAnswer, CallChange, CallRecord, CallRecordEvent, CallRecordStore, CallUpdate } from "../../contracts/call-record.js";
import type { RunClaim, RunHead, RunStatus, RunStep, RunStore, RunSummary } from "../../contracts/run-record.js";
import { notHolderMessage } from "../../records/memory-runs.js";
import {
  adoptQuestionSql,
  appendRunStepSql,
  appendRunStepsSql,
  claimRunSql,
  insertRunSql,
  notOwnRunMessage,
  questionOfOpenRun,
  releaseRunSql,
  runHeadOf,
  runStepOf,
  runSummaryOf,
  selectRun,
  selectRunOwner,
  selectRunSteps,
  selectRuns,
  setRunStatusSql,
} from "./postgres-runs.js";
import type { InboxEvent, InboxStore, SettleResult, Settlement, StoredDecision, StoredQuestion } from "./inbox-store.js";
import type { InboxError } from "./inbox.error.js";
import { inboxStoreError } from "./inbox-store.error.js";
import {
  answerRecordSql,
  deleteExpiredRecords,
  insertRecordSql,
  recordOf,
  recordsChannelOf,
  selectOpenRecords,
  selectRecord,
  selectRecordById,
  updateRecordSql,
  type Statement,
} from "./postgres-records.js";
import { checkAnswer, checkChange, checkExpiry, checkRecord, duplicateRecord } from "./record-input.js";
import { announce, changedOf, decisionOf, questionOf, wakeupOf, type Wakeup, type WithWorkerName } from "./postgres-rows.js";
import {
  channelOf,
  checkSchemaName,
  DEFAULT_INBOX_SCHEMA,
  INBOX_SCHEMA_VERSION,
  migrateSchema,
  storeError,
  workerChannelSql,
} from "./postgres-schema.js";
import { pgModule, statementRunner, type PgPool, type PgResult } from "./pg-peer.js";
import { joinRelay, relayPlace, targetOf, type WakeupRelay } from "./wakeup-relay.js";

/** Options of `postgresInboxStore` (one of `connectionString` and `pool`). */
export interface PostgresInboxStoreOptions {
  /** `postgres://user@host:port/db`; the store makes (and ends) its own pool. Never logged. */
  readonly connectionString?: string;
  /** Your `pg.Pool` instead (the store borrows one connection to listen on, and never ends the pool). */
  readonly pool?: PgPool;
  /** The schema holding the tables (`migrateInboxStore` creates it). Default `agentkit_inbox`. */
  readonly schema?: string;
  /** This process's name on its questions. Default `<hostname>:<pid>:<random>`. */
  readonly worker?: string;
  /** How long a process's questions outlive its last heartbeat before they are abandoned. Default 15 000 ms; renewed every third of it. */
  readonly leaseMs?: number;
  /** End `pool` on `stop()` too (as the store does with the pool it makes). Default false. */
  readonly ownsPool?: boolean;
  /**
   * What this store is for. `"worker"`: it asks; it hears only its own
   * questions' changes, refuses `settle` with an answer, and never sweeps.
   * `"page"` (default): it hears every change, answers, and marks a lapsed
   * worker's questions abandoned. The database's grants decide what the
   * login may really do (`agentkit inbox migrate` makes the roles).
   */
  readonly role?: InboxStoreRole;
  /**
   * How a worker's store hears that its questions changed (the page always
   * LISTENs itself). `"shared"` (default): one listening connection per host
   * for every worker process of this OS user on the same database and schema,
   * through a unix-domain socket in a private (0700) directory
   * (`$XDG_RUNTIME_DIR/agentkit` or `<tmpdir>/agentkit-<uid>`); falls back to
   * `"own"`, logged once, where no such socket can be made. `"own"`: this
   * store LISTENs on its own connection. Either way a wake-up is only a
   * prompt to read the row with this store's own login.
   */
  readonly wakeups?: InboxWakeups;
}

/** How a worker's store is woken: through the host's shared listening connection, or its own. */
export type InboxWakeups = "shared" | "own";

/** A listening line: this store's own LISTEN connection, or its membership of the host's relay. */
interface WakeLine {
  listen(channel: string): Promise<void>;
  unlisten(channel: string): Promise<void>;
  close(broken: boolean): void;
}

let toldOwnWakeups = false;

/** A store's part in a shared inbox: an asking process, or the page. */
export type InboxStoreRole = "worker" | "page";

type Row = Record<string, unknown>;
type Listener = (event: InboxEvent) => void;
type RecordListener = (event: CallRecordEvent) => void;
/** The kind of a row a store delivers: a question, a decision, a call record. */
type RowKind = "q" | "d" | "r";

/** How many recently delivered rows are remembered, so one delivered twice (notification, then catch-up) is told once. */
const SEEN_LIMIT = 10_000;
/** When catching up after a reconnect, how far before the last change seen to look (a change numbered earlier may have committed later). */
const CATCH_UP_MARGIN = 1000;

/** Where the database is: exactly one of `connectionString` and `pool` (the rules both entry points share). */
const CONNECTION_RULES = {
  connectionString: opt.that<string>((v) => typeof v === "string" && /^postgres(ql)?:\/\//.test(v), "a postgres:// or postgresql:// URL"),
  pool: opt.that<PgPool>((v) => typeof v === "object" && v !== null && typeof (v as PgPool).query === "function", "a pg.Pool"),
  schema: (v: unknown, where: string) => checkSchemaName((v ?? DEFAULT_INBOX_SCHEMA) as string, where),
} satisfies OptionSpec;

/** `postgresInboxStore`'s options, one rule each (unknown keys are refused by name, with these). */
const STORE_SPEC = {
  ...CONNECTION_RULES,
  worker: opt.string("a non-empty name for this process", true),
  leaseMs: (v: unknown, where: string, option: string): number => checkTimeoutMs(v ?? 15_000, where, option)!,
  ownsPool: opt.boolean(),
  role: opt.that<InboxStoreRole>(
    (v) => v === "worker" || v === "page",
    '"worker" (asks, reads its own questions) or "page" (reads all, answers)',
  ),
  wakeups: (v: unknown, where: string, option: string): InboxWakeups =>
    opt.that<InboxWakeups>(
      (w) => w === "shared" || w === "own",
      '"shared" (one listening connection per host) or "own" (this store\'s own LISTEN)',
    )(v, where, option) ?? "shared",
} satisfies OptionSpec;

/** `migrateInboxStore`'s options. */
const MIGRATE_SPEC = { ...CONNECTION_RULES, roles: opt.boolean() } satisfies OptionSpec;

/** Check `options` by `spec`, then that exactly one of `connectionString` and `pool` is given. */
function checkStoreOptions<S extends typeof CONNECTION_RULES>(options: unknown, where: string, spec: S): CheckedOptions<S> {
  const o = checkOptions(options, where, spec);
  if ((o.connectionString === undefined) === (o.pool === undefined)) {
    throw new OptionsError(
      where,
      "connectionString",
      `${where}: give exactly one of 'connectionString' (a postgres:// URL) and 'pool' (a pg.Pool)`,
    );
  }
  return o;
}

/** Stores on an embedded database (PGlite): one process owns it, so a run held by any other worker is a dead process's. */
export const EMBEDDED_STORES = new WeakSet<PostgresInboxStore>();

/**
 * The PostgreSQL inbox store (see the module note). Make it with
 * `postgresInboxStore()`; run `migrateInboxStore()` (or `agentkit inbox
 * migrate <url>`) once per database first. `stop()` (or `await using`) when done.
 */
export class PostgresInboxStore implements InboxStore, CallRecordStore, RunStore, AsyncDisposable {
  readonly schema: string;
  readonly worker: string;
  /** `"worker"` or `"page"` (see the option). */
  readonly role: InboxStoreRole;
  readonly leaseMs: number;
  readonly #pool: PgPool;
  readonly #ownPool: boolean;
  /** Runs a statement on the pool (prepared, on a `pg.Pool`). */
  readonly #run: (text: string, values?: readonly unknown[]) => Promise<PgResult>;
  readonly #channel: string;
  readonly #listeners = new Set<Listener>();
  /** `subscribeRecords`' listeners: while there are any, the store LISTENs on the schema's records channel. */
  readonly #recordListeners = new Set<RecordListener>();
  readonly #recordsChannel: string;
  /** True while the listening line hears the records channel. */
  #hearingRecords = false;
  readonly #seen = new Map<string, number>();
  /** Rows woken for and not read yet, by `kind:id`. */
  readonly #wanted = new Map<string, Wakeup>();
  /** A worker's own questions still pending: it listens while there are any. */
  readonly #mine = new Set<string>();
  #channelName = "";
  #listening = false;
  #tune: Promise<void> = Promise.resolve();
  #unlisten?: NodeJS.Timeout;
  #listen?: Promise<void>;
  #line?: WakeLine;
  /** Where the host's relay socket is (workers with `wakeups: "shared"`), or undefined: LISTEN on an own connection. */
  #relayPath?: string;
  /** The relay this process hosts, when it does. */
  #relay?: WakeupRelay;
  #down = false;
  #closed = false;
  #lastChange = 0;
  #queue: Promise<void> = Promise.resolve();
  #heartbeat?: NodeJS.Timeout;
  #sweeper?: NodeJS.Timeout;
  #retry?: NodeJS.Timeout;
  #leaseRenewedAt = 0;
  /** The lease renewal out, if any (`stop()` waits for it before it deletes the lease). */
  #renewal: Promise<unknown> | undefined;
  /** The runs this store's process is running now (claimed or created, not released). */
  readonly #runsHeld = new Set<string>();

  constructor(options: PostgresInboxStoreOptions) {
    const o = checkStoreOptions(options, "postgresInboxStore", STORE_SPEC);
    this.role = o.role ?? "page";
    this.schema = o.schema;
    this.worker = o.worker ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.leaseMs = o.leaseMs;
    this.#channel = channelOf(this.schema);
    this.#recordsChannel = recordsChannelOf(this.schema);
    this.#ownPool = options.pool === undefined || options.ownsPool === true;
    // The page serves every worker's questions and every click: a wider pool, and a click waits for a
    // busy pool (up to 15 s) rather than failing at once; a worker keeps two connections and fails fast.
    this.#pool =
      options.pool ??
      new (pgModule().Pool)({
        connectionString: options.connectionString!,
        ...(this.role === "worker" ? { max: 2, connectionTimeoutMillis: 5000 } : { max: 8, connectionTimeoutMillis: 15_000 }),
      });
    // An idle connection's error (the server stopped) is an event: unheard, it would end the process.
    this.#run = statementRunner(this.#pool);
    this.#pool.on("error", (err) => getLogger().debug(`inbox store: an idle database connection failed: ${err.message}`));
    if (this.role === "worker" && o.wakeups === "shared") this.#relayPath = sharedWakeupPath(options, this.schema, this.#pool);
  }

  /** Adds a pending question (one row) and announces it to every store on the database (`NOTIFY`). */
  async put(question: StoredQuestion): Promise<void> {
    await this.#ready();
    await this.#renewLease();
    this.#mine.add(question.id);
    try {
      await this.#tuneListening(); // listening before the question exists: its answer cannot be missed
    } catch (err) {
      this.#mine.delete(question.id);
      throw storeError(err, this.schema);
    }
    const s = this.schema;
    const sql = `WITH hit AS (INSERT INTO ${s}.questions (id, call_id, tool, arguments, question, source, from_, worker, worker_name, asked_at, deadline_at, status, tool_facts)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'pending', $12) RETURNING *) ${announce("q", s)}`;
    const workerName = (question as StoredQuestion & WithWorkerName).workerName ?? null;
    try {
      this.#told(
        (
          await this.#query(sql, [
            question.id,
            question.callId,
            question.tool,
            JSON.stringify(question.arguments),
            question.question,
            question.source,
            question.from,
            this.worker,
            workerName,
            question.askedAt,
            question.deadlineAt,
            question.toolFacts ? JSON.stringify(question.toolFacts) : null,
          ])
        ).rows,
      );
    } catch (err) {
      this.#mine.delete(question.id);
      throw err;
    }
  }

  /**
   * Compare-and-set (see `InboxStore`).
   *
   * @throws InboxError (code `inbox_store`) `forbidden` when this store's role is `worker` and the settlement is an answer (only the
   * page answers), or when the login may not change the row.
   */
  async settle(id: string, settlement: Settlement): Promise<SettleResult> {
    if (this.role === "worker" && settlement.status === "answered") {
      throw inboxStoreError(
        "forbidden",
        "postgresInboxStore: a store opened with role 'worker' cannot answer a question: only the page's store (role 'page', a login in the inbox's page role) settles with an answer; a worker may only time out or withdraw its own",
      );
    }
    await this.#ready();
    const s = this.schema;
    // A worker's login may not write `answer` at all: only an answer names the column. The answer's `login` is the
    // database's word for who wrote it (the session's login; none for a superuser, e.g. an embedded store), never the caller's.
    const [set, value, expr] =
      settlement.status === "answered"
        ? [
            "answer",
            JSON.stringify(settlement.answer),
            `$3::jsonb - 'login' || COALESCE((SELECT jsonb_build_object('login', rolname) FROM pg_roles WHERE ` +
              `rolname = session_user AND NOT rolsuper), '{}'::jsonb)`,
          ]
        : ["reason", settlement.reason, "$3"];
    const sql = `WITH hit AS (UPDATE ${s}.questions SET status = $2, ${set} = ${expr}, settled_at = now()
      WHERE id = $1 AND status = 'pending' RETURNING *) ${announce("q", s, { worker: true })}`;
    const { rows } = await this.#query(sql, [id, settlement.status, value]);
    this.#told(rows);
    if (rows[0]) return { ok: true, question: questionOf(rows[0].row as Row) };
    return { ok: false, question: await this.get(id) };
  }

  /** The question with this id, or `undefined`. */
  async get(id: string): Promise<StoredQuestion | undefined> {
    await this.#ready();
    const { rows } = await this.#query(`SELECT row_to_json(q) AS row FROM ${this.schema}.questions q WHERE id = $1`, [id]);
    return rows[0] ? questionOf(rows[0].row as Row) : undefined;
  }

  async pending(): Promise<StoredQuestion[]> {
    await this.#ready();
    const { rows } = await this.#query(
      `SELECT row_to_json(q) AS row FROM ${this.schema}.questions q WHERE status = 'pending' ORDER BY asked_at, changed`,
    );
    return rows.map((r) => questionOf(r.row as Row));
  }

  async decisions(limit: number): Promise<StoredDecision[]> {
    await this.#ready();
    const { rows } = await this.#query(`SELECT row_to_json(d) AS row FROM ${this.schema}.decisions d ORDER BY seq DESC LIMIT $1`, [
      Math.max(0, Math.floor(limit)),
    ]);
    return rows.map((r) => decisionOf(r.row as Row));
  }

  /**
   * Insert or replace a decisions row (see `InboxStore`).
   *
   * @throws InboxError (code `inbox_store`) `forbidden` when the login may not write this row: a worker's row must fit its own question
   * (never another login's; a person's answer only as the page recorded it; see `postgres-schema`), and a row another
   * login owns is not replaced.
   */
  async recordDecision(d: StoredDecision): Promise<void> {
    await this.#ready();
    const s = this.schema;
    const sql = `WITH hit AS (INSERT INTO ${s}.decisions (id, tool, allowed, source, asked, actor, reason, at, from_, confirmed, claimed_actor) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
      ON CONFLICT (id) DO UPDATE SET tool = EXCLUDED.tool, allowed = EXCLUDED.allowed, source = EXCLUDED.source, asked = EXCLUDED.asked, actor = EXCLUDED.actor, claimed_actor = EXCLUDED.claimed_actor,
        reason = EXCLUDED.reason, at = EXCLUDED.at, from_ = EXCLUDED.from_, confirmed = EXCLUDED.confirmed
      WHERE EXCLUDED.confirmed OR NOT ${s}.decisions.confirmed
      RETURNING *) ${announce("d", s)}`;
    this.#told(
      (
        await this.#query(sql, [
          d.id,
          d.tool,
          d.allowed,
          d.source,
          d.asked,
          d.actor,
          d.reason,
          d.at,
          d.from,
          d.confirmed,
          d.claimedActor ?? null,
        ])
      ).rows,
    );
  }

  /**
   * Deliver later changes to `listener` (a worker's store: its own questions' only); the page's store also starts
   * sweeping lapsed leases. The store connects in the background: a change made before it listens is not told, so
   * subscribe and then read (`pending()`, `decisions()`), as the inbox page does, and nothing falls between them.
   */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    void this.#ready().catch(ignoreRejection("warming the store on subscribe; a failure is thrown again by the next query"));
    if (this.role === "page") this.#startSweeper();
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /**
   * Mark `abandoned` every pending question whose process's lease lapsed (it
   * crashed, or closed with questions left), and put each in the decisions
   * list too (denied, source `error`, reason `abandoned: ...`; unconfirmed, so
   * the asking gate's own record replaces it if that process was alive after
   * all), so the page's history shows it after a reload. Runs on a timer in
   * the page's store once subscribed; returns how many questions it marked.
   * A lease is its login's: the worker of that name under another login keeps nothing alive.
   */
  async sweep(): Promise<number> {
    const s = this.schema;
    const sql = `WITH hit AS (UPDATE ${s}.questions q SET status = 'abandoned', settled_at = now(),
        reason = 'the asking process (' || q.worker || ') stopped renewing its lease: nothing is waiting for this answer'
      WHERE q.status = 'pending' AND NOT EXISTS (SELECT 1 FROM ${s}.workers w WHERE w.owner = q.owner AND w.worker = q.worker AND w.lease_until >= now())
        AND NOT ${questionOfOpenRun(s, "q")}
      RETURNING *),
    listed AS (INSERT INTO ${s}.decisions (id, tool, allowed, source, asked, actor, reason, at, from_, confirmed, owner)
      SELECT id, tool, false, 'error', true, NULL, 'abandoned: ' || reason || '; nothing was decided', settled_at, from_, false, owner FROM hit
      ON CONFLICT (id) DO NOTHING RETURNING *)
    ${announce("q", s, { worker: true })} UNION ALL ${announce("d", s, { from: "listed" })}`;
    const { rows } = await this.#query(sql);
    this.#told(rows);
    return rows.filter((r) => (r.kind as string) === "q").length;
  }

  /**
   * Add a call record (see `CallRecordStore`): resolves once its INSERT has
   * committed, so every process on the database finds it.
   *
   * @throws InboxError (code `inbox_store`) `invalid` when the record is not a storable `CallRecord` (naming the field) or its id is
   * already there; `unavailable` when the database is down; `forbidden` when the login may not add records.
   */
  async createRecord(record: CallRecord): Promise<void> {
    checkRecord(record);
    this.#told(await this.#recordStatement(`createRecord '${record.id}'`, () => insertRecordSql(this.schema, record)));
  }

  /** The record `id` when it is bound to `owner` (and this login may read it), else `undefined`. */
  async getRecord(id: string, owner: string): Promise<CallRecord | undefined> {
    const rows = await this.#recordStatement(`getRecord '${String(id).slice(0, 40)}'`, () => selectRecord(this.schema, id, owner));
    return rows[0] ? recordOf(rows[0].row as Row) : undefined;
  }

  /**
   * Compare-and-set (see `CallRecordStore`): one `UPDATE ... WHERE id AND
   * version AND status NOT IN (final)`; a field the change names as
   * `undefined` is cleared.
   *
   * @throws InboxError (code `inbox_store`) `invalid` for a change of an unknown field or a value of the wrong kind; `unavailable` when
   * the database is down.
   */
  async updateRecord(id: string, version: number, change: CallChange): Promise<CallUpdate> {
    checkChange(id, version, change);
    return this.#casResult(
      id,
      await this.#recordStatement(`updateRecord '${id}'`, () => updateRecordSql(this.schema, id, version, change)),
    );
  }

  /**
   * Record the answer to round `round`'s open question once (see
   * `CallRecordStore`): one conditional `UPDATE`, so of any number of
   * processes answering at once exactly one is applied.
   *
   * @throws InboxError (code `inbox_store`) `invalid` for an answer that is not `{ key, method, value, by }`;
   *   `unavailable` when the database is down.
   */
  async answerRecord(id: string, round: number, answer: CallAnswer): Promise<CallUpdate> {
    checkAnswer(id, round, answer);
    return this.#casResult(id, await this.#recordStatement(`answerRecord '${id}'`, () => answerRecordSql(this.schema, id, round, answer)));
  }

  /** The records of `server` that are not final (and this login may read), oldest first. */
  async openRecords(server: string): Promise<CallRecord[]> {
    const rows = await this.#recordStatement("openRecords", () => selectOpenRecords(this.schema, server));
    return rows.map((r) => recordOf(r.row as Row));
  }

  /**
   * Delete the final records whose `createdAt + ttlMs` is before `now` (a worker's login: its own); returns how many went.
   *
   * @throws InboxError (code `inbox_store`) `invalid` when `now` is not a valid Date; `unavailable` when the database is down.
   */
  async expireRecords(now: Date): Promise<number> {
    checkExpiry(now);
    return (await this.#recordStatement("expireRecords", () => deleteExpiredRecords(this.schema, now))).length;
  }

  /**
   * Every later record created or changed by any process on the database
   * (a worker's login: its own records), in change order, until the
   * returned function is called. A notification only names a row: the store
   * reads it with its own login, so a record changed again before it was
   * read is told once, as it then stood: each record's versions arrive in
   * order, some may be skipped, and its last version always arrives.
   * Listening starts with the store's
   * connection: a change committed after a record operation that began after
   * this call resolves is heard; after a dropped connection every change
   * missed is read back by change number.
   */
  subscribeRecords(listener: (event: CallRecordEvent) => void): () => void {
    this.#recordListeners.add(listener);
    void this.#ready()
      .then(() => this.#tuneRecords())
      .catch(ignoreRejection("starting to hear records on subscribe; the next record operation connects again"));
    return () => {
      if (this.#recordListeners.delete(listener) && this.#recordListeners.size === 0)
        void this.#tuneRecords().catch(ignoreRejection("stopping LISTEN on the records channel; a wake-up heard meanwhile is only a read"));
    };
  }

  /**
   * Take over a pending question another process of this login asked (a
   * durable run resumed here): this store's worker becomes its asker, so it
   * hears the answer and its lease keeps the question from being abandoned.
   * Returns the question as it stands.
   */
  async adopt(id: string): Promise<StoredQuestion | undefined> {
    await this.#ready();
    await this.#renewLease();
    this.#mine.add(id);
    try {
      await this.#tuneListening();
      await this.#statement("adopting a question", adoptQuestionSql(this.schema, id, this.worker));
    } catch (err) {
      this.#mine.delete(id);
      throw storeError(err, this.schema);
    }
    return await this.get(id);
  }

  /**
   * Add a durable run held by this store's worker (see `RunStore`).
   *
   * @throws InboxError (code `inbox_store`) `invalid` when the id is taken; `unavailable` when the database is down; `forbidden` when
   * the login may not add runs.
   */
  async createRun(head: RunHead): Promise<void> {
    await this.#renewLease();
    await this.#statement(`createRun '${head.runId}'`, insertRunSql(this.schema, head));
    this.#runsHeld.add(head.runId);
  }

  /** A durable run and its steps (this login's, on a worker), or `undefined`. */
  async loadRun(runId: string): Promise<{ head: RunHead; steps: readonly RunStep[] } | undefined> {
    const heads = await this.#statement(`loadRun '${runId}'`, selectRun(this.schema, runId));
    if (!heads[0]) return undefined;
    const steps = await this.#statement(`loadRun '${runId}'`, selectRunSteps(this.schema, runId));
    return { head: runHeadOf(heads[0].row as Row), steps: steps.map((r) => runStepOf(r.row as Row)) };
  }

  /**
   * Take a run nobody alive holds (a worker whose lease lapsed; on an embedded store, any other process).
   *
   * @throws InboxError (code `inbox_store`) `forbidden` when another database login started the run (a login resumes only its own
   * runs), naming both logins.
   */
  async claimRun(runId: string, holder: string): Promise<RunClaim> {
    if (this.#runsHeld.has(runId)) return { ok: false, holder: this.worker };
    await this.#renewLease();
    const taken = await this.#statement(`claimRun '${runId}'`, claimRunSql(this.schema, runId, holder, EMBEDDED_STORES.has(this)));
    if (taken[0]) {
      this.#runsHeld.add(runId);
      return { ok: true, steps: Number(taken[0].steps) };
    }
    const now = await this.#statement(`claimRun '${runId}'`, selectRunOwner(this.schema, runId));
    if (!now[0]) return { ok: false, missing: true };
    if (now[0].own !== true) throw inboxStoreError("forbidden", notOwnRunMessage(runId, String(now[0].owner), String(now[0].login)));
    return { ok: false, holder: runHeadOf(now[0].row as Row).holder ?? "(none: the run ended)" };
  }

  /**
   * Append a step while `holder` holds the run. @throws InboxError (code `inbox_store`) `invalid` when it does not hold it (or the
   * step's number is taken).
   */
  async appendRunStep(runId: string, holder: string, step: RunStep): Promise<void> {
    const rows = await this.#statement(`appendRunStep '${runId}' ${step.seq}`, appendRunStepSql(this.schema, runId, holder, step));
    if (!rows[0]) throw inboxStoreError("invalid", notHolderMessage(runId, holder));
  }

  /**
   * Append consecutive steps in one statement while `holder` holds the run, all or none. @throws InboxError (code `inbox_store`)
   * `invalid` when it does not hold it (or a step's number is taken).
   */
  async appendRunSteps(runId: string, holder: string, steps: readonly RunStep[]): Promise<void> {
    if (!steps.length) return;
    const what = `appendRunSteps '${runId}' ${steps[0]!.seq}..${steps.at(-1)!.seq}`;
    const rows = await this.#statement(what, appendRunStepsSql(this.schema, runId, holder, steps));
    if (!rows[0]) throw inboxStoreError("invalid", notHolderMessage(runId, holder));
  }

  /**
   * Set a held run's status (and result); `finished` and `failed` also let go of it. @throws InboxError (code
   * `inbox_store`) `invalid` when `holder` does not hold it.
   */
  async setRunStatus(runId: string, holder: string, status: RunStatus, result?: Readonly<Record<string, unknown>>): Promise<void> {
    const rows = await this.#statement(`setRunStatus '${runId}'`, setRunStatusSql(this.schema, runId, holder, status, result));
    if (!rows[0]) throw inboxStoreError("invalid", notHolderMessage(runId, holder));
    if (status === "finished" || status === "failed") this.#runsHeld.delete(runId);
  }

  /** Let go of a run (its row keeps its status: resumable when not finished). */
  async releaseRun(runId: string, holder: string): Promise<void> {
    this.#runsHeld.delete(runId);
    await this.#statement(`releaseRun '${runId}'`, releaseRunSql(this.schema, runId, holder));
  }

  /** The durable runs (this login's, on a worker), newest change first; `{ status }`: only those. */
  async runs(filter: { readonly status?: RunStatus } = {}): Promise<RunSummary[]> {
    const rows = await this.#statement("runs", selectRuns(this.schema, filter.status));
    return rows.map((r) => runSummaryOf(r.row as Row));
  }

  /** Stop listening, end the lease and the timers, and end the pool the store made. Idempotent. */
  async stop(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of [this.#heartbeat, this.#sweeper, this.#retry, this.#unlisten]) clearTimeout(t);
    clearInterval(this.#heartbeat);
    clearInterval(this.#sweeper);
    // Swallow kept: waiting for LISTEN to settle before closing; its failure was reported to its caller.
    await this.#listen?.catch(() => {});
    await this.#queue;
    this.#dropLine(false);
    this.#relay?.close();
    // A renewal still out would write the lease row again after it is deleted.
    await this.#renewal?.catch(ignoreRejection("a lease renewal still out while closing; the row is deleted next"));
    if (this.#leaseRenewedAt)
      await this.#pool
        .query(`DELETE FROM ${this.schema}.workers WHERE owner = current_user AND worker = $1`, [this.worker])
        .catch(ignoreRejection("deleting this worker's lease row while closing; it lapses by itself"));
    if (this.#ownPool) await this.#pool.end().catch(ignoreRejection("ending our own pool while closing"));
  }

  /** `await using` support: the same as `stop()`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  /**
   * Run a records statement (`what`, e.g. `createRecord 'id'`, names it in
   * errors) once the store is ready and any LISTEN change asked for has
   * taken effect; returns its rows.
   */
  async #recordStatement(what: string, build: () => Statement): Promise<Row[]> {
    await this.#ready();
    await this.#tune;
    try {
      const st = build();
      return (await this.#run(st.text, st.values)).rows;
    } catch (err) {
      throw recordStoreError(err, this.schema, what);
    }
  }

  /** Run `st` (named `what` in errors) once the store is ready; its rows. */
  async #statement(what: string, st: Statement): Promise<Row[]> {
    return await this.#recordStatement(what, () => st);
  }

  /** A compare-and-set's outcome: the changed row it returned (told to subscribers), or the record as it now stands. */
  async #casResult(id: string, rows: readonly Row[]): Promise<CallUpdate> {
    this.#told(rows);
    if (rows[0]) return { ok: true, record: recordOf(rows[0].row as Row) };
    const now = await this.#recordStatement(`reading record '${id}' after a refused change`, () => selectRecordById(this.schema, id));
    return { ok: false, record: now[0] ? recordOf(now[0].row as Row) : undefined };
  }

  async #query(sql: string, values?: readonly unknown[]): Promise<{ rows: Row[] }> {
    try {
      return await this.#run(sql, values);
    } catch (err) {
      throw storeError(err, this.schema);
    }
  }

  /** Listening (started once, and again after the connection dropped). Rejects while the database is unreachable. */
  #ready(): Promise<void> {
    if (this.#closed) return Promise.reject(storeError(new Error("the store is closed"), this.schema));
    return (this.#listen ??= this.#connect().catch((err: unknown) => {
      this.#listen = undefined;
      throw storeError(err, this.schema);
    }));
  }

  async #connect(): Promise<void> {
    // a line lost while connecting (before it is this.#line, so #lost ignores it) fails the connect instead
    const state: { line?: WakeLine; broken?: Error } = {};
    const line = await this.#openLine((err) => {
      state.broken ??= err;
      if (state.line && this.#line === state.line) this.#lost(err);
    });
    try {
      this.#channelName ||=
        this.role === "page"
          ? this.#channel
          : String(
              (await this.#query(`SELECT ${workerChannelSql(this.schema, "current_user", "$1::text")} AS c`, [this.worker])).rows[0]!.c,
            );
      this.#listening = this.role === "page" || this.#mine.size > 0;
      if (this.#listening) await line.listen(this.#channelName);
      this.#hearingRecords = this.#recordListeners.size > 0;
      if (this.#hearingRecords) await line.listen(this.#recordsChannel);
      const { rows } = await this.#query(
        `SELECT last_value, is_called, (SELECT max(version) FROM ${this.schema}.meta) AS version FROM ${this.schema}.changes`,
      );
      // An older schema numbers no change itself (the statements here leave that to the database): refuse it by name.
      const version = Number(rows[0]?.version ?? 0);
      if (version < INBOX_SCHEMA_VERSION) {
        throw inboxStoreError(
          "not_migrated",
          `the inbox tables in schema '${this.schema}' are at version ${version}; this agentkit needs version ` +
            `${INBOX_SCHEMA_VERSION}: run \`agentkit inbox migrate <url>\` (or migrateInboxStore()) once`,
        );
      }
      const now = rows[0]?.is_called ? Number(rows[0].last_value) : 0;
      if (state.broken) throw state.broken;
      const reconnect = this.#down;
      state.line = line;
      this.#line = line;
      if (reconnect) this.#enqueue(() => this.#catchUp());
      else this.#lastChange = now;
    } catch (err) {
      line.close(true);
      throw err;
    }
  }

  /** The host's relay when this store shares one (joined, or hosted when none answers), else an own LISTEN connection. */
  async #openLine(onLost: (err: Error) => void): Promise<WakeLine> {
    const onWake = (channel: string, wake: Wakeup): void => {
      if (channel === this.#channelName || channel === this.#recordsChannel) this.#woken(wake);
    };
    if (this.#relayPath) {
      try {
        const { member, hosted } = await joinRelay(
          this.#relayPath,
          { onWake, onLost },
          () => this.#pool.connect(),
          () => {
            if (this.#relay === hosted) this.#relay = undefined;
          },
        );
        if (hosted) this.#relay = hosted;
        if (this.#closed) hosted?.close();
        return member;
      } catch (err) {
        if (!(err instanceof Error && "code" in err && typeof err.code === "string" && /^E[A-Z]+$/.test(err.code))) throw err;
        ownWakeupsFallback(`the host's wake-up relay socket ${this.#relayPath} cannot be used (${err.message})`);
        this.#relayPath = undefined;
      }
    }
    const client = await this.#pool.connect();
    const line: WakeLine = {
      listen: async (channel) => void (await client.query(`LISTEN "${channel}"`)),
      unlisten: async (channel) => void (await client.query(`UNLISTEN "${channel}"`)),
      close: (broken) => {
        client.removeAllListeners();
        client.on("error", () => {});
        client.release(broken);
      },
    };
    client.on("error", onLost);
    client.on("end", () => onLost(new Error("the connection ended")));
    client.on("notification", (msg) => {
      const wake = wakeupOf(msg.payload);
      if (wake) onWake(msg.channel, wake);
    });
    return line;
  }

  #lost(err: Error): void {
    if (this.#closed || !this.#line) return;
    this.#dropLine(true);
    this.#listen = undefined;
    this.#down = true;
    getLogger().debug(`inbox store: the listening connection dropped: ${err.message}`);
    this.#emit({ type: "unavailable", error: storeError(err, this.schema) });
    // the host's relay went away: its members come back at once (spread a little, so one binds first and the rest join it)
    this.#reconnectLater(this.#relayPath ? 5 + Math.floor(Math.random() * 45) : 250);
  }

  #reconnectLater(ms: number): void {
    if (this.#closed || this.#listeners.size + this.#recordListeners.size === 0) return;
    this.#retry = setTimeout(() => {
      this.#ready().then(
        () => undefined,
        () => this.#reconnectLater(Math.min(ms * 2, 5000)),
      );
    }, ms);
    this.#retry.unref();
  }

  #dropLine(broken: boolean): void {
    const line = this.#line;
    this.#line = undefined;
    this.#listening = false;
    this.#hearingRecords = false;
    line?.close(broken);
  }

  /** Run `job` after the ones before it: subscribers hear changes in the order they were committed. */
  #enqueue(job: () => Promise<void>): void {
    this.#queue = this.#queue
      .then(job)
      .catch((err: unknown) =>
        getLogger().debug(`inbox store: delivering a change failed: ${err instanceof Error ? err.message : String(err)}`),
      );
  }

  /** A wake-up: remember the row, and read it (with any others woken meanwhile) after the reads before it. */
  #woken(wake: Wakeup): void {
    const key = `${wake.kind}:${wake.id}`;
    const before = this.#wanted.get(key);
    if ((this.#seen.get(key) ?? -1) >= wake.changed) return;
    this.#wanted.set(key, before && before.changed > wake.changed ? before : wake);
    if (!before && this.#wanted.size === 1) this.#enqueue(() => this.#readWoken());
  }

  /** Read every row woken for, in one query, and deliver what changed, in change order. */
  async #readWoken(): Promise<void> {
    const wanted = [...this.#wanted.values()];
    this.#wanted.clear();
    const ids = (kind: RowKind) => wanted.filter((w) => w.kind === kind).map((w) => w.id);
    const s = this.schema;
    // records only when one was woken for: a database not migrated to version 5 still serves questions
    const records = ids("r");
    const alsoRecords = records.length
      ? ` UNION ALL SELECT 'r' AS k, changed, row_to_json(t) AS row FROM ${s}.records t WHERE id = ANY($3::text[])`
      : "";
    let rows: Row[];
    try {
      ({ rows } = await this.#query(
        `SELECT 'q' AS k, changed, row_to_json(t) AS row FROM ${s}.questions t WHERE id = ANY($1::text[])
        UNION ALL SELECT 'd' AS k, changed, row_to_json(t) AS row FROM ${s}.decisions t WHERE id = ANY($2::text[])${alsoRecords} ORDER BY changed`,
        [ids("q"), ids("d"), ...(records.length ? [records] : [])],
      ));
    } catch (err) {
      // not lost: read again shortly (a busy pool, a blip); a dropped listening connection catches up on its own
      for (const w of wanted) if (!this.#wanted.has(`${w.kind}:${w.id}`)) this.#wanted.set(`${w.kind}:${w.id}`, w);
      if (!this.#closed) setTimeout(() => this.#wanted.size && this.#enqueue(() => this.#readWoken()), 250).unref();
      throw err;
    }
    for (const r of rows) this.#deliver(r.k as RowKind, r.row as Row);
  }

  /** After a reconnect: every change since (a little before) the last one seen, in order, then `available`. */
  async #catchUp(): Promise<void> {
    const since = Math.max(0, this.#lastChange - CATCH_UP_MARGIN);
    const s = this.schema;
    const alsoRecords = this.#recordListeners.size
      ? ` UNION ALL SELECT 'r' AS k, changed, row_to_json(t) AS row FROM ${s}.records t WHERE changed > $1`
      : "";
    const q = await this.#query(
      `SELECT 'q' AS k, changed, row_to_json(t) AS row FROM ${s}.questions t WHERE changed > $1
      UNION ALL SELECT 'd' AS k, changed, row_to_json(t) AS row FROM ${s}.decisions t WHERE changed > $1${alsoRecords} ORDER BY changed`,
      [since],
    );
    for (const r of q.rows) this.#deliver(r.k as RowKind, r.row as Row);
    this.#down = false;
    this.#emit({ type: "available" });
  }

  /**
   * A worker listens exactly while it has a question pending (the page always):
   * LISTEN or UNLISTEN on the listening connection, one change at a time, as
   * `#mine` stands when the change runs. Rejects when the statement fails.
   */
  #tuneListening(): Promise<void> {
    if (this.role === "page") return Promise.resolve();
    const step = this.#tune.then(async () => {
      const [line, want] = [this.#line, this.#mine.size > 0];
      if (!line || want === this.#listening) return;
      await (want ? line.listen(this.#channelName) : line.unlisten(this.#channelName));
      this.#listening = want;
    });
    // Swallow kept: the tail only orders the next LISTEN change; the caller awaits `step`.
    this.#tune = step.catch(() => {});
    return step;
  }

  /**
   * Hear the records channel exactly while `subscribeRecords` has listeners (LISTEN or UNLISTEN, after the LISTEN
   * changes before it). Rejects when the statement fails.
   */
  #tuneRecords(): Promise<void> {
    const step = this.#tune.then(async () => {
      const [line, want] = [this.#line, this.#recordListeners.size > 0];
      if (!line || want === this.#hearingRecords) return;
      await (want ? line.listen(this.#recordsChannel) : line.unlisten(this.#recordsChannel));
      this.#hearingRecords = want;
    });
    // Swallow kept: the tail only orders the next LISTEN change; the caller awaits `step`.
    this.#tune = step.catch(() => {});
    return step;
  }

  /** One of this worker's questions is settled: when none is left pending, stop listening after a second without one. */
  #settledMine(id: string): void {
    if (!this.#mine.delete(id) || this.#mine.size > 0) return;
    clearTimeout(this.#unlisten);
    this.#unlisten = setTimeout(
      () =>
        void this.#tuneListening().catch(ignoreRejection("stopping LISTEN after the last question settled; retried on the next question")),
      1000,
    );
    this.#unlisten.unref();
  }

  /**
   * This store's own change, as its statement returned it: told to its subscribers now (its wake-up, when it comes, is
   * then skipped: no read).
   */
  #told(rows: readonly Row[]): void {
    if (rows.length) this.#enqueue(async () => rows.forEach((r) => this.#deliver(r.kind as RowKind, r.row as Row)));
  }

  #deliver(kind: RowKind, row: Row): void {
    const changed = changedOf(row);
    const key = `${kind}:${String(row.id)}`;
    if ((this.#seen.get(key) ?? -1) >= changed) return;
    this.#seen.delete(key);
    this.#seen.set(key, changed);
    if (this.#seen.size > SEEN_LIMIT) this.#seen.delete(this.#seen.keys().next().value!);
    this.#lastChange = Math.max(this.#lastChange, changed);
    if (kind === "r") return this.#emitRecord(recordOf(row));
    if (kind === "d") return this.#emit({ type: "decision", decision: decisionOf(row) });
    const question = questionOf(row);
    if (question.status !== "pending") this.#settledMine(question.id);
    this.#emit(question.status === "pending" ? { type: "question", question } : { type: "settled", question });
  }

  #emit(event: InboxEvent): void {
    for (const l of [...this.#listeners]) {
      try {
        l(event);
      } catch {
        // one broken subscriber must not keep the others from hearing it
      }
    }
  }

  #emitRecord(record: CallRecord): void {
    for (const l of [...this.#recordListeners]) {
      try {
        l({ type: "record", record });
      } catch {
        // one broken subscriber must not keep the others from hearing it
      }
    }
  }

  /**
   * Renew this process's lease if `afterMs` have passed since the last renewal began (an operation's: a third of the
   * lease; the heartbeat's, every third of the lease while the store is open: always). Timed from when the statement
   * was sent, so a slow statement does not make the next heartbeat skip and leave only a third of the lease to spare.
   */
  async #renewLease(afterMs = this.leaseMs / 3): Promise<void> {
    const started = Date.now();
    // A heartbeat while a renewal is still out (a slow database) waits for that one instead of sending another.
    if (started - this.#leaseRenewedAt < afterMs || (afterMs === 0 && this.#renewal)) return;
    await (this.#renewal = this.#query(
      `INSERT INTO ${this.schema}.workers (worker, lease_until) VALUES ($1, now() + $2 * interval '1 millisecond')
      ON CONFLICT (owner, worker) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
      [this.worker, this.leaseMs],
    ).finally(() => (this.#renewal = undefined)));
    this.#leaseRenewedAt = Math.max(this.#leaseRenewedAt, started);
    if (!this.#heartbeat) {
      this.#heartbeat = setInterval(
        () => void this.#renewLease(0).catch(ignoreRejection("renewing the lease; the next heartbeat renews it again")),
        Math.max(1, Math.floor(this.leaseMs / 3)),
      );
      this.#heartbeat.unref();
    }
  }

  #startSweeper(): void {
    if (this.#sweeper || this.#closed) return;
    this.#sweeper = setInterval(
      () => void this.sweep().catch(ignoreRejection("sweeping lapsed leases; the next tick sweeps again")),
      Math.max(1, Math.floor(this.leaseMs / 2)),
    );
    this.#sweeper.unref();
  }
}

/**
 * A failed records statement `what` as the store's error: a duplicate id
 * (`createRecord`) or a value the database cannot hold (SQL classes 22 and
 * 23: a string with a NUL, a number out of range) is `invalid`, naming
 * `what`; anything else as every statement's (`storeError`).
 */
function recordStoreError(err: unknown, schema: string, what: string): InboxError {
  const code = String((err as { code?: unknown } | null)?.code ?? "");
  if (code === "23505") return duplicateRecord(what, err);
  if (/^2[23]/.test(code)) return inboxStoreError("invalid", `${what} refused by the database: ${(err as Error).message}`, { cause: err });
  return storeError(err, schema);
}

/** Say once per process that a worker store LISTENs itself because the host's relay cannot be used. */
function ownWakeupsFallback(why: string): void {
  if (toldOwnWakeups) return;
  toldOwnWakeups = true;
  getLogger().warn(
    `inbox store: ${why}; this process's worker stores LISTEN on their own connections (wakeups: "own"), which ` +
      `costs the database more with many workers`,
  );
}

/** Where this worker's host relay socket is, from the store's connection target; undefined (logged once) when there can be none. */
function sharedWakeupPath(options: PostgresInboxStoreOptions, schema: string, pool: PgPool): string | undefined {
  let target: string | undefined;
  if (options.connectionString !== undefined) target = targetOf(options.connectionString);
  else {
    // a pg.Pool keeps its configuration as `options`; what it connects to names the relay
    const o = (pool as { options?: { connectionString?: unknown; user?: unknown; host?: unknown; port?: unknown; database?: unknown } })
      .options;
    if (typeof o?.connectionString === "string") target = targetOf(o.connectionString);
    else if (o)
      target = `${String(o.user ?? process.env["PGUSER"] ?? "")}@${String(o.host ?? process.env["PGHOST"] ?? "")}:${String(o.port ?? process.env["PGPORT"] ?? "5432")}/${String(o.database ?? process.env["PGDATABASE"] ?? "")}?`;
  }
  if (target === undefined) {
    ownWakeupsFallback("the pool given names no connection target to share a wake-up relay on");
    return undefined;
  }
  const place = relayPlace(target, schema);
  if ("problem" in place) {
    ownWakeupsFallback(`no private socket for the host's wake-up relay: ${place.problem}`);
    return undefined;
  }
  return place.path;
}

/**
 * An `InboxStore` on PostgreSQL (the optional peer `pg`), for
 * `ApprovalInbox.start({ store })` on the page's machine and
 * `inboxAsker({ store, source })` in every worker. Nothing connects until
 * the first operation.
 *
 * @throws OptionsError for bad options; MissingPeerError when `pg` is not installed.
 */
export function postgresInboxStore(options: PostgresInboxStoreOptions): PostgresInboxStore {
  return new PostgresInboxStore(options);
}

/**
 * Create or update the inbox tables (idempotent; safe from several processes
 * at once). `agentkit inbox migrate <url>` runs it. Unless `roles: false`, it
 * also makes the group roles `<schema>_worker` and `<schema>_page` with
 * their grants and row-level policies (the migrating login needs CREATEROLE
 * the first time); make each worker's login a member of the first, the
 * page's of the second. Returns the schema version.
 */
export async function migrateInboxStore(options: {
  readonly connectionString?: string;
  readonly pool?: PgPool;
  readonly schema?: string;
  readonly roles?: boolean;
}): Promise<number> {
  const { schema } = checkStoreOptions(options, "migrateInboxStore", MIGRATE_SPEC);
  const pool =
    options.pool ?? new (pgModule().Pool)({ connectionString: options.connectionString!, max: 1, connectionTimeoutMillis: 5000 });
  if (!options.pool) pool.on("error", () => {});
  try {
    return await migrateSchema(pool, schema, { roles: options.roles !== false });
  } catch (err) {
    throw storeError(err, schema);
  } finally {
    if (!options.pool) await pool.end().catch(ignoreRejection("ending the migration pool after the migration"));
  }
}
