/**
 * @module test/askers/postgres-fence.test
 * What a worker's database login may write in the shared inbox, against a
 * real PostgreSQL server with the real roles `migrateInboxStore` makes:
 * - a worker cannot create, claim or pre-empt the decision record of a
 *   question it does not own, nor a "person approved" record for a question
 *   nobody answered (#10); a record the database refuses is reported, not
 *   dropped;
 * - change numbers come from the database: a worker cannot write one, so it
 *   cannot poison the page's catch-up point (#11);
 * - a version-4 database upgrades, its roles fenced the same way;
 * - an Approve clicked while the database is down is told so (503, naming the
 *   outage), and a question nested past the inbox's limit is refused by name.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setLogger, type Logger } from "arc-agentkit";
import {
  ApprovalInbox,
  inboxAsker,
  migrateInboxStore,
  postgresInboxStore,
  type InboxEvent,
  type PostgresInboxStore,
  type StoredQuestion,
} from "arc-agentkit/askers";
import { ApprovalServer, MCPClient, StreamableHttpServer } from "arc-agentkit/mcp";
import { adminQuery, startPostgres, type TestPostgres } from "../helpers/postgres.js";
import { logIn, sessionHeaders } from "../agentkit-cli/inbox-page.js";
import { migrateV4 } from "../fixtures/askers/inbox-schema-v4.js";

let pg: TestPostgres;
const open: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  pg = await startPostgres();
  await migrateInboxStore({ connectionString: pg.connectionString, roles: true });
  await admin("CREATE ROLE worker_a LOGIN IN ROLE agentkit_inbox_worker");
  await admin("CREATE ROLE worker_b LOGIN IN ROLE agentkit_inbox_worker");
  await admin("CREATE ROLE reviewer LOGIN IN ROLE agentkit_inbox_page");
});

afterAll(async () => {
  for (const s of open.splice(0).reverse()) await s.stop();
  pg?.stop();
});

const admin = (sql: string, values?: readonly unknown[]): Promise<Array<Record<string, unknown>>> => adminQuery(pg, sql, values);
const urlAs = (user: string): string => pg.connectionString.replace("postgres://postgres@", `postgres://${user}@`);

function storeAs(user: string, role: "worker" | "page", o: { schema?: string } = {}): PostgresInboxStore {
  const s = postgresInboxStore({ connectionString: urlAs(user), role, wakeups: "own", ...o });
  open.push(s);
  return s;
}

/** One statement as `user`, straight to the database (what anything holding that login can do): the row count, or the error. */
async function sqlAs(user: string, sql: string, values?: readonly unknown[]): Promise<number | Error> {
  const { default: pgLib } = await import("pg");
  const client = new pgLib.Client({ connectionString: urlAs(user) });
  await client.connect();
  try {
    return (await client.query(sql, values as unknown[])).rowCount ?? 0;
  } catch (err) {
    return err as Error;
  } finally {
    await client.end();
  }
}

function question(over: Partial<StoredQuestion> = {}): StoredQuestion {
  return {
    id: randomUUID(),
    callId: "call-1",
    tool: "deploy",
    arguments: { env: "prod" },
    question: "Allow deploy?",
    source: "approval_server",
    from: "engine",
    askedAt: new Date().toISOString(),
    deadlineAt: null,
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

/** Every line logged while `fn` runs. */
async function logged<T>(fn: (lines: string[]) => Promise<T>): Promise<T> {
  const lines: string[] = [];
  const capture: Logger = {
    debug: (m) => lines.push(`debug ${m}`),
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: (m) => lines.push(`error ${m}`),
  };
  const previous = setLogger(capture);
  try {
    return await fn(lines);
  } finally {
    setLogger(previous);
  }
}

/** A worker in this process as login `user`: an ApprovalServer asking an inbox asker on its own store (also its gate.check target), and an MCP client calling it. */
async function workerAs(user: string, source: string) {
  const store = storeAs(user, "worker");
  const asker = inboxAsker({ store, source });
  const server = await ApprovalServer.start({ asker, ctx: asker, timeoutMs: 60_000 });
  const client = await MCPClient.start(new StreamableHttpServer({ url: server.url, headers: { ...server.authHeaders } }));
  open.push({ stop: async () => (await client.stop(), await server.stop()) });
  return {
    store,
    server,
    prompt: async (input: Record<string, unknown>): Promise<{ behavior: string; message?: string }> => {
      const r = await client.callTool("approve", { tool_name: "Deploy", input });
      return JSON.parse((r.content[0] as { text: string }).text) as { behavior: string; message?: string };
    },
  };
}

const DECISION_INSERT =
  "INSERT INTO agentkit_inbox.decisions (id, tool, allowed, source, asked, actor, reason, at, from_, confirmed) VALUES ($1, 'Deploy', $2, $3, $4, $5, 'approved by inbox_page: inbox session 1', now(), 'engine', true)";

describe("a worker's login writes only its own decision records (#10)", () => {
  it("worker B, hearing A's question id, cannot write its decision first: the person's reject is what the page's list shows, owned by A", async () => {
    const a = await workerAs("worker_a", "engine-a");
    const page = storeAs("reviewer", "page");
    const onPage = hear(page);
    await page.pending(); // subscribe, then read, as the page does: the store is listening before the question exists
    const waiting = a.prompt({ env: "prod" });
    await onPage.until((e) => e.some((x) => x.type === "question" && x.question.from === "engine-a"));
    const asked = onPage.events.find(
      (x): x is Extract<InboxEvent, { type: "question" }> => x.type === "question" && x.question.from === "engine-a",
    )!.question;
    // B pre-empts: the record "allowed by the page", confirmed, before anyone answered
    const forged = await sqlAs("worker_b", DECISION_INSERT, [asked.id, true, "asker", true, "inbox_page: inbox session 1"]);
    expect(forged).toBeInstanceOf(Error);
    expect((forged as Error).message).toMatch(/row-level security/);
    // nor under any other source
    for (const [allowed, source, isAsked] of [
      [true, "auto_allow", false],
      [false, "error", true],
      [false, "timeout", true],
    ] as const) {
      expect(await sqlAs("worker_b", DECISION_INSERT, [asked.id, allowed, source, isAsked, null])).toBeInstanceOf(Error);
    }
    expect(
      (
        await page.settle(asked.id, {
          status: "answered",
          answer: { kind: "reject", actor: "inbox session 1 (aaaaaa)", note: "not today" },
        })
      ).ok,
    ).toBe(true);
    expect(await waiting).toMatchObject({ behavior: "deny" });
    await expect.poll(async () => (await page.decisions(50)).find((d) => d.id === asked.id)?.confirmed, { timeout: 10_000 }).toBe(true);
    const row = (await page.decisions(50)).find((d) => d.id === asked.id)!;
    expect(row).toMatchObject({
      allowed: false,
      source: "asker",
      asked: true,
      actor: "reviewer: inbox session 1 (aaaaaa)",
      reason: "not today",
      from: "engine-a",
    });
    expect(await admin("SELECT owner FROM agentkit_inbox.decisions WHERE id = $1", [asked.id])).toEqual([{ owner: "worker_a" }]);
  });

  it("a worker cannot record a person's approval nobody gave: not for an unknown id, not for its own pending or rejected question; its own unasked and error records still go in", async () => {
    const a = storeAs("worker_a", "worker");
    const page = storeAs("reviewer", "page");
    const approvedBy = "inbox_page: inbox session 1";
    // nobody was asked about this id at all
    expect(await sqlAs("worker_a", DECISION_INSERT, [randomUUID(), true, "asker", true, approvedBy])).toBeInstanceOf(Error);
    // its own question, still pending
    const pending = question();
    await a.put(pending);
    expect(await sqlAs("worker_a", DECISION_INSERT, [pending.id, true, "asker", true, approvedBy])).toBeInstanceOf(Error);
    // its own question, rejected by the person: "allowed" and another actor are refused; the person's own words go in
    const rejected = question();
    await a.put(rejected);
    await page.settle(rejected.id, { status: "answered", answer: { kind: "reject", actor: "inbox session 2 (bbbbbb)" } });
    expect(
      await sqlAs("worker_a", DECISION_INSERT, [rejected.id, true, "asker", true, "reviewer: inbox session 2 (bbbbbb)"]),
    ).toBeInstanceOf(Error);
    expect(await sqlAs("worker_a", DECISION_INSERT, [rejected.id, false, "asker", true, "someone else"])).toBeInstanceOf(Error);
    expect(await sqlAs("worker_a", DECISION_INSERT, [rejected.id, false, "asker", true, "reviewer: inbox session 2 (bbbbbb)"])).toBe(1);
    // a pre-approved call nobody was asked about, and an error deny, are the worker's own records
    expect(await sqlAs("worker_a", DECISION_INSERT, [randomUUID(), true, "auto_allow", false, null])).toBe(1);
    expect(await sqlAs("worker_a", DECISION_INSERT, [randomUUID(), false, "error", true, null])).toBe(1);
    // but "pre-approved" is not a way to allow its own asked question
    expect(await sqlAs("worker_a", DECISION_INSERT, [pending.id, true, "auto_allow", false, null])).toBeInstanceOf(Error);
    // and a worker cannot take over another login's row by updating it
    expect(await sqlAs("worker_b", "UPDATE agentkit_inbox.decisions SET allowed = true WHERE id = $1", [rejected.id])).toBe(0);
  });

  it("a decision record the database refuses is reported once, naming the question and the reason; the asker's answer is still the person's", async () => {
    const store = storeAs("worker_a", "worker");
    const asker = inboxAsker({ store, source: "engine-refused" });
    const page = storeAs("reviewer", "page");
    const questionId = randomUUID();
    await logged(async (lines) => {
      const decision = asker.ask(
        { question: "Allow deploy?", toolCall: { id: "c1", name: "deploy", arguments: {} } },
        { questionId, signal: new AbortController().signal },
      );
      await expect.poll(() => page.get(questionId), { timeout: 10_000, interval: 20 }).toBeTruthy();
      // a row in the way, owned by another login (as one written before this fence existed could be)
      await admin(
        "INSERT INTO agentkit_inbox.decisions (id, tool, allowed, source, asked, actor, reason, at, from_, confirmed, owner) VALUES ($1, 'deploy', true, 'asker', true, 'x', 'old', now(), 'old', false, 'worker_b')",
        [questionId],
      );
      await page.settle(questionId, { status: "answered", answer: { kind: "reject", actor: "inbox session 3 (cccccc)" } });
      expect(await decision).toMatchObject({ kind: "reject", actor: "reviewer: inbox session 3 (cccccc)" });
      asker.emit("gate.check", {
        tool: "deploy",
        id: "c1",
        questionId,
        via: "approval_server",
        allowed: false,
        source: "asker",
        asked: true,
        kind: "reject",
        actor: "reviewer: inbox session 3 (cccccc)",
        reason: "rejected",
        at: new Date().toISOString(),
      });
      // One write per decision (the gate's record), so one warning.
      await expect
        .poll(() => lines.filter((l) => l.startsWith("warn ") && l.includes(questionId)).length, { timeout: 10_000, interval: 20 })
        .toBe(1);
      const warned = lines.filter((l) => l.startsWith("warn ") && l.includes(questionId));
      expect(warned[0]).toMatch(
        /^warn inbox asker: the decisions list is missing the record of question '[0-9a-f-]{36}' about 'deploy' \(the gate's record, .*\): the inbox database refused this login/,
      );
    });
  });
});

describe("change numbers come from the database (#11)", () => {
  it("a worker cannot write a change number; a statement naming one gets the database's; the page catches up after its connection drops", async () => {
    await admin("CREATE ROLE page_login LOGIN IN ROLE agentkit_inbox_page");
    const page = storeAs("page_login", "page");
    const a = storeAs("worker_a", "worker");
    const heard = hear(page);
    await page.pending();
    const mine = question();
    await a.put(mine);
    await heard.until((e) => e.some((x) => x.type === "question" && x.question.id === mine.id));
    // its own question and decision rows: neither takes a change number from it
    await a.settle(mine.id, { status: "withdrawn", reason: "gave up" });
    await a.recordDecision({
      id: mine.id,
      tool: "deploy",
      allowed: false,
      source: "error",
      asked: true,
      actor: null,
      reason: "withdrawn",
      at: new Date().toISOString(),
      from: "engine",
      confirmed: true,
    });
    // the worker tries to write a huge change number on its own row, then wakes the page for it (anyone may NOTIFY)
    const poison = 9_000_000_000_000;
    const poisoned = await sqlAs("worker_a", "UPDATE agentkit_inbox.decisions SET changed = $2 WHERE id = $1", [mine.id, poison]);
    await sqlAs("worker_a", "SELECT pg_notify('agentkit_inbox_changes', $1)", [JSON.stringify({ k: "d", id: mine.id, c: poison })]);
    // a real change after the wake-up: once the page heard it, it had read the woken row (one connection, in order)
    const marker = question({ tool: "marker" });
    await a.put(marker);
    await heard.until((e) => e.some((x) => x.type === "question" && x.question.id === marker.id));
    // the page loses its connection; a question asked in the gap arrives once it is back
    const gap = question({ tool: "asked_in_the_gap" });
    const dropped = heard.until((e) => e.some((x) => x.type === "unavailable"));
    await admin("ALTER ROLE page_login NOLOGIN");
    try {
      await admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'page_login'");
      await dropped;
      await a.put(gap);
    } finally {
      await admin("ALTER ROLE page_login LOGIN");
    }
    await heard.until((e) => e.some((x) => x.type === "available"), 15_000);
    const after = heard.events.slice(heard.events.findIndex((x) => x.type === "unavailable"));
    expect(after.some((x) => x.type === "question" && x.question.id === gap.id)).toBe(true);
    // the worker's writes of a change number were refused by the database
    expect(poisoned).toBeInstanceOf(Error);
    expect(
      await sqlAs("worker_a", "UPDATE agentkit_inbox.questions SET changed = $2, status = 'withdrawn' WHERE id = $1", [
        randomUUID(),
        poison,
      ]),
    ).toBeInstanceOf(Error);
    expect(
      await sqlAs(
        "worker_a",
        "INSERT INTO agentkit_inbox.questions (id, tool, arguments, question, from_, worker, asked_at, status, changed) VALUES ($1, 't', '{}', '?', 'x', 'w', now(), 'pending', $2)",
        [randomUUID(), poison],
      ),
    ).toBeInstanceOf(Error);
    // even the tables' owner naming a number gets the database's
    await admin("UPDATE agentkit_inbox.decisions SET changed = $2 WHERE id = $1", [mine.id, poison]);
    const [{ changed }] = (await admin("SELECT changed FROM agentkit_inbox.decisions WHERE id = $1", [mine.id])) as [{ changed: string }];
    expect(Number(changed)).toBeLessThan(poison);
  });
});

describe("upgrading a version-4 database", () => {
  it("a schema made by version 4, with rows in it, upgrades: the same roles are fenced and change numbers are the database's", async () => {
    const { pgModule } = await import("../../src/askers/inbox/pg-peer.js");
    const pool = new (pgModule().Pool)({ connectionString: pg.connectionString, max: 1 });
    try {
      await migrateV4(pool, "inbox_old");
    } finally {
      await pool.end();
    }
    await admin("CREATE ROLE old_worker LOGIN IN ROLE inbox_old_worker");
    await admin("CREATE ROLE old_other LOGIN IN ROLE inbox_old_worker");
    // a worker of version 4 asks, and (as version 4 let it) writes a huge change number on its own row
    const q = question();
    const ask =
      "INSERT INTO inbox_old.questions (id, tool, arguments, question, from_, worker, asked_at, status) VALUES ($1, 't', '{}', '?', 'old', 'w', now(), 'pending')";
    expect(await sqlAs("old_worker", ask, [q.id])).toBe(1);
    const poison = 9_000_000_000_000;
    expect(
      await sqlAs("old_worker", "UPDATE inbox_old.questions SET changed = $2, status = 'withdrawn' WHERE id = $1", [q.id, poison]),
    ).toBe(1);
    // this version's store refuses the old schema by name (it leaves change numbers to the database)
    const store = postgresInboxStore({ connectionString: urlAs("old_worker"), role: "worker", wakeups: "own", schema: "inbox_old" });
    open.push(store);
    expect(await store.get(q.id).catch((e: unknown) => e)).toMatchObject({
      code: "inbox_store",
      failure: "not_migrated",
      message:
        "the inbox tables in schema 'inbox_old' are at version 4; this agentkit needs version 7: run `agentkit inbox migrate <url>` (or migrateInboxStore()) once",
    });
    expect(await migrateInboxStore({ connectionString: pg.connectionString, schema: "inbox_old" })).toBe(7);
    expect(await migrateInboxStore({ connectionString: pg.connectionString, schema: "inbox_old" })).toBe(7);
    expect(await store.get(q.id)).toMatchObject({ status: "withdrawn" });
    const later = question();
    await store.put(later);
    expect(
      await sqlAs("old_worker", "UPDATE inbox_old.questions SET changed = 42, status = 'withdrawn' WHERE id = $1", [later.id]),
    ).toBeInstanceOf(Error);
    expect(
      await sqlAs(
        "old_other",
        "INSERT INTO inbox_old.decisions (id, tool, allowed, source, asked, actor, reason, at, from_, confirmed) VALUES ($1, 't', true, 'asker', true, 'x', 'r', now(), 'f', true)",
        [later.id],
      ),
    ).toBeInstanceOf(Error);
    expect((await store.pending()).map((p) => p.id)).toEqual([later.id]);
    // the upgrade renumbered the row whose number the database never gave
    const [{ changed, last }] = (await admin(
      "SELECT changed, (SELECT last_value FROM inbox_old.changes) AS last FROM inbox_old.questions WHERE id = $1",
      [q.id],
    )) as [{ changed: string; last: string }];
    expect(Number(changed)).toBeLessThanOrEqual(Number(last));
  });
});

describe("the page and the asker say what went wrong", () => {
  it("an Approve clicked while the database is down is answered 503, naming the outage; nothing is decided", async () => {
    const store = postgresInboxStore({ connectionString: pg.connectionString });
    open.push(store);
    const inbox = await ApprovalInbox.start({ store });
    open.push(inbox);
    const session = await logIn(inbox.loginUrl);
    const q = question();
    await store.put(q);
    pg.pause();
    let res: Response;
    try {
      res = await fetch(`${inbox.url}answer`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...sessionHeaders(session), Origin: new URL(inbox.url).origin },
        body: JSON.stringify({ id: q.id, kind: "approve" }),
      });
    } finally {
      pg.start();
    }
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(((await res.json()) as { error: string }).error).toMatch(
      /^The inbox database is unavailable \(.+\): your answer was not recorded and nothing was decided\. A worker that lost the database denies its call; try again once the database is back\.$/,
    );
    await expect.poll(async () => (await store.get(q.id).catch(() => undefined))?.status, { timeout: 15_000 }).toBe("pending");
  });

  it("a question nested deeper than the inbox's limit is refused by name, not with a stack overflow", async () => {
    const asker = inboxAsker({ store: storeAs("worker_a", "worker"), source: "deep" });
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    const refused = await asker
      .ask({ question: "Allow?", toolCall: { id: "d1", name: "deep_tool", arguments: deep } })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "invalid_option", where: "InboxAsker.ask", option: "request" });
    expect((refused as Error).message).toBe(
      "InboxAsker.ask: the question about 'deep_tool' is nested deeper than 512 levels (the inbox's limit), so it cannot be shown or stored; it was not asked, and its call is denied. Send flatter arguments",
    );
  });
});
