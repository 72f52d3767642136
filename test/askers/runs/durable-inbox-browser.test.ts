/**
 * @module test/askers/runs/durable-inbox-browser.test
 * A durable run's question answered in the inbox page while its worker is
 * dead, all real parts: a worker process (the built package) runs an agent
 * on a real PostgreSQL, its `deploy` call asks for approval through an inbox
 * asker, and the process is SIGKILLed; its lease lapses and the page's
 * sweeper runs, yet the question stays answerable (its run is resumable, not
 * abandoned); a person approves it in Chromium on the inbox page; a new
 * worker process resumes the run, which finishes with the approved deploy
 * done exactly once and the paid model turn never asked again.
 * Needs `npm run build`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pgDriver from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { ApprovalInbox, migrateInboxStore, postgresInboxStore } from "arc-agentkit/askers";
import { startPostgres, type TestPostgres } from "../../helpers/postgres.js";
import { launchChromium, loggedInPage, SESSION } from "../inbox-kit.js";

const WORKER = fileURLToPath(new URL("../../fixtures/askers/durable-inbox-worker.mjs", import.meta.url));
const LEASE_MS = 900;

let pg: TestPostgres;
let browser: Browser;
const dir = mkdtempSync(join(tmpdir(), "runs-inbox-browser-"));
const children: ChildProcess[] = [];

beforeAll(async () => {
  [pg, browser] = await Promise.all([startPostgres(), launchChromium()]);
  await migrateInboxStore({ connectionString: pg.connectionString });
}, 120_000);

afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await browser?.close();
  pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A worker process; `out` is its stdout so far, `exited` its end. */
function worker(env: Record<string, string>): {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
} {
  const child = spawn(process.execPath, [WORKER], {
    env: { ...process.env, STORE_URL: pg.connectionString, LEASE_MS: String(LEASE_MS), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });
  return { child, out: () => out, err: () => err, exited };
}

describe("a durable run's question answered in the inbox page while its worker is dead", () => {
  it("the worker is SIGKILLed while asking; its lease lapses and the page sweeps; a person approves in Chromium; a new worker resumes and the run finishes, the deploy done once", async () => {
    const pageStore = postgresInboxStore({ connectionString: pg.connectionString, leaseMs: LEASE_MS });
    const inbox = await ApprovalInbox.start({ store: pageStore });
    const { context, page } = await loggedInPage(browser, inbox);
    const sql = new pgDriver.Pool({ connectionString: pg.connectionString, max: 1 });
    const log = join(dir, "run.log");
    writeFileSync(log, "");
    try {
      const first = worker({ MODE: "start", RUN_ID: "deploy-1", LOG: log, PROC: "1" });
      const article = page.getByRole("article", { name: "deploy" });
      await article.waitFor({ timeout: 60_000 });
      const questionId = await article.getAttribute("data-id");
      first.child.kill("SIGKILL");
      expect((await first.exited).signal).toBe("SIGKILL");
      const workerName = /^WORKER (.+)$/m.exec(first.out())?.[1];
      expect(workerName, first.err()).toBeTruthy();

      // The dead worker's lease lapses; the page's sweeper (run here once more, after the lapse) leaves the run's question pending.
      await expect
        .poll(
          async () =>
            (
              await sql.query(`SELECT count(*)::int AS n FROM ${pageStore.schema}.workers WHERE worker = $1 AND lease_until >= now()`, [
                workerName,
              ])
            ).rows[0].n as number,
          { timeout: 15_000 },
        )
        .toBe(0);
      await pageStore.sweep();
      expect(await pageStore.get(questionId!)).toMatchObject({ status: "pending", tool: "deploy" });
      expect(await article.getAttribute("data-status")).not.toBe("abandoned");
      expect(await pageStore.runs()).toEqual([expect.objectContaining({ runId: "deploy-1", status: "waiting", agent: "deployer" })]);

      // A person approves it in Chromium, with no worker alive.
      await article.getByRole("button", { name: "Approve", exact: true }).click();
      await expect.poll(async () => (await pageStore.get(questionId!))?.status, { timeout: 10_000 }).toBe("answered");
      expect(await pageStore.get(questionId!)).toMatchObject({ answer: { kind: "approve", actor: expect.stringMatching(SESSION) } });

      // A new worker resumes the run: the decision is picked up, the deploy runs once, the model is asked only the turn it had not answered.
      const second = worker({ MODE: "resume", RUN_ID: "deploy-1", LOG: log, PROC: "2" });
      const end = await second.exited;
      expect(end.code, second.err()).toBe(0);
      const result = JSON.parse(second.out().trim().split("\n").at(-1)!) as { output: string; stopReason: string; runId: string };
      expect(result).toEqual({ output: "finished: deployed prod", stopReason: "complete", runId: "deploy-1" });
      const lines = readFileSync(log, "utf8").trim().split("\n");
      expect(lines).toEqual(["1 answer 1", "2 effect deploy prod", "2 answer 2"]);
      expect(await pageStore.runs()).toEqual([expect.objectContaining({ runId: "deploy-1", status: "finished" })]);
    } finally {
      await context.close();
      await inbox.stop();
      await pageStore.stop();
      await sql.end();
    }
  }, 180_000);
});
