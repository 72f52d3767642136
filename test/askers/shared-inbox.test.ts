/**
 * @module test/askers/shared-inbox.test
 * Many workers, one inbox, over a real PostgreSQL server: 8 worker processes,
 * each with its own `ApprovalServer` asking an `inboxAsker` on the shared
 * store and called 50 times at once by a real MCP client (as the Claude CLI
 * calls it); one page (`ApprovalInbox` on the same store, in this process);
 * one scripted reviewer using the page's HTTP API (login code, cookie and key,
 * same-origin POSTs) for all but three, which a person answers by clicks in
 * Chromium (Approve, Reject with a note, Modify). Then the page process
 * restarting, a worker killed with SIGKILL (its questions shown abandoned in
 * the browser, live and after a reload, and refused), a live worker whose
 * lease lapsed, and a worker waiting while PostgreSQL stops.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ApprovalInbox, inboxAsker, migrateInboxStore, postgresInboxStore } from "arc-agentkit/askers";
import { ApprovalServer, MCPClient, StreamableHttpServer } from "arc-agentkit/mcp";
import { freshDatabase, startPostgres, type TestPostgres } from "../helpers/postgres.js";
import { logIn, sessionHeaders } from "../agentkit-cli/inbox-page.js";
import { launchChromium, loggedInPage, SESSION } from "./inbox-kit.js";

// The browser global a page.evaluate callback reads (the test tsconfig has no DOM lib).
declare const sessionStorage: Record<string, string>;

const WORKERS = 8;
const PER_WORKER = 50;

/** The questions a person answers in Chromium instead of the scripted reviewer: [worker, prompt number] (n % 3 picks the answer: 0 modify, 1 approve, 2 reject). */
const CLICKED: ReadonlyArray<readonly [number, number]> = [
  [1, 49], // approve
  [4, 47], // reject, with a note
  [6, 48], // modify
];
const CLICKER = "ada-in-chromium";
/** The worker killed with SIGKILL. */
const DOOMED = 99;
const isClicked = (w: number, n: number): boolean => CLICKED.some(([cw, cn]) => cw === w && cn === n);

let pg: TestPostgres;
/** This test's own database on `pg` (a new one each test: a test that fails midway leaves nothing for the next). */
let db: string;
let browser: Browser;
/** The worker processes a test spawned: any still running when it ends (it failed midway) is killed then. */
const children = new Set<ChildProcess>();
const dir = mkdtempSync(join(tmpdir(), "akt-shared-inbox-"));
beforeAll(async () => {
  [pg, browser] = await Promise.all([startPostgres(), launchChromium()]);
});
beforeEach(async () => {
  db = await freshDatabase(pg);
  await migrateInboxStore({ connectionString: db });
});
afterEach(() => {
  for (const child of children) child.kill("SIGKILL");
  children.clear();
});
afterAll(async () => {
  await browser?.close();
  pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** One worker process: an ApprovalServer on the shared store, prompted PER_WORKER times at once; prints its answers as JSON. */
const WORKER = `
  const { inboxAsker, postgresInboxStore } = await import("arc-agentkit/askers");
  const { ApprovalServer, MCPClient, StreamableHttpServer } = await import("arc-agentkit/mcp");
  const [i, n, audit] = [Number(process.env.W), Number(process.env.N), process.env.AUDIT];
  const store = postgresInboxStore({ connectionString: process.env.PG_URL, ...(process.env.LEASE_MS ? { leaseMs: Number(process.env.LEASE_MS) } : {}) });
  const asker = inboxAsker({ store, source: "worker-" + i });
  const server = await ApprovalServer.start({ asker, ctx: asker, auditPath: audit, timeoutMs: 120000 });
  const client = await MCPClient.start(new StreamableHttpServer({ url: server.url, headers: { ...server.authHeaders } }));
  const answers = await Promise.all(Array.from({ length: n }, async (_, j) => {
    // A stand-in for the CLI: it waits as long as the server lets a person take (its deadline is 120 s), not the client default of 30 s.
    const r = await client.callTool("approve", { tool_name: "Bash", input: { worker: i, n: j }, tool_use_id: "w" + i + "-" + j }, { timeoutMs: 150000 });
    return JSON.parse(r.content[0].text);
  }));
  await client.stop(); await server.stop(); await store.stop();
  console.log("ANSWERS " + JSON.stringify(answers));`;

/** The answer a permission prompt gets. */
type PromptAnswer = { behavior: string; message?: string };

/**
 * A worker in this process: an ApprovalServer asking through its own store
 * connection as `source`, and an MCP client of it. `prompt()` sends one
 * permission prompt and resolves to its answer; `close()` ends all three.
 */
async function localWorker(source: string, ctx?: Parameters<typeof ApprovalServer.start>[0]["ctx"]) {
  const store = postgresInboxStore({ connectionString: db });
  const asker = inboxAsker({ store, source });
  const server = await ApprovalServer.start({ asker, ctx: ctx ?? asker, timeoutMs: 60_000 });
  const client = await MCPClient.start(new StreamableHttpServer({ url: server.url, headers: { ...server.authHeaders } }));
  return {
    store,
    server,
    prompt: async (input: Record<string, unknown>, toolUseId?: string): Promise<PromptAnswer> => {
      const r = await client.callTool("approve", { tool_name: "Bash", input, ...(toolUseId ? { tool_use_id: toolUseId } : {}) });
      return JSON.parse((r.content[0] as { text: string }).text) as PromptAnswer;
    },
    close: async () => {
      await client.stop();
      await server.stop();
      await store.stop();
    },
  };
}

function spawnWorker(i: number, n: number, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["--input-type=module", "-e", WORKER], {
    env: { ...process.env, PG_URL: db, W: String(i), N: String(n), AUDIT: join(dir, `audit-${i}.jsonl`), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

function worker(i: number): Promise<unknown[]> {
  const child = spawnWorker(i, PER_WORKER);
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

/** A question the scripted reviewer leaves to the person in Chromium. */
interface ToClick {
  readonly id: string;
  readonly w: number;
  readonly n: number;
}

/** What worker `w` must get for prompt `n`: the reviewer's answer, or the one clicked in Chromium. */
function expected(w: number, n: number): Record<string, unknown> {
  const clicked = isClicked(w, n);
  if (n % 3 === 0) return { behavior: "allow", updatedInput: { worker: w, n, checked: true, ...(clicked ? { by: "chromium" } : {}) } };
  if (n % 3 === 1) return { behavior: "allow", updatedInput: { worker: w, n } };
  return { behavior: "deny", message: clicked ? `no ${w}/${n}, said ${CLICKER}` : `no ${w}/${n}` };
}

/**
 * The reviewer: logs in with the one-time code, follows the live stream, and
 * answers every question by the worker and number in its arguments — except
 * the CLICKED ones, collected in `toClick` for the person in Chromium.
 */
async function reviewer(
  inbox: ApprovalInbox,
  total: number,
): Promise<{ answered: number; failures: unknown[]; failed: Promise<never>; toClick: Promise<ToClick[]>; stop: () => void }> {
  const headers = sessionHeaders(await logIn(inbox.loginUrl));
  const origin = new URL(inbox.url).origin;
  const abort = new AbortController();
  const events = await fetch(`${inbox.url}events`, { headers: { ...headers, Accept: "text/event-stream" }, signal: abort.signal });
  expect(events.status).toBe(200);
  const skipped: ToClick[] = [];
  let allSkipped!: (v: ToClick[]) => void;
  let fail!: (err: unknown) => void;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => undefined); // raced by the test; never an unhandled rejection of its own
  const state = {
    answered: 0,
    /** Rejects with the first answer that failed: the test races it, so the cause is the failure it reports. */
    failed,
    /** Answers that failed (the test checks there are none; kept here, not left as unhandled rejections). */
    failures: [] as unknown[],
    toClick: new Promise<ToClick[]>((resolve) => (allSkipped = resolve)),
    stop: () => abort.abort(),
  };
  const answer = async (id: string): Promise<void> => {
    const q = (await (inbox.store as ReturnType<typeof postgresInboxStore>).get(id))!;
    const { worker: w, n } = q.arguments as { worker: number; n: number };
    if (isClicked(w, n)) {
      skipped.push({ id, w, n });
      if (skipped.length === CLICKED.length) allSkipped(skipped);
      return;
    }
    const body =
      n % 3 === 0
        ? { id, kind: "modify", actor: "reviewer", arguments: JSON.stringify({ worker: w, n, checked: true }) }
        : n % 3 === 1
          ? { id, kind: "approve", actor: "reviewer" }
          : { id, kind: "reject", actor: "reviewer", note: `no ${w}/${n}` };
    const r = await fetch(`${inbox.url}answer`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers, Origin: origin },
      body: JSON.stringify(body),
    });
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
          const data = JSON.parse(
            block
              .split("\n")
              .find((l) => l.startsWith("data: "))!
              .slice(6),
          ) as { id: string };
          pendingAnswers.push(
            answer(data.id).catch((err: unknown) => {
              state.failures.push(err);
              fail(err);
            }),
          );
          if (pendingAnswers.length === total) await Promise.all(pendingAnswers);
        }
      }
    } catch {
      // the stream is aborted at the end of the test
    }
  })();
  return state;
}

/** The person: a second login (a new one-time link) in Chromium; answers each question by clicks, typing their name once. */
async function clickInChromium(inbox: ApprovalInbox, toClick: readonly ToClick[]): Promise<void> {
  inbox.newLoginUrl();
  const { context, page } = await loggedInPage(browser, inbox);
  try {
    await page.getByLabel("Your name", { exact: false }).fill(CLICKER);
    for (const { id, w, n } of toClick) {
      const art = page.locator(`article[data-id="${id}"]`);
      await art.waitFor(); // rendered by the server on load: it was pending before the browser came
      if (n % 3 === 1) {
        await art.getByRole("button", { name: "Approve", exact: true }).click();
      } else if (n % 3 === 2) {
        await art.getByRole("button", { name: "Reject", exact: true }).click();
        await art.getByLabel("Note").fill(`no ${w}/${n}, said ${CLICKER}`);
        await art.getByRole("button", { name: "Confirm rejection" }).click();
      } else {
        await art.getByRole("button", { name: "Modify", exact: true }).click();
        await art.getByLabel("Arguments (JSON)").fill(JSON.stringify({ worker: w, n, checked: true, by: "chromium" }));
        await art.getByRole("button", { name: "Save and approve" }).click();
      }
      await art.waitFor({ state: "detached" });
    }
  } finally {
    await context.close();
  }
}

/** Run one statement on the test database (outside any store). */
async function sql(text: string, values: unknown[]): Promise<void> {
  const { default: pgLib } = await import("pg");
  const client = new pgLib.Client({ connectionString: db });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

/** The decisions table's rows about `ids`, as cell texts. */
async function historyRows(page: Page, ids: readonly string[]): Promise<string[][]> {
  const out: string[][] = [];
  for (const id of ids) {
    const row = page.locator(`#decisions tbody tr[data-id="${id}"]`);
    if ((await row.count()) === 1) out.push(await row.locator("td").allTextContents());
  }
  return out;
}

type AuditLine = {
  id: string;
  allowed: boolean;
  source: string;
  kind: string | null;
  actor: string | null;
  claimedActor?: string;
  reason: string;
  updatedArguments?: Record<string, unknown>;
};

describe("a shared inbox on PostgreSQL", () => {
  it(`${WORKERS} worker processes × ${PER_WORKER} prompts, one page, one reviewer (HTTP API; ${CLICKED.length} by clicks in Chromium): each worker gets exactly its own answers, each decision is in the database once, the audits agree`, async () => {
    const store = postgresInboxStore({ connectionString: db });
    const inbox = await ApprovalInbox.start({ store });
    const review = await reviewer(inbox, WORKERS * PER_WORKER);
    try {
      const running = Promise.all(Array.from({ length: WORKERS }, (_, i) => worker(i)));
      running.catch(() => undefined); // a test that fails first has its workers killed (afterEach): their exit is not a second failure
      const toClick = await Promise.race([review.toClick, running.then(() => [] as ToClick[]), review.failed]);
      expect(toClick.map(({ w, n }) => [w, n]).sort()).toEqual([...CLICKED].sort());
      await clickInChromium(inbox, toClick);
      const all = await Promise.race([running, review.failed]);
      all.forEach((answers, i) => answers.forEach((a, n) => expect(a, `worker ${i} #${n}`).toEqual(expected(i, n))));
      expect(review.failures).toEqual([]);
      expect(review.answered).toBe(WORKERS * PER_WORKER - CLICKED.length);
      const decisions = await store.decisions(10_000);
      const mine = decisions.filter((d) => /^worker-\d+$/.test(d.from) && Number(d.from.slice(7)) < WORKERS);
      expect(mine).toHaveLength(WORKERS * PER_WORKER);
      expect(new Set(mine.map((d) => d.id)).size).toBe(WORKERS * PER_WORKER);
      const clickedIds = new Set(toClick.map((c) => c.id));
      // the actor is the session that answered (the API reviewer's, the browser's), the typed name a claim beside it
      expect(
        mine.every(
          (d) =>
            d.confirmed &&
            d.source === "asker" &&
            SESSION.test(d.actor ?? "") &&
            d.claimedActor === (clickedIds.has(d.id) ? CLICKER : "reviewer"),
        ),
      ).toBe(true);
      expect(new Set(mine.map((d) => d.actor)).size).toBe(2);
      const audits = Array.from({ length: WORKERS }, (_, i) =>
        readFileSync(join(dir, `audit-${i}.jsonl`), "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as AuditLine),
      );
      for (let i = 0; i < WORKERS; i++) {
        expect(audits[i]).toHaveLength(PER_WORKER);
        const rows = mine.filter((d) => d.from === `worker-${i}`);
        expect(audits[i]!.filter((a) => a.allowed).length).toBe(rows.filter((d) => d.allowed).length);
        expect(audits[i]!.every((a) => a.source === "asker")).toBe(true);
      }
      // the clicked three: the database row and the worker's audit line say who clicked and what
      for (const { id, w, n } of toClick) {
        const row = mine.find((d) => d.id === id)!;
        const line = audits[w]!.find((a) => a.id === `w${w}-${n}`)!;
        expect(line).toMatchObject({
          allowed: row.allowed,
          source: "asker",
          actor: row.actor,
          claimedActor: CLICKER,
          reason: row.reason,
          kind: ["modify", "approve", "reject"][n % 3],
        });
        if (n % 3 === 2) expect(row).toMatchObject({ allowed: false, claimedActor: CLICKER, reason: `no ${w}/${n}, said ${CLICKER}` });
        else expect(row).toMatchObject({ allowed: true, claimedActor: CLICKER });
        if (n % 3 === 0) expect(line.updatedArguments).toEqual({ worker: w, n, checked: true, by: "chromium" });
      }
    } finally {
      review.stop();
      await inbox.stop();
      await store.stop();
    }
  }, 180_000);

  it("the page process restarts mid-run: the waiting question and the decision history come back, and the new page's answer reaches the worker", async () => {
    const workerStore = postgresInboxStore({ connectionString: db });
    const asker = inboxAsker({ store: workerStore, source: "restart" });
    let pageStore = postgresInboxStore({ connectionString: db });
    let inbox = await ApprovalInbox.start({ store: pageStore });
    try {
      const first = asker.ask(
        { question: "Allow Bash?", toolCall: { id: "t1", name: "Bash", arguments: { command: "ls" } }, source: "approval_server" },
        { questionId: "restart-q1", signal: new AbortController().signal },
      );
      await expect.poll(async () => (await pageStore.pending()).filter((q) => q.from === "restart").length).toBe(1);
      const [q1] = (await pageStore.pending()).filter((q) => q.from === "restart");
      expect((await pageStore.settle(q1!.id, { status: "answered", answer: { kind: "approve", actor: "before" } })).ok).toBe(true);
      expect(await first).toMatchObject({ kind: "approve", actor: "before" });
      // The decisions row is the gate's record of the call (the asker is its gate.check target), written once.
      asker.emit("gate.check", {
        tool: "Bash",
        id: "t1",
        questionId: "restart-q1",
        via: "approval_server",
        allowed: true,
        source: "asker",
        asked: true,
        kind: "approve",
        actor: "before",
        reason: "approved",
        at: new Date().toISOString(),
      });
      await expect.poll(async () => (await pageStore.decisions(50)).some((d) => d.from === "restart" && d.actor === "before")).toBe(true);
      const second = asker.ask({
        question: "Allow Bash?",
        toolCall: { id: "t2", name: "Bash", arguments: { command: "pwd" } },
        source: "approval_server",
      });
      await expect.poll(async () => (await pageStore.pending()).filter((q) => q.from === "restart").length).toBe(1);
      // the page process goes away (its store too) while the worker waits
      await inbox.stop();
      await pageStore.stop();
      pageStore = postgresInboxStore({ connectionString: db });
      inbox = await ApprovalInbox.start({ store: pageStore });
      const pending = (await pageStore.pending()).filter((q) => q.from === "restart");
      expect(pending.map((q) => q.arguments)).toEqual([{ command: "pwd" }]);
      expect((await pageStore.decisions(50)).some((d) => d.from === "restart" && d.actor === "before")).toBe(true);
      expect(
        (await pageStore.settle(pending[0]!.id, { status: "answered", answer: { kind: "reject", actor: "after", note: "not now" } })).ok,
      ).toBe(true);
      expect(await second).toMatchObject({ kind: "reject", actor: "after", note: "not now" });
    } finally {
      await inbox.stop();
      await pageStore.stop();
      await workerStore.stop();
    }
  }, 60_000);

  it("a worker process killed with SIGKILL: after its lease its pending questions show abandoned in Chromium (live, and in the history after a reload), and deciding one is refused", async () => {
    const store = postgresInboxStore({ connectionString: db, leaseMs: 2000 });
    const inbox = await ApprovalInbox.start({ store });
    // Its own temporary directory (removed with `dir`): killed, it cannot remove its ApprovalServer's MCP config file itself.
    const tmp = join(dir, "doomed-tmp");
    mkdirSync(tmp, { mode: 0o700 });
    const child = spawnWorker(DOOMED, 3, { LEASE_MS: "2000", TMPDIR: tmp });
    child.stdout.resume();
    child.stderr.resume();
    const { context, page } = await loggedInPage(browser, inbox);
    try {
      const doomed = page.locator("article", { has: page.locator(".from", { hasText: `worker-${DOOMED}` }) });
      await expect.poll(() => doomed.count(), { timeout: 30_000 }).toBe(3);
      const ids = await doomed.evaluateAll((els) => els.map((el) => (el as unknown as { dataset: { id: string } }).dataset.id));
      child.kill("SIGKILL");
      await expect.poll(() => page.locator("article[data-status=abandoned]").count(), { timeout: 15_000 }).toBe(3);
      const first = page.locator(`article[data-id="${ids[0]}"]`);
      expect(await first.locator("[data-role=outcome]").textContent()).toMatch(
        /^Abandoned — the asking process \(.+\) stopped renewing its lease/,
      );
      expect(await first.getByRole("button", { name: "Approve", exact: true }).getAttribute("aria-disabled")).toBe("true");
      // aria-disabled makes Playwright wait for the button to be enabled; force sends the real click anyway.
      await first.getByRole("button", { name: "Approve", exact: true }).click({ force: true });
      await expect
        .poll(() => first.locator("[data-role=outcome]").textContent())
        .toMatch(/^This question was abandoned: the asking process \(.+\) stopped renewing its lease.*Nothing was decided\.$/);
      const direct = await page.evaluate(async (qid) => {
        const key = Object.values(sessionStorage)[0]!;
        const res = await fetch("answer", {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Agentkit-Session": key },
          body: JSON.stringify({ id: qid, kind: "reject", note: "too late" }),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      }, ids[1]);
      expect(direct).toMatchObject({
        status: 409,
        body: { status: "abandoned", error: expect.stringMatching(/^This question was abandoned: .*Nothing was decided\.$/) },
      });
      const rows = () => historyRows(page, ids);
      await expect.poll(rows).toHaveLength(3); // live, over the stream
      await page.reload();
      await page.getByText("Live: new questions appear here").waitFor();
      expect(await doomed.count()).toBe(0); // no longer pending
      const history = await rows(); // rendered by the server
      expect(history).toHaveLength(3);
      for (const cells of history) {
        expect(cells.slice(1, 5)).toEqual(["no", "error", "yes", "—"]);
        expect(cells[5]).toMatch(/^abandoned: the asking process \(.+\) stopped renewing its lease.*nothing was decided$/);
        expect(cells[7]).toBe(`worker-${DOOMED}`);
      }
      for (const id of ids) expect(await store.get(id)).toMatchObject({ status: "abandoned" });
    } finally {
      child.kill("SIGKILL");
      await context.close();
      await inbox.stop();
      await store.stop();
    }
  }, 90_000);

  it("a worker whose lease lapsed while it was alive: its question is abandoned, the call denied (source error), and the gate's record replaces the sweep's row — one row", async () => {
    const w = await localWorker("lapsed");
    const page = postgresInboxStore({ connectionString: db });
    try {
      const waiting = w.prompt({ command: "make" }, "lapsed-1");
      await expect.poll(async () => (await page.pending()).filter((q) => q.from === "lapsed").length).toBe(1);
      const [q] = (await page.pending()).filter((x) => x.from === "lapsed");
      // the lease row goes (a long pause, a clock jump) while the process lives on
      await sql("DELETE FROM agentkit_inbox.workers WHERE worker = $1", [w.store.worker]);
      expect(await page.sweep()).toBe(1);
      expect((await waiting).behavior).toBe("deny");
      expect(w.server.decisions.at(-1)).toMatchObject({ allowed: false, source: "error", asked: true });
      await expect.poll(async () => (await page.decisions(100)).filter((d) => d.id === q!.id).map((d) => d.confirmed)).toEqual([true]);
      const [row] = (await page.decisions(100)).filter((d) => d.id === q!.id);
      expect(row).toMatchObject({ allowed: false, source: "error", from: "lapsed", reason: w.server.decisions.at(-1)!.reason });
      expect((await page.decisions(100)).filter((d) => d.from === "lapsed")).toHaveLength(1);
    } finally {
      await page.stop();
      await w.close();
    }
  }, 60_000);

  it("PostgreSQL stops while a worker waits: the call is denied with source error well before its deadline; once it is back the question is withdrawn (a late Approve is refused) and the next prompt is asked and answered", async () => {
    const checks: Array<Record<string, unknown>> = [];
    const w = await localWorker("outage", { emit: (e: string, d: Record<string, unknown>) => e === "gate.check" && checks.push(d) });
    try {
      const started = Date.now();
      const waiting = w.prompt({ command: "ls" });
      await expect.poll(async () => (await w.store.pending()).length).toBe(1);
      const [asked] = await w.store.pending();
      pg.pause();
      let answer: PromptAnswer;
      try {
        answer = await waiting;
      } finally {
        pg.start();
      }
      expect(answer.behavior).toBe("deny");
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(checks.at(-1)).toMatchObject({ allowed: false, source: "error" });
      const page = postgresInboxStore({ connectionString: db });
      try {
        page.subscribe((e) => {
          if (e.type === "question") void page.settle(e.question.id, { status: "answered", answer: { kind: "approve", actor: "back" } });
        });
        await page.pending();
        // The denied question does not stay pending: the worker withdrew it once the database was back, so a late Approve is refused.
        await expect.poll(async () => (await page.get(asked!.id))?.status, { timeout: 15_000 }).toBe("withdrawn");
        expect(await page.settle(asked!.id, { status: "answered", answer: { kind: "approve", actor: "late" } })).toMatchObject({
          ok: false,
          question: { status: "withdrawn" },
        });
        expect((await w.prompt({ command: "pwd" })).behavior).toBe("allow");
      } finally {
        await page.stop();
      }
    } finally {
      await w.close();
    }
  }, 90_000);
});
