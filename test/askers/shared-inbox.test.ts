/**
 * @module test/askers/shared-inbox.test
 * Many workers, one inbox, over a real PostgreSQL server: 8 worker processes,
 * each with its own `ApprovalServer` asking an `inboxAsker` on the shared
 * store and called 50 times at once by a real MCP client (as the Claude CLI
 * calls it); one page (`ApprovalInbox` on the same store, in this process);
 * one scripted reviewer using the page's HTTP API (login code, cookie,
 * same-origin POSTs). Then a worker waiting while PostgreSQL stops.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalInbox, inboxAsker, migrateInboxStore, postgresInboxStore } from "arc-agentkit/askers";
import { ApprovalServer } from "arc-agentkit/mcp";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";

const WORKERS = 8;
const PER_WORKER = 50;

let pg: TestPostgres;
const dir = mkdtempSync(join(tmpdir(), "akt-shared-inbox-"));
beforeAll(async () => {
  pg = await startPostgres();
  await migrateInboxStore({ connectionString: pg.connectionString });
});
afterAll(() => {
  pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** One worker process: an ApprovalServer on the shared store, prompted PER_WORKER times at once; prints its answers as JSON. */
const WORKER = `
  const { inboxAsker, postgresInboxStore } = await import("arc-agentkit/askers");
  const { ApprovalServer, MCPClient, StreamableHttpServer } = await import("arc-agentkit/mcp");
  const [i, n, audit] = [Number(process.env.W), Number(process.env.N), process.env.AUDIT];
  const store = postgresInboxStore({ connectionString: process.env.PG_URL });
  const asker = inboxAsker({ store, source: "worker-" + i });
  const server = await ApprovalServer.open({ asker, ctx: asker, auditPath: audit, timeoutMs: 120000 });
  const client = await MCPClient.open(new StreamableHttpServer({ url: server.url, headers: { ...server.authHeaders } }));
  const answers = await Promise.all(Array.from({ length: n }, async (_, j) => {
    const r = await client.callTool("approve", { tool_name: "Bash", input: { worker: i, n: j }, tool_use_id: "w" + i + "-" + j });
    return JSON.parse(r.content[0].text);
  }));
  await client.close(); await server.stop(); await store.close();
  console.log("ANSWERS " + JSON.stringify(answers));`;

function worker(i: number): Promise<unknown[]> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", WORKER], { env: { ...process.env, PG_URL: pg.connectionString, W: String(i), N: String(PER_WORKER), AUDIT: join(dir, `audit-${i}.jsonl`) }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr.on("data", (b: Buffer) => (err += b.toString()));
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => {
      const line = out.split("\n").find((l) => l.startsWith("ANSWERS "));
      if (code === 0 && line) resolve(JSON.parse(line.slice(8)) as unknown[]);
      else reject(new Error(`worker ${i} exited ${code}: ${err.slice(-2000)}`));
    });
  });
}

/** The reviewer: logs in with the one-time code, follows the live stream, and answers every question by the worker and number in its arguments. */
async function reviewer(inbox: ApprovalInbox, total: number): Promise<{ answered: number; stop: () => void }> {
  const login = await fetch(inbox.loginUrl, { redirect: "manual" });
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
  const origin = new URL(inbox.url).origin;
  const abort = new AbortController();
  const events = await fetch(`${inbox.url}events`, { headers: { Cookie: cookie, Accept: "text/event-stream" }, signal: abort.signal });
  expect(events.status).toBe(200);
  const state = { answered: 0, stop: () => abort.abort() };
  const answer = async (id: string): Promise<void> => {
    const q = (await (inbox.store as ReturnType<typeof postgresInboxStore>).get(id))!;
    const { worker: w, n } = q.arguments as { worker: number; n: number };
    const body = n % 3 === 0 ? { id, kind: "modify", actor: "reviewer", arguments: JSON.stringify({ worker: w, n, checked: true }) } : n % 3 === 1 ? { id, kind: "approve", actor: "reviewer" } : { id, kind: "reject", actor: "reviewer", note: `no ${w}/${n}` };
    const r = await fetch(`${inbox.url}answer`, { method: "POST", headers: { "Content-Type": "application/json", Cookie: cookie, Origin: origin }, body: JSON.stringify(body) });
    expect(r.status, await r.clone().text()).toBe(200);
    state.answered++;
  };
  void (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    const pendingAnswers: Promise<void>[] = [];
    try {
      for await (const chunk of events.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let cut;
        while ((cut = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          if (!block.startsWith("event: question")) continue;
          const data = JSON.parse(block.split("\n").find((l) => l.startsWith("data: "))!.slice(6)) as { id: string };
          pendingAnswers.push(answer(data.id));
          if (pendingAnswers.length === total) await Promise.all(pendingAnswers);
        }
      }
    } catch {
      // the stream is aborted at the end of the test
    }
  })();
  return state;
}

describe("a shared inbox on PostgreSQL", () => {
  it(`${WORKERS} worker processes × ${PER_WORKER} prompts, one page, one reviewer: each worker gets exactly its own answers, each decision is in the database once, the audits agree`, async () => {
    const store = postgresInboxStore({ connectionString: pg.connectionString });
    const inbox = await ApprovalInbox.start({ store });
    const review = await reviewer(inbox, WORKERS * PER_WORKER);
    try {
      const all = await Promise.all(Array.from({ length: WORKERS }, (_, i) => worker(i)));
      all.forEach((answers, i) => {
        answers.forEach((a, n) => {
          if (n % 3 === 0) expect(a, `worker ${i} #${n}`).toEqual({ behavior: "allow", updatedInput: { worker: i, n, checked: true } });
          else if (n % 3 === 1) expect(a, `worker ${i} #${n}`).toEqual({ behavior: "allow", updatedInput: { worker: i, n } });
          else expect(a, `worker ${i} #${n}`).toMatchObject({ behavior: "deny", message: expect.stringContaining(`no ${i}/${n}`) });
        });
      });
      expect(review.answered).toBe(WORKERS * PER_WORKER);
      const decisions = await store.decisions(10_000);
      const mine = decisions.filter((d) => d.from.startsWith("worker-"));
      expect(mine).toHaveLength(WORKERS * PER_WORKER);
      expect(new Set(mine.map((d) => d.id)).size).toBe(WORKERS * PER_WORKER);
      expect(mine.every((d) => d.confirmed && d.source === "asker" && d.actor === "reviewer")).toBe(true);
      for (let i = 0; i < WORKERS; i++) {
        const audit = readFileSync(join(dir, `audit-${i}.jsonl`), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { allowed: boolean; source: string });
        expect(audit).toHaveLength(PER_WORKER);
        const rows = mine.filter((d) => d.from === `worker-${i}`);
        expect(audit.filter((a) => a.allowed).length).toBe(rows.filter((d) => d.allowed).length);
        expect(audit.every((a) => a.source === "asker")).toBe(true);
      }
    } finally {
      review.stop();
      await inbox.stop();
      await store.close();
    }
  }, 120_000);

  it("the page process restarts mid-run: the waiting question and the decision history come back, and the new page's answer reaches the worker", async () => {
    const workerStore = postgresInboxStore({ connectionString: pg.connectionString });
    const asker = inboxAsker({ store: workerStore, source: "restart" });
    let pageStore = postgresInboxStore({ connectionString: pg.connectionString });
    let inbox = await ApprovalInbox.start({ store: pageStore });
    try {
      const first = asker.ask({ question: "Allow Bash?", toolCall: { id: "t1", name: "Bash", arguments: { command: "ls" } }, source: "approval_server" });
      await expect.poll(async () => (await pageStore.pending()).filter((q) => q.from === "restart").length).toBe(1);
      const [q1] = (await pageStore.pending()).filter((q) => q.from === "restart");
      expect((await pageStore.settle(q1!.id, { status: "answered", answer: { kind: "approve", actor: "before" } })).ok).toBe(true);
      expect(await first).toMatchObject({ kind: "approve", actor: "before" });
      const second = asker.ask({ question: "Allow Bash?", toolCall: { id: "t2", name: "Bash", arguments: { command: "pwd" } }, source: "approval_server" });
      await expect.poll(async () => (await pageStore.pending()).filter((q) => q.from === "restart").length).toBe(1);
      // the page process goes away (its store too) while the worker waits
      await inbox.stop();
      await pageStore.close();
      pageStore = postgresInboxStore({ connectionString: pg.connectionString });
      inbox = await ApprovalInbox.start({ store: pageStore });
      const pending = (await pageStore.pending()).filter((q) => q.from === "restart");
      expect(pending.map((q) => q.arguments)).toEqual([{ command: "pwd" }]);
      expect((await pageStore.decisions(50)).some((d) => d.from === "restart" && d.actor === "before")).toBe(true);
      expect((await pageStore.settle(pending[0]!.id, { status: "answered", answer: { kind: "reject", actor: "after", note: "not now" } })).ok).toBe(true);
      expect(await second).toMatchObject({ kind: "reject", actor: "after", note: "not now" });
    } finally {
      await inbox.stop();
      await pageStore.close();
      await workerStore.close();
    }
  }, 60_000);

  it("PostgreSQL stops while a worker waits: the call is denied with source error well before its deadline; once it is back the next prompt is asked and answered", async () => {
    const store = postgresInboxStore({ connectionString: pg.connectionString });
    const asker = inboxAsker({ store, source: "outage" });
    const checks: Array<Record<string, unknown>> = [];
    const server = await ApprovalServer.open({ asker, ctx: { emit: (e: string, d: Record<string, unknown>) => e === "gate.check" && checks.push(d) }, timeoutMs: 60_000 });
    const { MCPClient, StreamableHttpServer } = await import("arc-agentkit/mcp");
    const client = await MCPClient.open(new StreamableHttpServer({ url: server.url, headers: { ...server.authHeaders } }));
    try {
      const started = Date.now();
      const waiting = client.callTool("approve", { tool_name: "Bash", input: { command: "ls" } });
      await expect.poll(async () => (await store.pending()).length).toBe(1);
      pg.pause();
      let answer: { behavior: string; message?: string };
      try {
        answer = JSON.parse(((await waiting).content[0] as { text: string }).text) as typeof answer;
      } finally {
        pg.start();
      }
      expect(answer.behavior).toBe("deny");
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(checks.at(-1)).toMatchObject({ allowed: false, source: "error" });
      const page = postgresInboxStore({ connectionString: pg.connectionString });
      try {
        page.subscribe((e) => {
          if (e.type === "question") void page.settle(e.question.id, { status: "answered", answer: { kind: "approve", actor: "back" } });
        });
        await page.pending();
        const again = JSON.parse(((await client.callTool("approve", { tool_name: "Bash", input: { command: "pwd" } })).content[0] as { text: string }).text) as { behavior: string };
        expect(again.behavior).toBe("allow");
      } finally {
        await page.close();
      }
    } finally {
      await client.close();
      await server.stop();
      await store.close();
    }
  }, 90_000);
});
