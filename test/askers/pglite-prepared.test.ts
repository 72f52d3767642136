/**
 * @module test/askers/pglite-prepared.test
 * The embedded store's statements on PGlite: a statement with values is
 * prepared once and then runs in one pass through the database (bind,
 * describe, execute and sync in one message), where `db.query` makes six
 * (each a trip into the WebAssembly backend on the event loop's thread) and
 * parses and plans the text every time; the rows read back are the ones
 * `db.query` gives (JSON, timestamps, numbers parsed the same); a statement
 * someone deallocated is prepared again; an error is the database's, with
 * its code, and the session goes on.
 */
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sessionPool, type PGliteDb } from "../../src/askers/inbox/pglite-store.js";
import type { PgPool } from "../../src/askers/inbox/pg-peer.js";

let db: PGlite;
let pool: PgPool;
/** How many times the database's backend was entered (each `execProtocolRawSync` is one pass). */
let passes = 0;

beforeAll(async () => {
  db = await PGlite.create();
  const inner = db.execProtocolRawSync.bind(db);
  db.execProtocolRawSync = (message: Uint8Array) => {
    passes++;
    return inner(message);
  };
  pool = sessionPool(db as unknown as PGliteDb, { release() {} });
  await pool.query("CREATE TABLE t (id integer PRIMARY KEY, data jsonb NOT NULL, at timestamptz NOT NULL, note text)");
});
afterAll(async () => {
  await pool.end();
});

/** The passes `run` makes. */
async function passesOf(run: () => Promise<unknown>): Promise<number> {
  const before = passes;
  await run();
  return passes - before;
}

const insert = "INSERT INTO t (id, data, at, note) VALUES ($1, $2, $3, $4) RETURNING id";

it("a statement with values is prepared once, then runs in one pass through the database", async () => {
  const first = await passesOf(() => pool.query(insert, [1, JSON.stringify({ a: 1 }), "2026-01-01T00:00:00.000Z", null]));
  const again = await passesOf(() => pool.query(insert, [2, JSON.stringify({ a: 2 }), "2026-01-02T00:00:00.000Z", "two"]));
  expect(first).toBe(2); // prepare (parse + describe + sync), then bind + describe + execute + sync
  expect(again).toBe(1);
  // db.query, for comparison, makes more passes for the same statement (six in PGlite 0.5; its own business how many)
  expect(await passesOf(() => db.query(insert, [3, JSON.stringify({ a: 3 }), "2026-01-03T00:00:00.000Z", null]))).toBeGreaterThan(again);
});

it("the rows read back are the ones db.query gives, and rowCount counts what changed", async () => {
  const select = "SELECT id, data, at, note, row_to_json(t) AS row FROM t WHERE id >= $1 ORDER BY id";
  const viaPool = await pool.query(select, [1]);
  const viaQuery = await db.query(select, [1]);
  expect(viaPool.rows).toEqual(viaQuery.rows);
  expect(viaPool.rows[1]).toMatchObject({ id: 2, data: { a: 2 }, note: "two" });
  expect(viaPool.rows[1]!.at).toEqual(new Date("2026-01-02T00:00:00.000Z"));
  const updated = await pool.query("UPDATE t SET note = $1 WHERE id <= $2", ["x", 2]);
  expect(updated).toMatchObject({ rows: [], rowCount: 2 });
  const none = await pool.query("SELECT id FROM t WHERE id = $1", [99]);
  expect(none.rows).toEqual([]);
});

it("a statement someone deallocated is prepared again; a database error keeps its code and the session goes on", async () => {
  await pool.query("DEALLOCATE ALL");
  const after = await pool.query("SELECT id FROM t WHERE id = $1", [2]);
  expect(after.rows).toEqual([{ id: 2 }]);
  const dup = pool.query(insert, [1, "{}", "2026-01-01T00:00:00.000Z", null]);
  await expect(dup).rejects.toMatchObject({ code: "23505" });
  const bad = pool.query("SELECT nope FROM t WHERE id = $1", [1]);
  await expect(bad).rejects.toMatchObject({ code: "42703" });
  expect((await pool.query("SELECT count(*)::int AS n FROM t WHERE id > $1", [0])).rows).toEqual([{ n: 3 }]);
});
