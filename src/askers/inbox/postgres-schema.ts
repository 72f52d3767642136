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
 * - the `changes` sequence: every insert or change of a question or decision
 *   takes the next value, so a listener catches up on everything after the
 *   last change it saw, in order, whatever notifications it missed.
 */
import { OptionsError } from "../../errors/options.error.js";
import { InboxStoreError } from "./inbox-store.error.js";
import type { PgPool } from "./pg-peer.js";

/** The schema used when none is given. */
export const DEFAULT_INBOX_SCHEMA = "agentkit_inbox";

/** The version `migrateInboxStore` brings a schema to. */
export const INBOX_SCHEMA_VERSION = 1;

const IDENT = /^[a-z_][a-z0-9_]{0,62}$/;

/** `schema` checked to be a plain lower-case SQL identifier (it is interpolated into SQL, so nothing else is accepted). */
export function checkSchemaName(schema: string, where: string): string {
  if (typeof schema !== "string" || !IDENT.test(schema)) {
    throw new OptionsError(where, "schema", `${where}: 'schema' must be a lower-case SQL identifier (letters, digits, _; at most 63), got ${JSON.stringify(schema)}`);
  }
  return schema;
}

/** The notification channel of a schema's inbox. */
export const channelOf = (schema: string): string => `${schema}_changes`;

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
 * Create (or bring up to date) the inbox tables in `schema`. Idempotent and
 * safe to run from several processes at once (a transaction-scoped advisory
 * lock serialises them). Returns the schema's version.
 */
export async function migrateSchema(pool: PgPool, schema: string): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`agentkit:${schema}`]);
    for (const sql of migrationSql(schema)) await client.query(sql);
    const { rows } = await client.query(`SELECT version FROM ${schema}.meta`);
    if (rows.length === 0) await client.query(`INSERT INTO ${schema}.meta (version) VALUES ($1)`, [INBOX_SCHEMA_VERSION]);
    await client.query("COMMIT");
    return INBOX_SCHEMA_VERSION;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/** `err` as the store's error: a missing table is `not_migrated` (naming the command that fixes it); anything else `unavailable`. */
export function storeError(err: unknown, schema: string): InboxStoreError {
  if (err instanceof InboxStoreError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === "42P01" || code === "3F000") {
    return new InboxStoreError("not_migrated", `the inbox tables in schema '${schema}' do not exist: run \`agentkit inbox migrate <url>\` (or migrateInboxStore()) once (${message})`, { cause: err });
  }
  return new InboxStoreError("unavailable", `the inbox database is unavailable: ${message}`, { cause: err });
}
