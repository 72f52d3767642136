/**
 * @module test/askers/call-records.test
 * The inbox stores as call-record stores (`contracts/call-record`): one
 * contract suite run against each of the three — `MemoryInboxStore`,
 * `pgliteInboxStore` on a temporary directory (a second view is the
 * directory closed and opened again: a restart), and `postgresInboxStore` on
 * a real PostgreSQL server started for this file (a second view is a second
 * store: another process's). Then what only a server shows: changes heard
 * across stores, worker logins kept apart by row-level security, a dropped
 * listening connection caught up, and a server that is down.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallAnswer, CallRecord, CallRecordEvent, CallRecordStore } from "../../src/contracts/call-record.js";
import { newRecordId } from "../../src/records/memory-call-records.js";
import {
  MemoryInboxStore,
  migrateInboxStore,
  pgliteInboxStore,
  postgresInboxStore,
  type InboxEvent,
  type PostgresInboxStore,
} from "../../src/askers/index.js";
import { recordsChannelOf } from "../../src/askers/inbox/postgres-records.js";
import { adminQuery, startPostgres, type TestPostgres, sqlOn } from "../helpers/postgres.js";
import { InboxError } from "../../src/index.js";

let pg: TestPostgres;
const opened: PostgresInboxStore[] = [];

beforeAll(async () => {
  pg = await startPostgres();
  await migrateInboxStore({ connectionString: pg.connectionString });
});

afterAll(async () => {
  await Promise.all(opened.map((s) => s.stop()));
  pg?.stop();
});

/** The server's URL as `user` (trust on loopback: no password). */
const urlAs = (user: string): string => pg.connectionString.replace("postgres://postgres@", `postgres://${user}@`);

/** A PostgreSQL store, closed after the file. */
function pgStore(o: { user?: string; role?: "worker" | "page" } = {}): PostgresInboxStore {
  const s = postgresInboxStore({ connectionString: o.user ? urlAs(o.user) : pg.connectionString, ...(o.role ? { role: o.role } : {}) });
  opened.push(s);
  return s;
}

/** A fresh record of a running call (its times an hour old, so a change must move `lastUpdatedAt`). */
function record(over: Partial<CallRecord> = {}): CallRecord {
  const then = new Date(Date.now() - 3_600_000).toISOString();
  return {
    id: newRecordId(),
    kind: "task",
    owner: "caller-a",
    server: "files",
    tool: "write_file",
    arguments: { path: "/tmp/x", text: "hi ✓", escaped: "C:\\u0000 is text, not a NUL", nested: { list: [1, "two", null, true] } },
    status: "working",
    statusMessage: "running",
    started: false,
    round: 0,
    answers: [],
    cancelRequested: false,
    worker: "host:1:abc",
    createdAt: then,
    lastUpdatedAt: then,
    ttlMs: 60_000,
    pollIntervalMs: 500,
    version: 0,
    ...over,
  };
}

/** A record waiting on round 1's question `elicit-1`. */
const waiting = (over: Partial<CallRecord> = {}): CallRecord =>
  record({
    status: "input_required",
    statusMessage: "waiting for approval",
    round: 1,
    question: {
      key: "elicit-1",
      method: "elicitation/create",
      params: { message: "Allow write_file?", requestedSchema: { type: "object", properties: { approve: { type: "boolean" } } } },
      questionId: "q-1",
    },
    ...over,
  });

const answer = (by: string, over: Partial<CallAnswer> = {}): CallAnswer => ({
  key: "elicit-1",
  method: "elicitation/create",
  value: { action: "accept", content: { approve: true } },
  by,
  ...over,
});

/** A record as another view of the store must read it back. */
const stored = (r: CallRecord): CallRecord => JSON.parse(JSON.stringify(r)) as CallRecord;

/** The record events a store's subscriber hears, and a way to stop. */
function hearRecords(s: CallRecordStore): { events: CallRecordEvent[]; of: (id: string) => CallRecord[]; stop: () => void } {
  const events: CallRecordEvent[] = [];
  const stop = s.subscribeRecords((e) => events.push(e));
  return { events, of: (id) => events.filter((e) => e.record.id === id).map((e) => e.record), stop };
}

/** One database seen three ways: a store, the view of a second process, two stores acting at once. */
interface Backend {
  readonly name: string;
  /** A store on the database (the same database for the whole file). */
  store(): Promise<CallRecordStore>;
  /** Another process's view of the same database (PGlite: the directory closed and opened again — a restart). */
  secondView(): Promise<CallRecordStore>;
  /** Two stores acting at once (distinct where the database allows it). */
  peers(): Promise<[CallRecordStore, CallRecordStore]>;
  close(): Promise<void>;
}

function memoryBackend(): Backend {
  const store = new MemoryInboxStore();
  return {
    name: "MemoryInboxStore",
    store: async () => store,
    secondView: async () => store,
    peers: async () => [store, store],
    close: async () => {},
  };
}

function pgliteBackend(): Backend {
  const dir = mkdtempSync(join(tmpdir(), "akt-records-"));
  const dataDir = join(dir, "inbox");
  let current: PostgresInboxStore | undefined;
  const store = async (): Promise<PostgresInboxStore> => (current ??= await pgliteInboxStore({ dataDir }));
  return {
    name: "pgliteInboxStore",
    store,
    secondView: async () => {
      await current?.stop();
      current = undefined;
      return store();
    },
    peers: async () => [await store(), await store()],
    close: async () => {
      await current?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresBackend(): Backend {
  return {
    name: "postgresInboxStore",
    store: async () => pgStore(),
    secondView: async () => pgStore(),
    peers: async () => [pgStore(), pgStore()],
    close: async () => {},
  };
}

describe.each([{ make: memoryBackend }, { make: pgliteBackend }, { make: postgresBackend }])(
  "the call-record contract: $make.name",
  ({ make }) => {
    let b: Backend;
    beforeAll(() => {
      b = make();
    });
    afterAll(() => b.close());

    it("a created record is read back whole by another process's view, only by its owner", async () => {
      const s = await b.store();
      const r = waiting({ answers: [answer("the MCP client", { key: "elicit-0" })], result: undefined, ttlMs: null });
      await s.createRecord(r);
      const other = await b.secondView();
      expect(await other.getRecord(r.id, r.owner)).toEqual(stored(r));
      expect(await other.getRecord(r.id, "caller-b")).toBeUndefined();
      expect(await other.getRecord(newRecordId(), r.owner)).toBeUndefined();
    }, 60_000);

    it("an id already present is refused, whoever's record it is, and the first record stays as it was", async () => {
      const s = await b.store();
      const r = record();
      await s.createRecord(r);
      const err = await s.createRecord({ ...r, owner: "caller-b", tool: "other" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InboxError);
      expect(err).toMatchObject({ code: "inbox_store", failure: "invalid" });
      expect((err as Error).message).toBe(
        `createRecord '${r.id}' refused: a call record with this id already exists; each record needs a fresh id (≥ 128 random bits)`,
      );
      expect(await s.getRecord(r.id, r.owner)).toEqual(stored(r));
      expect(await s.getRecord(r.id, "caller-b")).toBeUndefined();
    });

    it("bad input is refused before anything is stored, naming the field and what is accepted", async () => {
      const s = await b.store();
      const r = record();
      const refused = async (p: Promise<unknown>): Promise<string> => {
        const err = await p.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toMatchObject({ code: "inbox_store", failure: "invalid" });
        return (err as Error).message;
      };
      expect(await refused(s.createRecord({ ...r, status: "done" as never }))).toBe(
        `createRecord '${r.id}' refused: 'status' must be 'working', 'input_required', 'completed', 'failed', 'cancelled', got "done"`,
      );
      expect(await refused(s.createRecord({ ...r, colour: "red" } as never))).toMatch(
        /^createRecord '.+' refused: unknown field\(s\) 'colour'; the fields of a call record: id, kind, owner/,
      );
      expect(await refused(s.createRecord({ ...r, answers: [{ key: "k", method: "elicitation/create", value: 1 }] as never }))).toBe(
        `createRecord '${r.id}' refused: 'answers[0]': an answer's 'by' must be a string (who answered, in words), got undefined`,
      );
      expect(await refused(s.createRecord({ ...r, arguments: { big: 10n } }))).toBe(
        `createRecord '${r.id}' refused: 'arguments' is not plain JSON (Do not know how to serialize a BigInt)`,
      );
      expect(await refused(s.createRecord({ ...r, arguments: { text: "a\u0000b" } }))).toBe(
        `createRecord '${r.id}' refused: 'arguments' is not plain JSON (a string holds a NUL character (\\u0000), which PostgreSQL cannot store)`,
      );
      expect(await refused(s.expireRecords(new Date("not a date")))).toBe(
        "expireRecords refused: 'now' must be a valid Date, got Invalid Date",
      );
      expect(await s.getRecord(r.id, r.owner)).toBeUndefined();
      await s.createRecord(r);
      expect(await refused(s.updateRecord(r.id, 0, { owner: "caller-b" } as never))).toBe(
        `updateRecord '${r.id}' refused: unknown field(s) 'owner'; a change may set: status, statusMessage, started, round, question, answers, result, error, cancelRequested, worker, pollIntervalMs`,
      );
      expect(await refused(s.updateRecord(r.id, 0, { status: undefined }))).toMatch(/'status' must be/);
      expect(await refused(s.updateRecord(r.id, -1, { started: true }))).toBe(
        `updateRecord '${r.id}' refused: 'version' must be a whole number ≥ 0, got -1`,
      );
      expect(await refused(s.answerRecord(r.id, 1, { method: "elicitation/create", value: 1, by: "x" } as never))).toBe(
        `answerRecord '${r.id}' refused: an answer's 'key' must be a non-empty string, got undefined`,
      );
      expect(await s.getRecord(r.id, r.owner)).toEqual(stored(r));
    });

    it("compare-and-set: the right version applies (version + 1, a cleared field gone); a stale one returns the record as it stands", async () => {
      const s = await b.store();
      const r = record();
      await s.createRecord(r);
      const done = await s.updateRecord(r.id, 0, { started: true, statusMessage: undefined, pollIntervalMs: 1000 });
      expect(done.ok).toBe(true);
      const { lastUpdatedAt, ...rest } = done.record!;
      const { lastUpdatedAt: before, statusMessage: _cleared, ...same } = stored(r);
      expect(rest).toEqual({ ...same, started: true, pollIntervalMs: 1000, version: 1 });
      expect(Date.parse(lastUpdatedAt)).toBeGreaterThan(Date.parse(before));
      expect(await s.getRecord(r.id, r.owner)).toEqual(done.record);
      expect(await s.updateRecord(r.id, 0, { started: false })).toEqual({ ok: false, record: done.record });
      expect(await s.updateRecord(newRecordId(), 0, { started: true })).toEqual({ ok: false, record: undefined });
    });

    it("of two stores changing the same version at once, exactly one wins; the other sees the winner", async () => {
      const [x, y] = await b.peers();
      const r = record();
      await x.createRecord(r);
      const results = await Promise.all([x, y, x, y].map((s, i) => s.updateRecord(r.id, 0, { worker: `worker-${i}` })));
      const winners = results.filter((u) => u.ok);
      expect(winners).toHaveLength(1);
      for (const u of results.filter((v) => !v.ok)) expect(u.record).toEqual(winners[0]!.record);
    });

    it("an answer is taken once: a replay, another round or another key is refused with the record as it stands", async () => {
      const s = await b.store();
      const r = waiting();
      await s.createRecord(r);
      expect(await s.answerRecord(r.id, 2, answer("client"))).toEqual({ ok: false, record: stored(r) });
      expect(await s.answerRecord(r.id, 1, answer("client", { key: "elicit-2" }))).toEqual({ ok: false, record: stored(r) });
      const first = await s.answerRecord(r.id, 1, answer("the MCP client (tasks/update)"));
      expect(first.ok).toBe(true);
      expect(first.record).toMatchObject({
        status: "working",
        statusMessage: "working",
        round: 1,
        version: 1,
        answers: [answer("the MCP client (tasks/update)")],
      });
      expect(first.record!.question).toBeUndefined();
      const again = await s.answerRecord(r.id, 1, answer("the MCP client (tasks/update)"));
      expect(again).toEqual({ ok: false, record: first.record });
      expect(await s.getRecord(r.id, r.owner)).toEqual(first.record);
    });

    it("questions open at once (`question.others`) are each answered on their own, in any order; the call waits until the last", async () => {
      const s = await b.store();
      const q = (key: string, message: string) => ({
        key,
        method: "elicitation/create" as const,
        params: { message, requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
      });
      const r = waiting({
        round: 3,
        question: { ...q("elicit-1", "First?"), others: [q("elicit-2", "Second?"), q("elicit-3", "Third?")] },
      });
      await s.createRecord(r);
      expect((await s.getRecord(r.id, r.owner))?.question).toEqual(r.question);
      const second = answer("client", { key: "elicit-2", value: { action: "accept", content: { name: "two" } } });
      const a = await s.answerRecord(r.id, 3, second);
      expect(a.ok).toBe(true);
      expect(a.record).toMatchObject({
        status: "input_required",
        statusMessage: "waiting for approval",
        round: 3,
        answers: [second],
        question: { ...q("elicit-1", "First?"), others: [q("elicit-3", "Third?")] },
      });
      expect(await s.answerRecord(r.id, 3, second)).toEqual({ ok: false, record: a.record });
      const first = answer("client", { key: "elicit-1" });
      const b1 = await s.answerRecord(r.id, 3, first);
      expect(b1.record).toMatchObject({ status: "input_required", answers: [second, first], question: q("elicit-3", "Third?") });
      expect(b1.record!.question!.others).toBeUndefined();
      const third = answer("client", { key: "elicit-3" });
      const c = await s.answerRecord(r.id, 3, third);
      expect(c.record).toMatchObject({ status: "working", statusMessage: "working", answers: [second, first, third] });
      expect(c.record!.question).toBeUndefined();
      expect(await s.getRecord(r.id, r.owner)).toEqual(c.record);
    });

    it("of two stores answering the same question at once, exactly one answer is recorded", async () => {
      const [x, y] = await b.peers();
      const r = waiting();
      await x.createRecord(r);
      const results = await Promise.all([x, y, x, y].map((s, i) => s.answerRecord(r.id, 1, answer(`process ${i}`))));
      const winners = results.filter((u) => u.ok);
      expect(winners).toHaveLength(1);
      const now = await y.getRecord(r.id, r.owner);
      expect(now?.answers).toEqual([answer(winners[0]!.record!.answers[0]!.by)]);
      for (const u of results.filter((v) => !v.ok)) expect(u.record).toEqual(now);
    });

    it("a final record never changes again: no update, not even with its current version, and no answer", async () => {
      const s = await b.store();
      const r = waiting();
      await s.createRecord(r);
      const ended = await s.updateRecord(r.id, 0, { status: "cancelled", statusMessage: "cancelled by the client", cancelRequested: true });
      expect(ended.ok).toBe(true);
      expect(await s.updateRecord(r.id, 1, { status: "working" })).toEqual({ ok: false, record: ended.record });
      expect(await s.answerRecord(r.id, 1, answer("late"))).toEqual({ ok: false, record: ended.record });
      const done = record();
      await s.createRecord(done);
      const completed = await s.updateRecord(done.id, 0, { status: "completed", result: { content: [{ type: "text", text: "ok" }] } });
      expect(completed.record?.result).toEqual({ content: [{ type: "text", text: "ok" }] });
      expect(await s.updateRecord(done.id, 1, { result: undefined })).toEqual({ ok: false, record: completed.record });
    });

    it("openRecords lists one server's records that are not final, oldest first", async () => {
      const s = await b.store();
      const server = `srv-${newRecordId()}`;
      const at = (min: number) => new Date(Date.now() - min * 60_000).toISOString();
      const [older, newer, ended, elsewhere] = [
        record({ server, createdAt: at(30) }),
        waiting({ server, createdAt: at(10) }),
        record({ server, createdAt: at(20) }),
        record({ createdAt: at(40) }),
      ];
      for (const r of [newer, ended, older, elsewhere]) await s.createRecord(r);
      await s.updateRecord(ended.id, 0, { status: "failed", error: { code: -32603, message: "boom" } });
      expect((await s.openRecords(server)).map((r) => r.id)).toEqual([older.id, newer.id]);
      expect(await s.openRecords(`none-${newRecordId()}`)).toEqual([]);
    });

    it("expireRecords deletes only final records past their TTL", async () => {
      const s = await b.store();
      const server = `exp-${newRecordId()}`;
      const [old, young, forever, running] = [
        record({ server, ttlMs: 1000 }),
        record({ server, ttlMs: 86_400_000 }),
        record({ server, ttlMs: null }),
        record({ server, ttlMs: 1000 }),
      ];
      for (const r of [old, young, forever, running]) {
        await s.createRecord(r);
        if (r !== running) await s.updateRecord(r.id, 0, { status: "completed", result: { content: [] } });
      }
      const now = new Date();
      const gone = await s.expireRecords(now);
      expect(gone).toBeGreaterThanOrEqual(1);
      expect(await s.getRecord(old.id, old.owner)).toBeUndefined();
      for (const kept of [young, forever, running]) expect((await s.getRecord(kept.id, kept.owner))?.id).toBe(kept.id);
      expect(await s.expireRecords(now)).toBe(0);
    });

    it("subscribeRecords hears each change's record in order (a version read late may be skipped), until it stops", async () => {
      const s = await b.store();
      const [heard, other] = [hearRecords(s), hearRecords(s)];
      await s.openRecords("warm-up"); // connected and listening
      const r = waiting();
      await s.createRecord(r);
      await s.answerRecord(r.id, 1, answer("client"));
      await s.updateRecord(r.id, 1, { status: "completed", result: { content: [] } });
      // a store reads a row when woken for it: versions changed again before the read are told once, as the row then stood
      await expect.poll(() => heard.of(r.id).at(-1)?.status, { timeout: 10_000 }).toBe("completed");
      const versions = heard.of(r.id).map((x) => x.version);
      expect(versions.at(-1)).toBe(2);
      expect(versions).toEqual([...new Set(versions)].sort());
      expect(heard.of(r.id).at(-1)).toEqual(await s.getRecord(r.id, r.owner));
      heard.stop();
      const later = record();
      await s.createRecord(later);
      await expect.poll(() => other.of(later.id).length, { timeout: 10_000 }).toBe(1);
      expect(heard.of(later.id)).toEqual([]);
      other.stop();
    });
  },
);

describe("postgresInboxStore: records across processes", () => {
  it("a subscriber hears a record created and changed through another store, read by itself: a forged NOTIFY adds nothing", async () => {
    const [listener, writer, sentinel] = [pgStore(), pgStore(), record()];
    const heard = hearRecords(listener);
    await listener.openRecords("warm-up");
    const r = waiting();
    await writer.createRecord(r);
    const answered = await writer.answerRecord(r.id, 1, answer("client"));
    // a row changed again before the subscriber read it may be told once, as it then stood: the last version always arrives, in order
    await expect.poll(() => heard.of(r.id).at(-1)?.version, { timeout: 10_000 }).toBe(1);
    expect(heard.of(r.id).at(-1)).toEqual(answered.record);
    const versions = heard.of(r.id).map((x) => x.version);
    // anyone may NOTIFY: a wake-up naming an unknown id, or a known one with a made-up change number, delivers nothing new
    const channel = recordsChannelOf("agentkit_inbox");
    await adminQuery(pg, "SELECT pg_notify($1, $2)", [channel, JSON.stringify({ k: "r", id: newRecordId(), c: 1e12 })]);
    await adminQuery(pg, "SELECT pg_notify($1, $2)", [channel, JSON.stringify({ k: "r", id: r.id, c: 1e12 })]);
    await adminQuery(pg, "SELECT pg_notify($1, $2)", [channel, JSON.stringify({ k: "r", id: r.id, status: "completed" })]);
    await writer.createRecord(sentinel);
    await expect.poll(() => heard.of(sentinel.id).length, { timeout: 10_000 }).toBe(1);
    expect(heard.events.map((e) => e.record.id).filter((id) => id !== sentinel.id && id !== r.id)).toEqual([]);
    expect(heard.of(r.id).map((x) => x.version)).toEqual(versions);
    expect(versions).toEqual([...new Set(versions)].sort());
  });

  it("a dropped listening connection: the record changes made meanwhile are read back by change number", async () => {
    await adminQuery(pg, "CREATE ROLE records_page LOGIN IN ROLE agentkit_inbox_page");
    const page = pgStore({ user: "records_page", role: "page" });
    const writer = pgStore();
    const inbox: InboxEvent[] = [];
    page.subscribe((e) => inbox.push(e));
    const heard = hearRecords(page);
    await page.openRecords("warm-up");
    const r = record();
    await adminQuery(pg, "ALTER ROLE records_page NOLOGIN");
    try {
      await adminQuery(pg, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'records_page'");
      await expect.poll(() => inbox.some((e) => e.type === "unavailable"), { timeout: 10_000 }).toBe(true);
      await writer.createRecord(r);
      await writer.updateRecord(r.id, 0, { started: true });
    } finally {
      await adminQuery(pg, "ALTER ROLE records_page LOGIN");
    }
    await expect.poll(() => heard.of(r.id).at(-1)?.version, { timeout: 15_000 }).toBe(1);
    expect(heard.of(r.id).at(-1)).toEqual(await writer.getRecord(r.id, r.owner));
  });
});

describe("postgresInboxStore: records and the inbox's roles (row-level security)", () => {
  beforeAll(async () => {
    await adminQuery(pg, "CREATE ROLE rec_worker_a LOGIN IN ROLE agentkit_inbox_worker");
    await adminQuery(pg, "CREATE ROLE rec_worker_b LOGIN IN ROLE agentkit_inbox_worker");
    await adminQuery(pg, "CREATE ROLE rec_reviewer LOGIN IN ROLE agentkit_inbox_page");
  });

  /** One statement as `user`, straight to the database (what anything holding that login can do): rows touched, or the error. */
  const sqlAs = (user: string, sql: string, values?: readonly unknown[]): Promise<number | Error> => sqlOn(urlAs(user), sql, values);

  it("worker login B neither reads, changes, answers nor expires worker login A's records; the page's login reads all and changes none", async () => {
    const [a, b, page] = [
      pgStore({ user: "rec_worker_a", role: "worker" }),
      pgStore({ user: "rec_worker_b", role: "worker" }),
      pgStore({ user: "rec_reviewer", role: "page" }),
    ];
    const server = `rls-${newRecordId()}`;
    const [ra, rb] = [waiting({ server, arguments: { secret: "only-for-A" } }), record({ server })];
    await a.createRecord(ra);
    await b.createRecord(rb);
    expect(await b.getRecord(ra.id, ra.owner)).toBeUndefined();
    expect((await b.openRecords(server)).map((r) => r.id)).toEqual([rb.id]);
    expect(await b.updateRecord(ra.id, 0, { status: "cancelled" })).toEqual({ ok: false, record: undefined });
    expect(await b.answerRecord(ra.id, 1, answer("B"))).toEqual({ ok: false, record: undefined });
    expect(await sqlAs("rec_worker_b", "SELECT 1 FROM agentkit_inbox.records WHERE id = $1", [ra.id])).toBe(0);
    expect(await sqlAs("rec_worker_b", "UPDATE agentkit_inbox.records SET status = 'cancelled' WHERE id = $1", [ra.id])).toBe(0);
    expect(await sqlAs("rec_worker_b", "DELETE FROM agentkit_inbox.records WHERE id = $1", [ra.id])).toBe(0);
    // the row's owner is the database's word: B cannot write it, so cannot plant a record as A's
    expect(await sqlAs("rec_worker_b", "UPDATE agentkit_inbox.records SET owner = 'rec_worker_a' WHERE id = $1", [rb.id])).toBeInstanceOf(
      Error,
    );
    expect(
      await sqlAs(
        "rec_worker_b",
        "INSERT INTO agentkit_inbox.records (id, kind, binding, server, tool, arguments, status, started, round, answers, cancel_requested, worker, created_at, last_updated_at, poll_interval_ms, version, owner) VALUES ($1, 'task', 'x', 's', 't', '{}', 'working', false, 0, '[]', false, 'w', now(), now(), 1, 0, 'rec_worker_a')",
        [newRecordId()],
      ),
    ).toBeInstanceOf(Error);
    expect(await page.getRecord(ra.id, ra.owner)).toEqual(stored(ra));
    expect((await page.openRecords(server)).map((r) => r.id).sort()).toEqual([ra.id, rb.id].sort());
    expect(await sqlAs("rec_reviewer", "UPDATE agentkit_inbox.records SET status = 'cancelled' WHERE id = $1", [ra.id])).toBe(0);
    expect(await a.getRecord(ra.id, ra.owner)).toEqual(stored(ra));
    const answered = await a.answerRecord(ra.id, 1, answer("A's client"));
    expect(answered.ok).toBe(true);
  });

  it("a worker's own final record cannot be changed even by its own login's SQL", async () => {
    const a = pgStore({ user: "rec_worker_a", role: "worker" });
    const r = record();
    await a.createRecord(r);
    expect((await a.updateRecord(r.id, 0, { status: "completed", result: { content: [] } })).ok).toBe(true);
    expect(await sqlAs("rec_worker_a", "UPDATE agentkit_inbox.records SET status = 'working', version = 0 WHERE id = $1", [r.id])).toBe(0);
    expect((await a.getRecord(r.id, r.owner))?.status).toBe("completed");
  });

  it("worker stores of one login hear each other's records through the host's shared relay, never another login's", async () => {
    const [a1, a2, b] = [
      pgStore({ user: "rec_worker_a", role: "worker" }),
      pgStore({ user: "rec_worker_a", role: "worker" }),
      pgStore({ user: "rec_worker_b", role: "worker" }),
    ];
    const heard = hearRecords(a1);
    await a1.openRecords("warm-up");
    const [theirs, ours] = [record(), record()];
    await b.createRecord(theirs);
    await a2.createRecord(ours);
    await expect.poll(() => heard.of(ours.id).length, { timeout: 10_000 }).toBe(1);
    expect(heard.of(theirs.id)).toEqual([]);
  });
});

describe("postgresInboxStore: records when the server is down", () => {
  it("createRecord rejects as unavailable (no hang) and nothing recorded before is lost; once the server is back it works again", async () => {
    const s = pgStore();
    const kept = record();
    await s.createRecord(kept);
    pg.pause();
    let err: unknown;
    const started = Date.now();
    try {
      err = await s.createRecord(record()).catch((e: unknown) => e);
    } finally {
      pg.start();
    }
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(err).toBeInstanceOf(InboxError);
    expect(err).toMatchObject({ code: "inbox_store", failure: "unavailable" });
    expect((err as Error).message).toMatch(/^the inbox database is unavailable: /);
    expect(await s.getRecord(kept.id, kept.owner)).toEqual(stored(kept));
    const after = record();
    await s.createRecord(after);
    expect(await pgStore().getRecord(after.id, after.owner)).toEqual(stored(after));
  }, 60_000);
});
