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
 */
import { OptionsError } from "../../errors/options.error.js";
import { InboxStoreError } from "./inbox-store.error.js";
import type { PgClient, PgPool } from "./pg-peer.js";
import { recordsRolesSql, recordsTableSql } from "./postgres-records.js";
import { ignoreRejection } from "../../util/logger.js";

/** The schema used when none is given. */
export const DEFAULT_INBOX_SCHEMA = "agentkit_inbox";

/** The version `migrateInboxStore` brings a schema to (2: row owners, the worker and page roles; 3: a decision's claimed actor; 4: a question's tool facts; 5: call records). */
export const INBOX_SCHEMA_VERSION = 5;

const IDENT = /^[a-z_][a-z0-9_]{0,62}$/;

/** `schema` checked to be a plain lower-case SQL identifier (it is interpolated into SQL, so nothing else is accepted). */
export function checkSchemaName(schema: string, where: string): string {
  if (typeof schema !== "string" || !IDENT.test(schema)) {
    throw new OptionsError(where, "schema", `${where}: 'schema' must be a lower-case SQL identifier (letters, digits, _; at most 63), got ${JSON.stringify(schema)}`);
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
export const workerChannelSql = (schema: string, owner: string, worker: string): string => `'agentkit_w_' || md5('${schema}/' || ${owner} || '/' || ${worker})`;

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

/** Versions 2 to 4 on older tables: each row's owner (the login that wrote it), the worker's display name, leases keyed by owner and worker; a decision's claimed actor; a question's tool facts. */
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
  const rekey = [`ALTER TABLE ${s}.workers DROP CONSTRAINT IF EXISTS workers_pkey`, `ALTER TABLE ${s}.workers ADD PRIMARY KEY (owner, worker)`];
  return from < 2 ? [...always, ...rekey] : always;
}

/** The two roles, their grants and the row-level policies (idempotent: a policy is dropped and made again). */
function rolesSql(s: string): string[] {
  const { worker: w, page: p } = inboxRoles(s);
  const role = (name: string) => `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${name}') THEN CREATE ROLE ${name} NOLOGIN; END IF; END $$`;
  const asked = "id, call_id, tool, arguments, question, source, from_, worker, worker_name, asked_at, deadline_at, status, tool_facts";
  const decided = "id, tool, allowed, source, asked, actor, claimed_actor, reason, at, from_, confirmed";
  const policies: Array<[string, string, string]> = [
    ["questions", "worker_reads_own", `FOR SELECT TO ${w} USING (owner = current_user)`],
    ["questions", "worker_asks", `FOR INSERT TO ${w} WITH CHECK (owner = current_user AND status = 'pending')`],
    ["questions", "worker_ends_own", `FOR UPDATE TO ${w} USING (owner = current_user AND status = 'pending') WITH CHECK (owner = current_user AND status IN ('timed_out', 'withdrawn'))`],
    ["questions", "page_reads_all", `FOR SELECT TO ${p} USING (true)`],
    ["questions", "page_settles", `FOR UPDATE TO ${p} USING (status = 'pending') WITH CHECK (status <> 'pending')`],
    ["decisions", "worker_own", `FOR ALL TO ${w} USING (owner = current_user) WITH CHECK (owner = current_user)`],
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
    `GRANT SELECT, INSERT (${asked}), UPDATE (status, reason, settled_at, changed) ON ${s}.questions TO ${w}`,
    `GRANT SELECT, INSERT (${decided}), UPDATE (${decided.slice(4)}, changed) ON ${s}.decisions TO ${w}`,
    `GRANT SELECT, INSERT (worker, lease_until), UPDATE (lease_until), DELETE ON ${s}.workers TO ${w}`,
    `GRANT UPDATE (answer) ON ${s}.questions TO ${p}`,
    `GRANT INSERT (owner) ON ${s}.decisions TO ${p}`,
    ...["questions", "decisions", "workers"].map((t) => `ALTER TABLE ${s}.${t} ENABLE ROW LEVEL SECURITY`),
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
    throw new OptionsError("migrateInboxStore", "schema", `migrateInboxStore: 'schema' must be at most 56 characters, so the roles '${schema}_worker' and '${schema}_page' fit PostgreSQL's 63; got ${schema.length}`);
  }
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`agentkit:${schema}`]);
    for (const sql of migrationSql(schema)) await client.query(sql);
    const from = await versionOf(client, schema);
    for (const sql of upgradeSql(schema, from)) await client.query(sql);
    if (options.roles) for (const sql of rolesSql(schema)) await client.query(sql);
    // version 5: call records (postgres-records), their grants and policies
    for (const sql of recordsTableSql(schema)) await client.query(sql);
    if (options.roles) for (const sql of recordsRolesSql(schema, inboxRoles(schema))) await client.query(sql);
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

/** `err` as the store's error: a missing table is `not_migrated` (naming the command that fixes it); a refused right `forbidden` (naming the roles); anything else `unavailable`. */
export function storeError(err: unknown, schema: string): InboxStoreError {
  if (err instanceof InboxStoreError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === "42501") {
    const { worker, page } = inboxRoles(schema);
    return new InboxStoreError("forbidden", `the inbox database refused this login (${message}): a worker logs in as a member of '${worker}' (asks, reads its own), the page as a member of '${page}' (reads all, answers); \`agentkit inbox migrate\` makes both roles`, { cause: err });
  }
  if (code === "42P01" || code === "3F000") {
    return new InboxStoreError("not_migrated", `the inbox tables in schema '${schema}' do not exist: run \`agentkit inbox migrate <url>\` (or migrateInboxStore()) once (${message})`, { cause: err });
  }
  return new InboxStoreError("unavailable", `the inbox database is unavailable: ${message}`, { cause: err });
}
