/**
 * @module askers/inbox/postgres-schema
 * The PostgreSQL inbox's tables, created by one explicit, idempotent
 * migration (`migrateInboxStore`, `agentkit inbox migrate <url>`), never
 * implicitly by a worker. Everything lives in one schema (default
 * `agentkit_inbox`):
 * - `questions`: one row per question, its status changed at most once from
 *   `pending` (a compare-and-set `UPDATE ... WHERE status = 'pending'`);
 * - `decisions`: the decisions list, one row per id (the page's row, then
 *   the gate's record replacing it);
 * - `workers`: each asking process's lease, renewed by its heartbeat;
 * - `records` (version 5): one row per call record (an MCP task, a call
 *   that waits), see `postgres-records`;
 * - `runs` and `run_steps` (version 7): durable agent runs and their
 *   steps, see `postgres-runs`;
 * - the `changes` sequence: every insert or change of a question, decision
 *   or record takes the next value, so a listener catches up on everything
 *   after the last change it saw, in order, whatever notifications it missed.
 *
 * Authority (version 2): every row carries its `owner`, the database login
 * that wrote it (`current_user`, never a value the client sends). Two group
 * roles, made by the migration, hold the rights, enforced by grants and
 * row-level security: `<schema>_worker` adds questions and reads, times out
 * or withdraws only its own login's, and renews or ends only its own leases;
 * `<schema>_page` (a member of the worker role) also reads everything,
 * answers pending questions and marks a lapsed worker's questions abandoned.
 * A login with neither reads nothing; the migrating role (the tables' owner)
 * and superusers are not limited.
 *
 * Fence (version 6): change numbers are the database's — a trigger stamps
 * every inserted or changed question and decision with the next value of
 * `changes`, whatever the statement said, and no worker may name the column —
 * so no login can move the point a listener catches up from. A worker's
 * decision row must fit the question it is about (`worker_may_record`, read
 * with the tables' owner's rights): a question another login asked is never
 * its to record; a person's answer (`source` `asker`) only as the page wrote
 * it (the same actor, and allowed only for an approve or modify); `timeout`
 * and `error` only deny; `auto_allow` and `autonomy` only for a call nobody
 * was asked about. A question cannot be asked under an id another login's
 * decision already holds. Only the page's role writes anything else.
 */
import { OptionsError } from "../../errors/options.error.js";
import type { InboxError } from "./inbox.error.js";
import { inboxStoreError, isStoreFailure } from "./inbox-store.error.js";
import type { PgClient, PgPool } from "./pg-peer.js";
import { recordsRolesSql, recordsTableSql } from "./postgres-records.js";
import { runsRolesSql, runsTableSql } from "./postgres-runs.js";
import { ignoreRejection } from "../../util/logger.js";

/** The schema used when none is given. */
export const DEFAULT_INBOX_SCHEMA = "agentkit_inbox";

/**
 * The version `migrateInboxStore` brings a schema to (2: row owners, the worker and page roles; 3: a decision's claimed
 * actor; 4: a question's tool facts; 5: call records; 6: change numbers stamped by the database, a worker's decision
 * rows fenced to its own questions; 7: durable agent runs and their steps).
 */
export const INBOX_SCHEMA_VERSION = 7;

const IDENT = /^[a-z_][a-z0-9_]{0,62}$/;

/** `schema` checked to be a plain lower-case SQL identifier (it is interpolated into SQL, so nothing else is accepted). */
export function checkSchemaName(schema: string, where: string): string {
  if (typeof schema !== "string" || !IDENT.test(schema)) {
    throw new OptionsError(
      where,
      "schema",
      `${where}: 'schema' must be a lower-case SQL identifier (letters, digits, _; at most 63), got ${JSON.stringify(schema)}`,
    );
  }
  return schema;
}

/** The notification channel of a schema's inbox (the page listens on it: every change, as ids and change numbers). */
export const channelOf = (schema: string): string => `${schema}_changes`;

/**
 * The SQL expression naming one asking process's channel (a worker listens
 * only there: the changes to its own questions), from SQL expressions for
 * the row's owner and worker name. One definition, used by the statements
 * that notify and by the worker that listens.
 */
export const workerChannelSql = (schema: string, owner: string, worker: string): string =>
  `'agentkit_w_' || md5('${schema}/' || ${owner} || '/' || ${worker})`;

/** The inbox's two group roles in `schema`: logins are made members of them (`GRANT <schema>_worker TO alice`). */
export function inboxRoles(schema: string): { readonly worker: string; readonly page: string } {
  return { worker: `${schema}_worker`, page: `${schema}_page` };
}

function migrationSql(s: string): string[] {
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE IF NOT EXISTS ${s}.meta (version integer NOT NULL)`,
    `CREATE SEQUENCE IF NOT EXISTS ${s}.changes`,
    `CREATE TABLE IF NOT EXISTS ${s}.questions (
      id text PRIMARY KEY,
      call_id text,
      tool text NOT NULL,
      arguments jsonb NOT NULL,
      question text NOT NULL,
      source text,
      from_ text NOT NULL,
      worker text NOT NULL,
      asked_at timestamptz NOT NULL,
      deadline_at timestamptz,
      status text NOT NULL CHECK (status IN ('pending', 'answered', 'timed_out', 'withdrawn', 'abandoned')),
      answer jsonb,
      settled_at timestamptz,
      reason text,
      changed bigint NOT NULL DEFAULT nextval('${s}.changes')
    )`,
    `CREATE INDEX IF NOT EXISTS questions_pending ON ${s}.questions (asked_at) WHERE status = 'pending'`,
    `CREATE INDEX IF NOT EXISTS questions_changed ON ${s}.questions (changed)`,
    `CREATE TABLE IF NOT EXISTS ${s}.decisions (
      id text PRIMARY KEY,
      seq bigserial,
      tool text NOT NULL,
      allowed boolean NOT NULL,
      source text NOT NULL,
      asked boolean NOT NULL,
      actor text,
      reason text NOT NULL,
      at timestamptz NOT NULL,
      from_ text NOT NULL,
      confirmed boolean NOT NULL,
      changed bigint NOT NULL DEFAULT nextval('${s}.changes')
    )`,
    `CREATE INDEX IF NOT EXISTS decisions_seq ON ${s}.decisions (seq)`,
    `CREATE INDEX IF NOT EXISTS decisions_changed ON ${s}.decisions (changed)`,
    `CREATE TABLE IF NOT EXISTS ${s}.workers (worker text PRIMARY KEY, lease_until timestamptz NOT NULL)`,
  ];
}

/**
 * Versions 2 to 4 on older tables: each row's owner (the login that wrote it), the worker's display name, leases keyed
 * by owner and worker; a decision's claimed actor; a question's tool facts.
 */
function upgradeSql(s: string, from: number): string[] {
  const always = [
    `ALTER TABLE ${s}.questions ADD COLUMN IF NOT EXISTS owner text NOT NULL DEFAULT CURRENT_USER`,
    `ALTER TABLE ${s}.questions ADD COLUMN IF NOT EXISTS worker_name text`,
    `ALTER TABLE ${s}.decisions ADD COLUMN IF NOT EXISTS owner text NOT NULL DEFAULT CURRENT_USER`,
    `ALTER TABLE ${s}.workers ADD COLUMN IF NOT EXISTS owner text NOT NULL DEFAULT CURRENT_USER`,
    // version 3: a decision's self-declared name, beside its actor
    `ALTER TABLE ${s}.decisions ADD COLUMN IF NOT EXISTS claimed_actor text`,
    // version 4: what the tool declares about itself (description, caps, annotations), bounded by the asker
    `ALTER TABLE ${s}.questions ADD COLUMN IF NOT EXISTS tool_facts jsonb`,
  ];
  // A lease is one login's: another login naming the same worker has its own row.
  const rekey = [
    `ALTER TABLE ${s}.workers DROP CONSTRAINT IF EXISTS workers_pkey`,
    `ALTER TABLE ${s}.workers ADD PRIMARY KEY (owner, worker)`,
  ];
  return from < 2 ? [...always, ...rekey] : always;
}

/**
 * Version 6, on every migration (idempotent, whatever the version before):
 * a trigger gives every inserted or changed question, decision and call record the next
 * change number, overwriting any value a statement named; a row already
 * numbered past the sequence (a client wrote it) is renumbered.
 */
function stampSql(s: string): string[] {
  return [
    `CREATE OR REPLACE FUNCTION ${s}.stamp_change() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN NEW.changed := ` +
      `nextval('${s}.changes'); RETURN NEW; END $f$`,
    ...["questions", "decisions", "records"].flatMap((t) => [
      `DROP TRIGGER IF EXISTS stamp_change ON ${s}.${t}`,
      `CREATE TRIGGER stamp_change BEFORE INSERT OR UPDATE ON ${s}.${t} FOR EACH ROW EXECUTE FUNCTION ${s}.stamp_change()`,
      // a number past the sequence was written by a client (an older version let workers): the trigger renumbers it
      `UPDATE ${s}.${t} SET changed = 0 WHERE changed > (SELECT last_value FROM ${s}.changes)`,
    ]),
  ];
}

/**
 * Version 6's checks behind the worker's policies, as functions that read
 * every row (SECURITY DEFINER: a worker's own rights hide other logins'
 * questions, so "no such question" could not be told from "another's").
 * Each answers only about the id it is given and the login that asks.
 */
function fenceFunctionsSql(s: string, worker: string): string[] {
  const definer = "LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp";
  // the actor the page's answer records: the database login that wrote it, then the session (answerActor)
  const answeredBy = "COALESCE((q.answer->>'login') || ': ', '') || (q.answer->>'actor')";
  const mayRecord = `CREATE OR REPLACE FUNCTION ${s}.worker_may_record(p_id text, p_owner text, p_source text, p_asked boolean, p_allowed boolean, p_actor text) RETURNS boolean ${definer} AS $f$
    SELECT CASE
      WHEN q.id IS NULL THEN CASE WHEN p_source IN ('auto_allow', 'autonomy') THEN NOT p_asked WHEN p_source IN ('timeout', 'error') THEN NOT p_allowed ELSE false END
      WHEN q.owner IS DISTINCT FROM p_owner THEN false
      WHEN p_source = 'asker' AND q.status = 'answered' THEN p_actor IS NOT DISTINCT FROM (${answeredBy}) AND (NOT p_allowed OR q.answer->>'kind' IN ('approve', 'modify'))
      WHEN p_source = 'asker' THEN NOT p_allowed AND p_actor IS NULL
      WHEN p_source IN ('timeout', 'error') THEN NOT p_allowed
      ELSE false
    END FROM (SELECT 1) AS one LEFT JOIN ${s}.questions q ON q.id = p_id $f$`;
  const mayAsk = `CREATE OR REPLACE FUNCTION ${s}.worker_may_ask(p_id text, p_owner text) RETURNS boolean ${definer} AS $f$
    SELECT NOT EXISTS (SELECT 1 FROM ${s}.decisions d WHERE d.id = p_id AND d.owner IS DISTINCT FROM p_owner) $f$`;
  const signatures = [`${s}.worker_may_record(text, text, text, boolean, boolean, text)`, `${s}.worker_may_ask(text, text)`];
  return [
    mayRecord,
    mayAsk,
    ...signatures.flatMap((f) => [`REVOKE ALL ON FUNCTION ${f} FROM PUBLIC`, `GRANT EXECUTE ON FUNCTION ${f} TO ${worker}`]),
  ];
}

/** The two roles, their grants and the row-level policies (idempotent: a policy is dropped and made again). */
function rolesSql(s: string): string[] {
  const { worker: w, page: p } = inboxRoles(s);
  const role = (name: string) =>
    `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${name}') THEN CREATE ROLE ${name} NOLOGIN; END IF; END $$`;
  const asked = "id, call_id, tool, arguments, question, source, from_, worker, worker_name, asked_at, deadline_at, status, tool_facts";
  const decided = "id, tool, allowed, source, asked, actor, claimed_actor, reason, at, from_, confirmed";
  const fits = `owner = current_user AND ${s}.worker_may_record(id, owner, source, asked, allowed, actor)`;
  const policies: Array<[string, string, string]> = [
    ["questions", "worker_reads_own", `FOR SELECT TO ${w} USING (owner = current_user)`],
    [
      "questions",
      "worker_asks",
      `FOR INSERT TO ${w} WITH CHECK (owner = current_user AND status = 'pending' AND ${s}.worker_may_ask(id, owner))`,
    ],
    [
      "questions",
      "worker_ends_own",
      `FOR UPDATE TO ${w} USING (owner = current_user AND status = 'pending') WITH CHECK (owner = current_user AND ` +
        `status IN ('timed_out', 'withdrawn'))`,
    ],
    ["questions", "page_reads_all", `FOR SELECT TO ${p} USING (true)`],
    ["questions", "page_settles", `FOR UPDATE TO ${p} USING (status = 'pending') WITH CHECK (status <> 'pending')`],
    ["decisions", "worker_reads_own", `FOR SELECT TO ${w} USING (owner = current_user)`],
    ["decisions", "worker_records", `FOR INSERT TO ${w} WITH CHECK (${fits})`],
    ["decisions", "worker_rerecords", `FOR UPDATE TO ${w} USING (owner = current_user) WITH CHECK (${fits})`],
    ["decisions", "page_all", `FOR ALL TO ${p} USING (true) WITH CHECK (true)`],
    ["workers", "worker_own_lease", `FOR ALL TO ${w} USING (owner = current_user) WITH CHECK (owner = current_user)`],
    ["workers", "page_reads_leases", `FOR SELECT TO ${p} USING (true)`],
  ];
  return [
    role(w),
    role(p),
    `GRANT ${w} TO ${p}`,
    `GRANT USAGE ON SCHEMA ${s} TO ${w}`,
    `GRANT SELECT ON ${s}.meta TO ${w}`,
    `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ${s} TO ${w}`,
    // version 6: `changed` is the database's (the trigger's); a grant made by an older version is taken back
    `REVOKE INSERT (changed), UPDATE (changed) ON ${s}.questions, ${s}.decisions FROM ${w}`,
    `GRANT SELECT, INSERT (${asked}), UPDATE (status, reason, settled_at) ON ${s}.questions TO ${w}`,
    `GRANT SELECT, INSERT (${decided}), UPDATE (${decided.slice(4)}) ON ${s}.decisions TO ${w}`,
    `GRANT SELECT, INSERT (worker, lease_until), UPDATE (lease_until), DELETE ON ${s}.workers TO ${w}`,
    `GRANT UPDATE (answer) ON ${s}.questions TO ${p}`,
    `GRANT INSERT (owner) ON ${s}.decisions TO ${p}`,
    ...["questions", "decisions", "workers"].map((t) => `ALTER TABLE ${s}.${t} ENABLE ROW LEVEL SECURITY`),
    ...fenceFunctionsSql(s, w),
    // version 6 split the worker's one decisions policy by command
    `DROP POLICY IF EXISTS worker_own ON ${s}.decisions`,
    ...policies.flatMap(([t, name, rule]) => [`DROP POLICY IF EXISTS ${name} ON ${s}.${t}`, `CREATE POLICY ${name} ON ${s}.${t} ${rule}`]),
  ];
}

/** The version a schema's `meta` holds (0 when none is recorded yet). */
async function versionOf(client: PgClient, schema: string): Promise<number> {
  const { rows } = await client.query(`SELECT max(version) AS v FROM ${schema}.meta`);
  return Number(rows[0]?.v ?? 0);
}

/**
 * Create (or bring up to date) the inbox tables in `schema`. Idempotent and
 * safe to run from several processes at once (a transaction-scoped advisory
 * lock serialises them). With `roles`, also the worker and page roles, their
 * grants and row-level policies (the migrating login needs CREATEROLE, or
 * the roles made beforehand). Returns the schema's version.
 */
export async function migrateSchema(pool: PgPool, schema: string, options: { readonly roles: boolean }): Promise<number> {
  if (options.roles && schema.length > 56) {
    throw new OptionsError(
      "migrateInboxStore",
      "schema",
      `migrateInboxStore: 'schema' must be at most 56 characters, so the roles '${schema}_worker' and ` +
        `'${schema}_page' fit PostgreSQL's 63; got ${schema.length}`,
    );
  }
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`agentkit:${schema}`]);
    for (const sql of migrationSql(schema)) await client.query(sql);
    const from = await versionOf(client, schema);
    // version 5: call records (postgres-records); their grants and policies below, with the roles
    // version 7: durable runs (postgres-runs)
    for (const sql of [...upgradeSql(schema, from), ...recordsTableSql(schema), ...runsTableSql(schema), ...stampSql(schema)])
      await client.query(sql);
    if (options.roles) for (const sql of rolesSql(schema)) await client.query(sql);
    if (options.roles)
      for (const sql of [...recordsRolesSql(schema, inboxRoles(schema)), ...runsRolesSql(schema, inboxRoles(schema))])
        await client.query(sql);
    await client.query(`DELETE FROM ${schema}.meta`);
    await client.query(`INSERT INTO ${schema}.meta (version) VALUES ($1)`, [INBOX_SCHEMA_VERSION]);
    await client.query("COMMIT");
    return INBOX_SCHEMA_VERSION;
  } catch (err) {
    await client.query("ROLLBACK").catch(ignoreRejection("ROLLBACK after a failed migration; the migration error is thrown"));
    throw err;
  } finally {
    client.release();
  }
}

/**
 * `err` as the store's error: a missing table is `not_migrated` (naming the command that fixes it); a refused right
 * `forbidden` (naming the roles); anything else `unavailable`.
 */
export function storeError(err: unknown, schema: string): InboxError {
  if (isStoreFailure(err)) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === "42501") {
    const { worker, page } = inboxRoles(schema);
    return inboxStoreError(
      "forbidden",
      `the inbox database refused this login (${message}): a worker logs in as a member of '${worker}' (asks, ` +
        `reads its own), the page as a member of '${page}' (reads all, answers); \`agentkit inbox migrate\` makes ` +
        `both roles`,
      { cause: err },
    );
  }
  if (code === "42P01" || code === "3F000") {
    return inboxStoreError(
      "not_migrated",
      `the inbox tables in schema '${schema}' do not exist: run \`agentkit inbox migrate <url>\` (or ` +
        `migrateInboxStore()) once (${message})`,
      { cause: err },
    );
  }
  return inboxStoreError("unavailable", `the inbox database is unavailable: ${message}`, { cause: err });
}
