/**
 * @module test/helpers/postgres
 * The real PostgreSQL server the tests start (shared with the benchmarks: see
 * bench/lib/postgres.ts), and one statement run on it as its superuser.
 */
import { randomBytes } from "node:crypto";
import type { TestPostgres } from "../../bench/lib/postgres.js";
export { startPostgres, type TestPostgres } from "../../bench/lib/postgres.js";

/** Run one statement on `pg` as its superuser (a pool of one connection, ended after). */
export async function adminQuery(pg: TestPostgres, sql: string, values?: readonly unknown[]): Promise<Array<Record<string, unknown>>> {
  const { pgModule } = await import("../../src/askers/inbox/pg-peer.js");
  const pool = new (pgModule().Pool)({ connectionString: pg.connectionString, max: 1 });
  try {
    return (await pool.query(sql, values)).rows;
  } finally {
    await pool.end();
  }
}

/**
 * Run one statement on `connectionString` (a login's own URL: what anything
 * holding that login can do), in a pool of one connection ended after: the
 * rows it touched, or the error the database answered.
 */
export async function sqlOn(connectionString: string, sql: string, values?: readonly unknown[]): Promise<number | Error> {
  const { pgModule } = await import("../../src/askers/inbox/pg-peer.js");
  const pool = new (pgModule().Pool)({ connectionString, max: 1 });
  try {
    return (await pool.query(sql, values)).rowCount ?? 0;
  } catch (err) {
    return err as Error;
  } finally {
    await pool.end();
  }
}

/**
 * A new, empty database on `pg` (its connection string), for a test that
 * must start from nothing another test left behind: a test that fails midway
 * leaves its rows in its own database, not in the next test's.
 */
export async function freshDatabase(pg: TestPostgres): Promise<string> {
  const name = `t_${randomBytes(6).toString("hex")}`;
  await adminQuery(pg, `CREATE DATABASE ${name}`);
  const url = new URL(pg.connectionString);
  url.pathname = `/${name}`;
  return url.toString();
}
