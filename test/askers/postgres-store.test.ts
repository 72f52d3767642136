/**
 * @module test/askers/postgres-store.test
 * The PostgreSQL inbox store against a real PostgreSQL server (started in a
 * temporary directory on 127.0.0.1 for this file): migration, the rows and
 * their wake-ups, decide-at-most-once, leases and abandonment (a worker
 * process killed with SIGKILL), a dropped listening connection, a database
 * outage, and many stores writing at once.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  inboxAsker,
  migrateInboxStore,
  postgresInboxStore,
  type InboxEvent,
  type PostgresInboxStore,
  type StoredQuestion,
} from "arc-agentkit/askers";
import { adminQuery, startPostgres, type TestPostgres, sqlOn } from "../helpers/postgres.js";
import { InboxError } from "arc-agentkit";

let pg: TestPostgres;
const open: PostgresInboxStore[] = [];

beforeAll(async () => {
  pg = await startPostgres();
  await migrateInboxStore({ connectionString: pg.connectionString });
  await admin("CREATE ROLE outsider LOGIN");
});

afterAll(async () => {
  await Promise.all(open.map((s) => s.stop()));
  pg?.stop();
});

/** Run one statement as the server's superuser. */
const admin = (sql: string, values?: readonly unknown[]): Promise<Array<Record<string, unknown>>> => adminQuery(pg, sql, values);

/** The server's URL as `user` (trust on loopback: no password). */
const urlAs = (user: string): string => pg.connectionString.replace("postgres://postgres@", `postgres://${user}@`);
const outsiderUrl = (): string => urlAs("outsider");

function store(o: { schema?: string; worker?: string; leaseMs?: number } = {}): PostgresInboxStore {
  const s = postgresInboxStore({ connectionString: pg.connectionString, ...o });
  open.push(s);
  return s;
}

function question(over: Partial<StoredQuestion> = {}): StoredQuestion {
  return {
    id: randomUUID(),
    callId: "call-1",
    tool: "write_file",
    arguments: { path: "/tmp/x", text: "hi" },
    question: "Allow write_file?",
    source: "approval_server",
    from: "engine",
    askedAt: new Date().toISOString(),
    deadlineAt: new Date(Date.now() + 60_000).toISOString(),
    status: "pending",
    ...over,
  };
}

/** Events a store's subscriber hears, and a way to wait for one. */
function hear(s: PostgresInboxStore): { events: InboxEvent[]; until: (pred: (e: InboxEvent[]) => boolean, ms?: number) => Promise<void> } {
  const events: InboxEvent[] = [];
  s.subscribe((e) => events.push(e));
  return { events, until: async (pred, ms = 10_000) => expect.poll(() => pred(events), { timeout: ms, interval: 20 }).toBe(true) };
}

describe("postgresInboxStore: schema and options", () => {
  it("migrating is idempotent, also from three processes' worth of pools at once", async () => {
    const versions = await Promise.all(
      [1, 2, 3].map(() => migrateInboxStore({ connectionString: pg.connectionString, schema: "inbox_twice" })),
    );
    expect(versions).toEqual([7, 7, 7]);
    expect(await migrateInboxStore({ connectionString: pg.connectionString, schema: "inbox_twice" })).toBe(7);
  });

  it("a store on a schema never migrated fails with not_migrated, naming the command", async () => {
    const s = store({ schema: "never_made" });
    const err = await s.pending().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InboxError);
    expect(err).toMatchObject({ code: "inbox_store", failure: "not_migrated" });
    expect((err as Error).message).toContain("agentkit inbox migrate");
  });

  it("bad options name what is accepted", () => {
    expect(() => postgresInboxStore({} as never)).toThrow(/exactly one of 'connectionString'/);
    expect(() => postgresInboxStore({ connectionString: "mysql://x" })).toThrow(/postgres:\/\//);
    expect(() => postgresInboxStore({ connectionString: pg.connectionString, schema: "Robert'); DROP TABLE x;--" })).toThrow(
      /lower-case SQL identifier/,
    );
    expect(() => postgresInboxStore({ connectionString: pg.connectionString, leaseMs: -1 })).toThrow(/leaseMs/);
  });
});

describe("postgresInboxStore: questions and decisions as rows, changes heard by every store", () => {
  it("a question put by one store is heard by another, read back equal, and listed as pending", async () => {
    const [worker, page] = [store(), store()];
    const heard = hear(page);
    await page.pending();
    const q = question({ toolFacts: { description: "Writes a file.", caps: ["egress"], sideEffecting: true } });
    await worker.put(q);
    await heard.until((e) => e.some((x) => x.type === "question" && x.question.id === q.id));
    const got = await page.get(q.id);
    expect(got).toEqual({ ...q, worker: worker.worker });
    expect((await page.pending()).map((p) => p.id)).toContain(q.id);
  });

  it("arguments past NOTIFY's 8000-byte payload limit still arrive whole", async () => {
    const [worker, page] = [store(), store()];
    const heard = hear(page);
    await page.pending();
    const q = question({ arguments: { text: "x".repeat(20_000) } });
    await worker.put(q);
    await heard.until((e) => e.some((x) => x.type === "question" && x.question.id === q.id));
    const ev = heard.events.find((x) => x.type === "question" && x.question.id === q.id) as Extract<InboxEvent, { type: "question" }>;
    expect(ev.question.arguments).toEqual(q.arguments);
  });

  it("settle is decided at most once: of 12 concurrent settlements from 3 stores one wins, the losers see the winner", async () => {
    const stores = [store(), store(), store()];
    const q = question();
    await stores[0]!.put(q);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        stores[i % 3]!.settle(q.id, { status: "answered", answer: { kind: i % 2 ? "approve" : "reject", actor: `person-${i}` } }),
      ),
    );
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    const actor = winners[0]!.question.answer!.actor;
    for (const r of results.filter((x) => !x.ok)) expect(r.question).toMatchObject({ status: "answered", answer: { actor } });
    expect(await stores[1]!.settle(q.id, { status: "timed_out", reason: "late" })).toMatchObject({
      ok: false,
      question: { status: "answered" },
    });
  });

  it("decisions: inserted, replaced in place by id, listed newest first, each heard as it last stands", async () => {
    const [a, page] = [store(), store()];
    const heard = hear(page);
    await page.pending();
    const base = {
      tool: "t",
      allowed: true,
      source: "asker" as const,
      asked: true,
      actor: "inbox",
      reason: "ok",
      at: new Date().toISOString(),
      from: "engine",
      confirmed: false,
    };
    const [d1, d2] = [
      { ...base, id: randomUUID() },
      { ...base, id: randomUUID(), tool: "second" },
    ];
    await a.recordDecision(d1);
    await a.recordDecision(d2);
    await a.recordDecision({ ...d1, confirmed: true, reason: "the gate's record" });
    const list = await page.decisions(2);
    expect(list.map((d) => d.id)).toEqual([d2.id, d1.id]);
    expect(list[1]).toEqual({ ...d1, confirmed: true, reason: "the gate's record" });
    // a row changed again before the page read it is told once, as it now stands
    const last = (id: string) =>
      heard.events.filter((x): x is Extract<InboxEvent, { type: "decision" }> => x.type === "decision" && x.decision.id === id).at(-1)
        ?.decision;
    await expect.poll(() => [last(d1.id)?.confirmed, last(d2.id)?.confirmed], { timeout: 10_000 }).toEqual([true, false]);
    expect(last(d1.id)).toEqual({ ...d1, confirmed: true, reason: "the gate's record" });
  });
});

describe("postgresInboxStore: a role with no rights on the tables learns nothing and decides nothing through LISTEN/NOTIFY (#25.2)", () => {
  /** A connection as `outsider`, a role with no rights on the inbox's schema (LISTEN and NOTIFY need none). */
  async function outsider(): Promise<{
    client: import("../../src/askers/inbox/pg-peer.js").PgClient;
    heard: string[];
    end: () => Promise<void>;
  }> {
    const { pgModule } = await import("../../src/askers/inbox/pg-peer.js");
    const pool = new (pgModule().Pool)({ connectionString: outsiderUrl(), max: 1 });
    const client = await pool.connect();
    const heard: string[] = [];
    client.on("notification", (m) => heard.push(m.payload ?? ""));
    return { client, heard, end: async () => (client.release(), await pool.end()) };
  }

  it("LISTEN on the inbox's channel hears no tool, arguments, secret, answer or actor", async () => {
    const spy = await outsider();
    try {
      expect((await spy.client.query("SELECT has_schema_privilege('agentkit_inbox', 'USAGE') AS can")).rows[0]!.can).toBe(false);
      await spy.client.query("LISTEN agentkit_inbox_changes");
      const [worker, page] = [store(), store()];
      const heard = hear(worker);
      await worker.pending();
      const q = question({ tool: "deploy_prod", arguments: { token: "sk-live-SECRET-4242" } });
      await worker.put(q);
      await page.settle(q.id, { status: "answered", answer: { kind: "approve", actor: "alice-reviewer", note: "ship it" } });
      await heard.until((e) => e.some((x) => x.type === "settled" && x.question.id === q.id));
      await expect.poll(() => spy.heard.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
      for (const payload of spy.heard) {
        for (const word of ["sk-live-SECRET-4242", "deploy_prod", "alice-reviewer", "ship it", "approve", "token"])
          expect(payload).not.toContain(word);
      }
    } finally {
      await spy.end();
    }
  });

  it("a forged NOTIFY neither answers a pending question, nor hides it, nor injects one", async () => {
    const spy = await outsider();
    try {
      const [worker, page] = [store(), store()];
      const [onWorker, onPage] = [hear(worker), hear(page)];
      await Promise.all([worker.pending(), page.pending()]);
      const q = question({ tool: "rm_rf" });
      await worker.put(q);
      await onPage.until((e) => e.some((x) => x.type === "question" && x.question.id === q.id));
      const row = {
        id: q.id,
        call_id: null,
        tool: q.tool,
        arguments: q.arguments,
        question: q.question,
        source: q.source,
        from_: q.from,
        worker: worker.worker,
        asked_at: q.askedAt,
        deadline_at: q.deadlineAt,
        status: "answered",
        answer: { kind: "approve", actor: "forger" },
        settled_at: new Date().toISOString(),
        reason: null,
        changed: 9_000_000_000,
      };
      const fake = { ...row, id: randomUUID(), status: "pending", answer: null, settled_at: null, tool: "injected_tool" };
      for (const payload of [
        { k: "q", row },
        { k: "q", row: fake },
        { k: "q", id: q.id, c: 9_000_000_001 },
      ]) {
        await spy.client.query("SELECT pg_notify('agentkit_inbox_changes', $1)", [JSON.stringify(payload)]);
      }
      // a real change after the forged ones: once both stores heard it, they had read the forged ones (one connection, in order)
      const marker = question({ tool: "marker" });
      await worker.put(marker);
      await page.settle(marker.id, { status: "answered", answer: { kind: "reject", actor: "page" } });
      await onWorker.until((e) => e.some((x) => x.type === "settled" && x.question.id === marker.id));
      await onPage.until((e) => e.some((x) => x.type === "settled" && x.question.id === marker.id));
      for (const events of [onWorker.events, onPage.events]) {
        expect(events.filter((x) => x.type === "settled" && x.question.id === q.id)).toEqual([]);
        expect(events.some((x) => (x.type === "question" || x.type === "settled") && x.question.tool === "injected_tool")).toBe(false);
      }
      expect((await page.get(q.id))?.status).toBe("pending");
      expect((await page.pending()).map((p) => p.id)).toContain(q.id);
      expect((await page.settle(q.id, { status: "answered", answer: { kind: "reject", actor: "page" } })).ok).toBe(true);
    } finally {
      await spy.end();
    }
  });
});

describe("postgresInboxStore: workers and the page hold different rights (#25.3)", () => {
  beforeAll(async () => {
    await admin("CREATE ROLE worker_a LOGIN IN ROLE agentkit_inbox_worker");
    await admin("CREATE ROLE worker_b LOGIN IN ROLE agentkit_inbox_worker");
    await admin("CREATE ROLE reviewer LOGIN IN ROLE agentkit_inbox_page");
  });

  function storeAs(user: string, role: "worker" | "page", o: { worker?: string; leaseMs?: number } = {}): PostgresInboxStore {
    const s = postgresInboxStore({ connectionString: urlAs(user), role, ...o });
    open.push(s);
    return s;
  }

  /** One statement as `user`, straight to the database (what anything holding that login can do): rows touched, or the error. */
  const sqlAs = (user: string, sql: string, values?: readonly unknown[]): Promise<number | Error> => sqlOn(urlAs(user), sql, values);

  it("a store opened as a worker refuses settle with an answer, naming the page's role; its login cannot answer with SQL either; the page's can", async () => {
    const [a, page] = [storeAs("worker_a", "worker"), storeAs("reviewer", "page")];
    const heard = hear(a);
    const q = question();
    await a.put(q);
    const refused = await a
      .settle(q.id, { status: "answered", answer: { kind: "approve", actor: "self-approved" } })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InboxError);
    expect(refused).toMatchObject({ code: "inbox_store", failure: "forbidden" });
    expect((refused as Error).message).toBe(
      "postgresInboxStore: a store opened with role 'worker' cannot answer a question: only the page's store (role 'page', a login in the inbox's page role) settles with an answer; a worker may only time out or withdraw its own",
    );
    const answer = JSON.stringify({ kind: "approve", actor: "forged" });
    expect(
      await sqlAs("worker_a", "UPDATE agentkit_inbox.questions SET status = 'answered', answer = $2 WHERE id = $1", [q.id, answer]),
    ).toBeInstanceOf(Error);
    expect(await sqlAs("worker_a", "UPDATE agentkit_inbox.questions SET status = 'answered' WHERE id = $1", [q.id])).toBeInstanceOf(Error);
    expect(
      await sqlAs(
        "worker_a",
        "INSERT INTO agentkit_inbox.questions (id, tool, arguments, question, from_, worker, asked_at, status, answer) VALUES ($1, 't', '{}', '?', 'x', 'w', now(), 'answered', $2)",
        [randomUUID(), answer],
      ),
    ).toBeInstanceOf(Error);
    expect((await page.get(q.id))?.status).toBe("pending");
    expect(await page.settle(q.id, { status: "answered", answer: { kind: "approve", actor: "reviewer" } })).toMatchObject({
      ok: true,
      question: { answer: { actor: "reviewer" } },
    });
    await heard.until((e) => e.some((x) => x.type === "settled" && x.question.id === q.id && x.question.answer?.actor === "reviewer"));
    // a worker still ends its own question when its deadline passes
    const mine = question();
    await a.put(mine);
    expect(await a.settle(mine.id, { status: "timed_out", reason: "deadline" })).toMatchObject({
      ok: true,
      question: { status: "timed_out" },
    });
  });

  it("a second worker login claiming A's name neither reads, ends nor abandons A's questions, and cannot end A's lease", async () => {
    const page = storeAs("reviewer", "page", { leaseMs: 3000 });
    const a = storeAs("worker_a", "worker", { worker: "worker-A", leaseMs: 3000 });
    const b = storeAs("worker_b", "worker", { worker: "worker-A", leaseMs: 3000 });
    const q = question({ arguments: { secret: "only-for-A" } });
    await a.put(q);
    const own = question();
    await b.put(own);
    expect(await b.get(q.id)).toBeUndefined();
    expect((await b.pending()).map((p) => p.id)).toEqual([own.id]);
    expect(await b.settle(q.id, { status: "withdrawn", reason: "hidden by B" })).toEqual({ ok: false, question: undefined });
    expect(await sqlAs("worker_b", "UPDATE agentkit_inbox.questions SET status = 'withdrawn' WHERE id = $1", [q.id])).toBe(0);
    expect(await sqlAs("worker_b", "DELETE FROM agentkit_inbox.workers WHERE worker = 'worker-A' AND owner = 'worker_a'")).toBe(0);
    expect(
      await sqlAs("worker_b", "UPDATE agentkit_inbox.workers SET lease_until = now() - interval '1 hour' WHERE owner <> current_user"),
    ).toBe(0);
    expect(await sqlAs("worker_b", "SELECT 1 FROM agentkit_inbox.questions WHERE id = $1", [q.id])).toBe(0);
    await b.stop(); // B's own lease ends: its question is abandoned, A's is not
    expect(await page.sweep()).toBeGreaterThanOrEqual(1);
    expect((await page.get(own.id))?.status).toBe("abandoned");
    expect((await page.get(q.id))?.status).toBe("pending");
    expect((await a.pending()).map((p) => p.id)).toEqual([q.id]);
  });

  it("the recorded actor names the page's login, written by the database (not by the page's request); a typed name stays a claim (#25.10)", async () => {
    await admin("CREATE ROLE reviewer_b LOGIN IN ROLE agentkit_inbox_page");
    const asker = inboxAsker({ store: storeAs("worker_a", "worker"), source: "engine" });
    const decide = async (login: string, questionId: string) => {
      const page = storeAs(login, "page");
      const decision = asker.ask(
        { question: "Allow?", toolCall: { id: questionId, name: "deploy", arguments: {} } },
        { questionId, signal: new AbortController().signal },
      );
      await expect.poll(() => page.get(questionId), { timeout: 10_000, interval: 20 }).toBeTruthy();
      // Two page processes whose sessions happen to look alike, both claiming "alice", one also naming another login.
      const answer = { kind: "approve" as const, actor: "inbox session 1 (aaaaaa)", claimed: "alice", login: "someone_else" };
      expect(await page.settle(questionId, { status: "answered", answer })).toMatchObject({ ok: true, question: { answer: { login } } });
      return decision;
    };
    expect(await decide("reviewer", "actor-q1")).toEqual({
      kind: "approve",
      actor: "reviewer: inbox session 1 (aaaaaa)",
      claimedActor: "alice",
    });
    expect(await decide("reviewer_b", "actor-q2")).toEqual({
      kind: "approve",
      actor: "reviewer_b: inbox session 1 (aaaaaa)",
      claimedActor: "alice",
    });
  });

  it("refuses an unknown option by name with the accepted ones (postgresInboxStore and migrateInboxStore)", async () => {
    expect(() => postgresInboxStore({ connectionString: pg.connectionString, role: "worker", wakeup: "own" } as never)).toThrow(
      expect.objectContaining({
        code: "invalid_option",
        where: "postgresInboxStore",
        option: "wakeup",
        message:
          "postgresInboxStore: unknown option 'wakeup'. Accepted options: connectionString, pool, schema, worker, leaseMs, ownsPool, role, wakeups",
      }),
    );
    await expect(migrateInboxStore({ connectionString: pg.connectionString, role: "page" } as never)).rejects.toMatchObject({
      where: "migrateInboxStore",
      option: "role",
      message: expect.stringContaining("unknown option 'role'"),
    });
    expect(() => postgresInboxStore({ connectionString: pg.connectionString, leaseMs: -1 })).toThrow(
      /postgresInboxStore: leaseMs must be a positive number of milliseconds/,
    );
  });

  it("role must be 'worker' or 'page'", () => {
    expect(() => postgresInboxStore({ connectionString: pg.connectionString, role: "admin" as never })).toThrow(
      'postgresInboxStore: \'role\' must be "worker" (asks, reads its own questions) or "page" (reads all, answers), got string "admin"',
    );
  });
});

describe("postgresInboxStore: a confirmed decision stays confirmed", () => {
  it("the page's row arriving after the gate's record does not replace it", async () => {
    const a = store();
    const id = randomUUID();
    const row = {
      id,
      tool: "t",
      allowed: true,
      source: "asker" as const,
      asked: true,
      actor: "inbox",
      reason: "approved by inbox",
      at: new Date().toISOString(),
      from: "engine",
    };
    await a.recordDecision({ ...row, confirmed: true, reason: "the gate's record" });
    await a.recordDecision({ ...row, confirmed: false });
    expect((await a.decisions(50)).find((d) => d.id === id)).toMatchObject({ confirmed: true, reason: "the gate's record" });
  });
});

describe("postgresInboxStore: many writers", () => {
  it("8 stores put 25 questions each at once; the page hears each once and settles all; each store hears its own 25 answers", async () => {
    await using page = postgresInboxStore({ connectionString: pg.connectionString });
    const heard = hear(page);
    await page.pending();
    const workers = Array.from({ length: 8 }, () => store());
    const mine = new Map(workers.map((w) => [w, hear(w)]));
    await Promise.all(workers.map((w) => w.pending()));
    const asked = workers.flatMap((w, i) =>
      Array.from({ length: 25 }, (_, j) => ({ w, q: question({ from: `worker-${i}`, tool: `t${j}` }) })),
    );
    await Promise.all(asked.map(({ w, q }) => w.put(q)));
    await heard.until((e) => e.filter((x) => x.type === "question").length >= 200);
    const ids = heard.events.filter((x) => x.type === "question").map((x) => (x as Extract<InboxEvent, { type: "question" }>).question.id);
    expect(new Set(ids).size).toBe(200);
    expect(ids).toHaveLength(200);
    const results = await Promise.all(
      asked.map(({ q }) => page.settle(q.id, { status: "answered", answer: { kind: "approve", actor: q.from } })),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    for (const w of workers) {
      const own = new Set(asked.filter((a) => a.w === w).map((a) => a.q.id));
      const h = mine.get(w)!;
      await h.until((e) => e.filter((x) => x.type === "settled" && own.has(x.question.id)).length === 25);
      const settled = h.events.filter((x): x is Extract<InboxEvent, { type: "settled" }> => x.type === "settled" && own.has(x.question.id));
      expect(settled.every((x) => x.question.answer?.actor === x.question.from && x.question.worker === w.worker)).toBe(true);
    }
  });
});

describe("postgresInboxStore: statements prepared once per connection", () => {
  it("on a pg.Pool each statement is parsed once per connection, and a column added by a later migration does not break the prepared ones", async () => {
    const { default: pgLib } = await import("pg");
    const pool = new pgLib.Pool({ connectionString: pg.connectionString, max: 2 }); // one listens, one runs the statements
    // An hour's lease: the page's sweeper (every leaseMs/2) and the lease heartbeat (every leaseMs/3) do not fire inside the test, so the
    // statements compared below are the rounds' own (on a loaded machine a 15 s lease's timers fired between rounds).
    const s = postgresInboxStore({ pool, ownsPool: true, schema: "inbox_prepared", leaseMs: 3_600_000 });
    open.push(s);
    await migrateInboxStore({ connectionString: pg.connectionString, schema: "inbox_prepared" });
    // The statement names the store sends (pg prepares a named statement once per connection): per round, the
    // ones the round's own calls send (attributed by async context, so work the store does on its own in the
    // background — its listener reacting to a round's notifications, on a loaded machine during the next round —
    // is not counted in a round), and every name sent at all.
    const used: string[][] = [];
    const sent: string[] = [];
    const inRound = new AsyncLocalStorage<string[]>();
    const query = pool.query.bind(pool) as (...a: unknown[]) => unknown;
    (pool as unknown as { query: unknown }).query = (config: unknown, ...rest: unknown[]) => {
      if (config !== null && typeof config === "object" && "name" in config) {
        sent.push(String(config.name));
        inRound.getStore()?.push(String(config.name));
      }
      return query(config, ...rest);
    };
    const round = async (): Promise<void> => {
      const names: string[] = [];
      used.push(names);
      await inRound.run(names, async () => {
        const q = question();
        await s.put(q);
        expect((await s.settle(q.id, { status: "answered", answer: { kind: "approve", actor: "ann" } })).ok).toBe(true);
        expect((await s.get(q.id))?.status).toBe("answered");
      });
    };
    // Prepared statements are per connection: read every idle connection of the pool (one of them may be
    // checked out to listen, so not every name is visible), as the set of statement names prepared on any.
    const prepared = async (): Promise<string[]> => {
      const clients = await Promise.all(Array.from({ length: pool.idleCount }, () => pool.connect()));
      try {
        const names = new Set<string>();
        for (const c of clients)
          for (const r of (await c.query("SELECT name FROM pg_prepared_statements WHERE name LIKE 'agentkit\\_%'")).rows)
            names.add(String(r.name));
        return [...names].sort();
      } finally {
        for (const c of clients) c.release();
      }
    };
    await round();
    await round();
    expect(new Set(used[0]).size).toBeGreaterThanOrEqual(3); // put, settle, get at least, each named
    // The same texts again: the second round sends no name the first did not (a name is its text's, not a call's).
    expect(used[1]!.filter((n) => !used[0]!.includes(n))).toEqual([]);
    const onServer = await prepared();
    expect(onServer.length).toBeGreaterThan(0);
    expect(onServer.filter((n) => !sent.includes(n))).toEqual([]); // every prepared statement is one the store named
    await admin("ALTER TABLE inbox_prepared.questions ADD COLUMN later_note text");
    await round();
    expect((await s.pending()).length).toBe(0);
  });
});

describe("postgresInboxStore: failures", () => {
  it("a worker process killed with SIGKILL: its 5 pending questions are abandoned once its lease lapses, and deciding one is refused", async () => {
    await using page = postgresInboxStore({ connectionString: pg.connectionString, leaseMs: 1000 });
    const heard = hear(page);
    await page.pending();
    const script = `
      const { postgresInboxStore } = await import("arc-agentkit/askers");
      const s = postgresInboxStore({ connectionString: process.env.PG_URL, leaseMs: 1000, worker: "doomed-worker" });
      for (let i = 0; i < 5; i++) await s.put({ id: crypto.randomUUID(), callId: null, tool: "t" + i, arguments: {}, question: "?", source: null, from: "doomed", askedAt: new Date().toISOString(), deadlineAt: null, status: "pending" });
      console.log("ASKED");
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, PG_URL: pg.connectionString },
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (b: Buffer) => b.toString().includes("ASKED") && resolve());
        child.once("exit", (code) => reject(new Error(`the worker exited early (${code})`)));
      });
      const doomed = (await page.pending()).filter((q) => q.worker === "doomed-worker");
      expect(doomed).toHaveLength(5);
      child.kill("SIGKILL");
      await heard.until(
        (e) =>
          e.filter((x) => x.type === "settled" && x.question.worker === "doomed-worker" && x.question.status === "abandoned").length === 5,
      );
      expect((await page.pending()).filter((q) => q.worker === "doomed-worker")).toEqual([]);
      const late = await page.settle(doomed[0]!.id, { status: "answered", answer: { kind: "approve", actor: "inbox" } });
      expect(late).toMatchObject({ ok: false, question: { status: "abandoned" } });
      expect(late.question!.reason).toContain("doomed-worker");
      // and each is in the decisions list (live, and for a page loaded later): denied, source error, "abandoned: ..."
      const ids = new Set(doomed.map((q) => q.id));
      await heard.until((e) => e.filter((x) => x.type === "decision" && ids.has(x.decision.id)).length === 5);
      const rows = (await page.decisions(1000)).filter((d) => ids.has(d.id));
      expect(rows).toHaveLength(5);
      for (const d of rows)
        expect(d).toMatchObject({
          allowed: false,
          source: "error",
          asked: true,
          actor: null,
          from: "doomed",
          confirmed: false,
          reason: expect.stringMatching(
            /^abandoned: the asking process \(doomed-worker\) stopped renewing its lease.*nothing was decided$/,
          ),
        });
      expect(await page.sweep()).toBe(0); // swept once: no second row
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("the heartbeat renews the lease on every tick, however long a renewal statement takes (not every other tick)", async () => {
    // The clock is vitest's (setInterval and Date only: the sockets and their timers stay real); each renewal
    // statement takes 5 ms of it, as a real one takes some time.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    const { default: pgLib } = await import("pg");
    const pool = new pgLib.Pool({ connectionString: pg.connectionString, max: 2 });
    const renewals: Array<Promise<unknown>> = [];
    const query = pool.query.bind(pool) as (...a: unknown[]) => Promise<unknown>;
    (pool as unknown as { query: unknown }).query = (config: unknown, ...rest: unknown[]) => {
      const text = typeof config === "string" ? config : (config as { text: string }).text;
      if (!/^INSERT INTO \w+\.workers /.test(text)) return query(config, ...rest);
      vi.advanceTimersByTime(5);
      const sent = query(config, ...rest);
      renewals.push(sent);
      return sent;
    };
    const s = postgresInboxStore({ pool, ownsPool: true, leaseMs: 300 });
    try {
      await s.put(question()); // the first renewal, and the heartbeat every 100 ms
      expect(renewals).toHaveLength(1);
      for (let tick = 1; tick <= 4; tick++) {
        await vi.advanceTimersByTimeAsync(100);
        await Promise.all(renewals);
        await new Promise((r) => setImmediate(r)); // the store's own continuation after its statement
      }
      expect(renewals).toHaveLength(5);
    } finally {
      vi.useRealTimers();
      await s.stop();
    }
  });

  it("a live worker's questions are not abandoned: its heartbeat renews the lease", async () => {
    const [worker, page] = [store({ leaseMs: 1000 }), store({ leaseMs: 1000 })];
    const q = question();
    await worker.put(q);
    await new Promise((r) => setTimeout(r, 2200));
    expect(await page.sweep()).toBe(0);
    expect((await page.get(q.id))?.status).toBe("pending");
  });

  it("a dropped listening connection: unavailable, then every change made meanwhile, then available — nothing lost or told twice", async () => {
    await admin("CREATE ROLE page_login LOGIN IN ROLE agentkit_inbox_page");
    const page = postgresInboxStore({ connectionString: urlAs("page_login"), role: "page" });
    open.push(page);
    const worker = store();
    const heard = hear(page);
    await page.pending();
    const q1 = question();
    const dropped = heard.until((e) => e.some((x) => x.type === "unavailable"));
    // end the page's backends from the server side, as a failover or an idle-killer would, and keep it out while the changes are made
    await admin("ALTER ROLE page_login NOLOGIN");
    try {
      await admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'page_login'");
      await dropped;
      await worker.put(q1);
      await worker.settle(q1.id, { status: "answered", answer: { kind: "approve", actor: "me" } });
    } finally {
      await admin("ALTER ROLE page_login LOGIN");
    }
    await heard.until((e) => e.some((x) => x.type === "available"));
    const after = heard.events.slice(heard.events.findIndex((x) => x.type === "unavailable"));
    const aboutQ1 = after.filter((x) => (x.type === "question" || x.type === "settled") && x.question.id === q1.id);
    expect(aboutQ1.length).toBeGreaterThanOrEqual(1);
    expect(aboutQ1.filter((x) => x.type === "settled")).toHaveLength(1);
    expect(after.findIndex((x) => x.type === "available")).toBeGreaterThan(after.findIndex((x) => x === aboutQ1.at(-1)));
  });

  it("the database stops: operations fail as unavailable (no hang), subscribers hear it, and all works again once it is back", async () => {
    const [page, worker] = [store(), store()];
    const heard = hear(page);
    await page.pending();
    pg.pause();
    try {
      await heard.until((e) => e.some((x) => x.type === "unavailable"));
      const err = await worker.put(question()).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "inbox_store", failure: "unavailable" });
    } finally {
      pg.start();
    }
    await heard.until((e) => e.some((x) => x.type === "available"), 15_000);
    const q = question();
    await worker.put(q);
    await heard.until((e) => e.some((x) => x.type === "question" && x.question.id === q.id));
  });
});
