/**
 * @module askers/inbox/postgres-records
 * Call records (`contracts/call-record`: MCP tasks and calls that wait) as
 * rows of the inbox's schema (version 5): the `records` table, its grants
 * and row-level policies, a row as a `CallRecord`, and the statements the
 * PostgreSQL store runs. One row per record:
 * - every `CallRecord` field has its column (jsonb for `arguments`,
 *   `question`, `answers`, `result` and `error`); the record's `owner` (the
 *   caller it is bound to) is `binding`, while `owner`, as in every inbox
 *   table, is the database login that wrote the row (`current_user`, never a
 *   value the client sends), which row-level security keys on;
 * - a change is one conditional `UPDATE` (compare-and-set on `version`, never
 *   a final status; an answer only while its round's question is the open
 *   one), so each is applied at most once however many processes race;
 * - every insert or change takes the next value of the schema's `changes`
 *   sequence and `pg_notify`s the records channel of the schema with the
 *   row's id and change number only: a listener reads the row itself, with
 *   its own rights, and catches up by change number after a reconnect.
 * Rights (`migrateInboxStore({ roles: true })`): the worker role adds
 * records and reads, changes and expires only its own login's; the page
 * role reads every record.
 */
import { createHash } from "node:crypto";
import type { CallAnswer, CallChange, CallError, CallQuestion, CallRecord, CallStatus } from "../../contracts/call-record.js";

type Row = Record<string, unknown>;

/** The final statuses as an SQL list (a record in one never changes again). */
const FINAL_SQL = "('completed', 'failed', 'cancelled')";

/**
 * The records channel of a schema's inbox: every record created or changed, as its id and change number (a fixed-length
 * name, whatever the schema's).
 */
export const recordsChannelOf = (schema: string): string => `agentkit_r_${createHash("md5").update(schema).digest("hex")}`;

/** The `records` table and its indexes (idempotent). */
export function recordsTableSql(s: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.records (
      id text PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('task', 'rounds')),
      binding text NOT NULL,
      server text NOT NULL,
      tool text NOT NULL,
      arguments jsonb NOT NULL,
      status text NOT NULL CHECK (status IN ('working', 'input_required', 'completed', 'failed', 'cancelled')),
      status_message text,
      started boolean NOT NULL,
      round integer NOT NULL CHECK (round >= 0),
      question jsonb,
      answers jsonb NOT NULL,
      result jsonb,
      error jsonb,
      cancel_requested boolean NOT NULL,
      worker text NOT NULL,
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL,
      ttl_ms bigint CHECK (ttl_ms >= 0),
      poll_interval_ms bigint NOT NULL CHECK (poll_interval_ms >= 0),
      version integer NOT NULL CHECK (version >= 0),
      owner text NOT NULL DEFAULT CURRENT_USER,
      changed bigint NOT NULL DEFAULT nextval('${s}.changes')
    )`,
    `CREATE INDEX IF NOT EXISTS records_open ON ${s}.records (server, created_at) WHERE status NOT IN ${FINAL_SQL}`,
    `CREATE INDEX IF NOT EXISTS records_final ON ${s}.records (created_at) WHERE status IN ${FINAL_SQL}`,
    `CREATE INDEX IF NOT EXISTS records_changed ON ${s}.records (changed)`,
  ];
}

/** The columns a worker's login writes when it adds a record (never `owner` or `changed`: the database sets them). */
const CREATED =
  "id, kind, binding, server, tool, arguments, status, status_message, started, round, question, answers, result, error, cancel_requested, worker, created_at, last_updated_at, ttl_ms, poll_interval_ms, version";
/** The columns a change may write. */
const CHANGED =
  "status, status_message, started, round, question, answers, result, error, cancel_requested, worker, poll_interval_ms, last_updated_at, version";

/** The records' grants and row-level policies for the inbox's two roles (idempotent: a policy is dropped and made again). */
export function recordsRolesSql(s: string, roles: { readonly worker: string; readonly page: string }): string[] {
  const { worker: w, page: p } = roles;
  const policies: Array<[string, string]> = [
    ["worker_reads_own", `FOR SELECT TO ${w} USING (owner = current_user)`],
    ["worker_creates", `FOR INSERT TO ${w} WITH CHECK (owner = current_user)`],
    [
      "worker_changes_own",
      `FOR UPDATE TO ${w} USING (owner = current_user AND status NOT IN ${FINAL_SQL}) WITH CHECK (owner = current_user)`,
    ],
    ["worker_expires_own", `FOR DELETE TO ${w} USING (owner = current_user AND status IN ${FINAL_SQL})`],
    ["page_reads_all", `FOR SELECT TO ${p} USING (true)`],
  ];
  return [
    `GRANT SELECT, INSERT (${CREATED}), UPDATE (${CHANGED}), DELETE ON ${s}.records TO ${w}`,
    `ALTER TABLE ${s}.records ENABLE ROW LEVEL SECURITY`,
    ...policies.flatMap(([name, rule]) => [
      `DROP POLICY IF EXISTS ${name} ON ${s}.records`,
      `CREATE POLICY ${name} ON ${s}.records ${rule}`,
    ]),
  ];
}

const iso = (v: unknown): string => new Date(v as string | Date).toISOString();

/** A `records` row (read as JSON) as a `CallRecord`, frozen; an optional field whose column is null is left out. */
export function recordOf(r: Row): CallRecord {
  const record: CallRecord = {
    id: String(r.id),
    kind: r.kind as CallRecord["kind"],
    owner: String(r.binding),
    server: String(r.server),
    tool: String(r.tool),
    arguments: (r.arguments ?? {}) as Record<string, unknown>,
    status: r.status as CallStatus,
    ...(typeof r.status_message === "string" ? { statusMessage: r.status_message } : {}),
    started: r.started === true,
    round: Number(r.round),
    ...(r.question ? { question: r.question as CallQuestion } : {}),
    answers: (r.answers ?? []) as CallAnswer[],
    ...(r.result ? { result: r.result as Record<string, unknown> } : {}),
    ...(r.error ? { error: r.error as CallError } : {}),
    cancelRequested: r.cancel_requested === true,
    worker: String(r.worker),
    createdAt: iso(r.created_at),
    lastUpdatedAt: iso(r.last_updated_at),
    ttlMs: r.ttl_ms === null || r.ttl_ms === undefined ? null : Number(r.ttl_ms),
    pollIntervalMs: Number(r.poll_interval_ms),
    version: Number(r.version),
  };
  return Object.freeze(record);
}

/** JSON for a jsonb parameter (`null` for an absent value). */
const json = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));

/**
 * `SELECT` over the rows a data-modifying CTE `hit` returned: the row, kind `r`, and a wake-up (id, change number) on
 * the schema's records channel.
 */
function announceRecord(s: string): string {
  return (
    `SELECT 'r' AS kind, row_to_json(hit) AS row, pg_notify('${recordsChannelOf(s)}', json_build_object('k', 'r', ` +
    `'id', hit.id, 'c', hit.changed)::text) AS page FROM hit`
  );
}

/** A statement and its values. */
export interface Statement {
  readonly text: string;
  readonly values: readonly unknown[];
}

/** Add `record` (fails with a unique violation when its id is there). */
export function insertRecordSql(s: string, record: CallRecord): Statement {
  const text = `WITH hit AS (INSERT INTO ${s}.records (${CREATED})
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21) RETURNING *) ${announceRecord(s)}`;
  const r = record;
  return {
    text,
    values: [
      r.id,
      r.kind,
      r.owner,
      r.server,
      r.tool,
      json(r.arguments),
      r.status,
      r.statusMessage ?? null,
      r.started,
      r.round,
      json(r.question),
      json(r.answers),
      json(r.result),
      json(r.error),
      r.cancelRequested,
      r.worker,
      r.createdAt,
      r.lastUpdatedAt,
      r.ttlMs,
      r.pollIntervalMs,
      r.version,
    ],
  };
}

/** Each changeable field: its column, and how the change's JSON (`$3`) sets it. */
const CHANGE_COLUMNS: ReadonlyArray<readonly [keyof CallChange, string, string]> = [
  ["status", "status", "$3::jsonb->>'status'"],
  ["statusMessage", "status_message", "$3::jsonb->>'statusMessage'"],
  ["started", "started", "($3::jsonb->>'started')::boolean"],
  ["round", "round", "($3::jsonb->>'round')::integer"],
  ["question", "question", "NULLIF($3::jsonb->'question', 'null'::jsonb)"],
  ["answers", "answers", "$3::jsonb->'answers'"],
  ["result", "result", "NULLIF($3::jsonb->'result', 'null'::jsonb)"],
  ["error", "error", "NULLIF($3::jsonb->'error', 'null'::jsonb)"],
  ["cancelRequested", "cancel_requested", "($3::jsonb->>'cancelRequested')::boolean"],
  ["worker", "worker", "$3::jsonb->>'worker'"],
  ["pollIntervalMs", "poll_interval_ms", "($3::jsonb->>'pollIntervalMs')::bigint"],
];

/**
 * Compare-and-set: apply `change` to record `id` only while its version is
 * `version` and its status is not final. One statement text for every
 * change (a field the change names is set, `undefined` clearing an optional
 * one; the others are kept), so it is prepared once per connection.
 */
export function updateRecordSql(s: string, id: string, version: number, change: CallChange): Statement {
  const sets = CHANGE_COLUMNS.map(
    ([field, column, value]) => `${column} = CASE WHEN $3::jsonb ? '${field}' THEN ${value} ELSE ${column} END`,
  );
  const text = `WITH hit AS (UPDATE ${s}.records SET ${sets.join(", ")}, version = version + 1, last_updated_at = now()
    WHERE id = $1 AND version = $2 AND status NOT IN ${FINAL_SQL} RETURNING *) ${announceRecord(s)}`;
  // a field present as undefined clears it: JSON has no undefined, so it travels as null
  const named = Object.fromEntries(Object.entries(change).map(([k, v]) => [k, v === undefined ? null : v]));
  return { text, values: [id, version, JSON.stringify(named)] };
}

/** The questions a record holds open (`question`, then its `others`), as a JSON array. */
const OPEN_SQL = "(jsonb_build_array(question - 'others') || COALESCE(question->'others', '[]'::jsonb))";

/** The open questions left once `$3`'s is answered, in order (NULL when none is). */
const LEFT_SQL =
  `(SELECT jsonb_agg(q ORDER BY n) FROM jsonb_array_elements(${OPEN_SQL}) WITH ORDINALITY AS t(q, n) WHERE q->>'key' ` + `<> $3::text)`;

/**
 * Record `answer` to one of round `round`'s open questions once: only while
 * the record is not final, at that round, with that question open (the
 * record's `question` or one of its `others`). The others stay open; the
 * last one answered sets the call `working`.
 */
export function answerRecordSql(s: string, id: string, round: number, answer: CallAnswer): Statement {
  const text = `WITH hit AS (UPDATE ${s}.records SET answers = answers || jsonb_build_array($4::jsonb),
      question = CASE WHEN ${LEFT_SQL} IS NULL THEN NULL WHEN jsonb_array_length(${LEFT_SQL}) = 1 THEN ${LEFT_SQL}->0 ELSE (${LEFT_SQL}->0) || jsonb_build_object('others', ${LEFT_SQL} - 0) END,
      status = CASE WHEN ${LEFT_SQL} IS NULL THEN 'working' ELSE status END, status_message = CASE WHEN ${LEFT_SQL} IS NULL THEN 'working' ELSE status_message END,
      version = version + 1, last_updated_at = now()
    WHERE id = $1 AND round = $2 AND status NOT IN ${FINAL_SQL}
      AND (question->>'key' = $3::text OR COALESCE(question->'others', '[]'::jsonb) @> jsonb_build_array(jsonb_build_object('key', $3::text))) RETURNING *) ${announceRecord(s)}`;
  return { text, values: [id, round, answer.key, JSON.stringify(answer)] };
}

/** Record `id` when the caller bound to it is `binding` (the login's rights apply as well). */
export const selectRecord = (s: string, id: string, binding: string): Statement => ({
  text: `SELECT row_to_json(r) AS row FROM ${s}.records r WHERE id = $1 AND binding = $2`,
  values: [id, binding],
});

/** Record `id`, whoever it is bound to (a compare-and-set that failed reports the record as it stands). */
export const selectRecordById = (s: string, id: string): Statement => ({
  text: `SELECT row_to_json(r) AS row FROM ${s}.records r WHERE id = $1`,
  values: [id],
});

/** The records of `server` that are not final, oldest first. */
export const selectOpenRecords = (s: string, server: string): Statement => ({
  text: `SELECT row_to_json(r) AS row FROM ${s}.records r WHERE server = $1 AND status NOT IN ${FINAL_SQL} ORDER BY created_at, id`,
  values: [server],
});

/** Delete the final records whose `created_at + ttl_ms` is before `now`; returns their ids. */
export const deleteExpiredRecords = (s: string, now: Date): Statement => ({
  text:
    `DELETE FROM ${s}.records WHERE status IN ${FINAL_SQL} AND ttl_ms IS NOT NULL AND created_at + ttl_ms * interval ` +
    `'1 millisecond' < $1 RETURNING id`,
  values: [now.toISOString()],
});
