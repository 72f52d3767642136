/**
 * @module test/askers/runs/durable-roles.test
 * Durable runs under the inbox's real roles on a real PostgreSQL: workers
 * log in as members of `agentkit_inbox_worker`, the page as a member of
 * `agentkit_inbox_page` (as `agentkit inbox migrate` documents). The rule
 * the grants and row-level policies make (`postgres-runs.ts`): a worker
 * login reads, writes and resumes only the runs its own login started (any
 * process of that login, once the holder's lease lapsed, takes over the
 * run's pending question too); another worker login does not see the run
 * and is told so; the page's login reads every run but cannot take one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pgDriver from "pg";
import { RunContext, type Asker } from "../../../src/index.js";
import { inboxAsker, migrateInboxStore, postgresInboxStore, type PostgresInboxStore } from "../../../src/askers/index.js";
import { startPostgres, type TestPostgres } from "../../helpers/postgres.js";
import { makeAgent, noEffects, StepModel, until } from "./run-kit.js";

let pg: TestPostgres;
const opened: PostgresInboxStore[] = [];

/** `postgres://<login>@...` on the test server. */
const as = (login: string): string => pg.connectionString.replace("postgres://postgres@", `postgres://${login}@`);

beforeAll(async () => {
  pg = await startPostgres();
  await migrateInboxStore({ connectionString: pg.connectionString });
  const admin = new pgDriver.Pool({ connectionString: pg.connectionString, max: 1 });
  try {
    for (const login of ["alpha", "beta"]) await admin.query(`CREATE ROLE ${login} LOGIN IN ROLE agentkit_inbox_worker`);
    await admin.query("CREATE ROLE reviewer LOGIN IN ROLE agentkit_inbox_page");
  } finally {
    await admin.end();
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(opened.map((s) => s.stop()));
  pg?.stop();
}, 60_000);

function store(login: string, role: "worker" | "page"): PostgresInboxStore {
  const s = postgresInboxStore({ connectionString: as(login), role, leaseMs: 1000 });
  opened.push(s);
  return s;
}

describe("durable runs under the inbox's roles (PostgreSQL)", () => {
  it("a run written by one worker login: another worker login is told it sees only its own login's runs, the page's login cannot take it, and another process of the same login resumes it — its pending question answered on the page", async () => {
    const effects = noEffects();
    // worker process 1 of login alpha: runs until its deploy asks for approval, then dies (its store closed, the run never let go)
    const alpha1 = store("alpha", "worker");
    const first = new StepModel();
    const ctx1 = new RunContext({ llm: first, asker: inboxAsker({ store: alpha1, source: "alpha-1" }) });
    const running = makeAgent(effects).run("ship it", { store: alpha1, runId: "alpha-run", ctx: ctx1 });
    const page = store("reviewer", "page");
    await until(async () => (await page.pending()).some((q) => q.tool === "deploy"), "the deploy question on the page");
    await alpha1.stop();
    ctx1.cancel();
    await running;
    expect(effects.send).toHaveLength(1);
    expect(effects.deploy).toHaveLength(0);

    // another worker login does not see it
    const beta = store("beta", "worker");
    const betaModel = new StepModel();
    await expect(
      makeAgent(noEffects()).resume("alpha-run", { store: beta, ctx: new RunContext({ llm: betaModel }) }),
    ).rejects.toMatchObject({
      failure: "unknown_run",
      message:
        "there is no run 'alpha-run' in the store; store.runs() (or `agentkit runs`) lists the runs it holds. This store logs in in the inbox's worker role, which sees only the runs its own login started: resume a run with a store on the login that started it",
    });
    expect(await beta.runs()).toEqual([]);
    expect(betaModel.asked).toEqual([]);

    // the page's login reads every run, and cannot take one
    expect(await page.runs()).toEqual([expect.objectContaining({ runId: "alpha-run", status: "waiting", agent: "ops" })]);
    const pageModel = new StepModel();
    await expect(
      makeAgent(noEffects()).resume("alpha-run", { store: page, ctx: new RunContext({ llm: pageModel }) }),
    ).rejects.toMatchObject({
      failure: "store",
      message:
        "run 'alpha-run': the run store failed (InboxError: run 'alpha-run' was started by the database login 'alpha'; this store's login 'reviewer' may resume only the runs its own login started (the inbox's row policies). Resume it with a store on login 'alpha'); nothing ran",
    });
    expect(pageModel.asked).toEqual([]);

    // a person answers the question on the page while no worker of alpha is alive
    const question = (await page.pending()).find((q) => q.tool === "deploy")!;
    expect((await page.settle(question.id, { status: "answered", answer: { kind: "approve", actor: "ada" } })).ok).toBe(true);

    // worker process 2 of login alpha resumes it, once process 1's lease is gone
    const alpha2 = store("alpha", "worker");
    const second = new StepModel();
    const asker: Asker = inboxAsker({ store: alpha2, source: "alpha-2" });
    const result = await makeAgent(effects).resume("alpha-run", { store: alpha2, ctx: new RunContext({ llm: second, asker }) });
    expect(result).toMatchObject({ stopReason: "complete", output: "done after 3 turns", runId: "alpha-run" });
    expect(second.asked).toEqual([4]);
    expect(effects.send).toHaveLength(1);
    expect(effects.deploy).toEqual([{ env: "prod" }]);
    expect(await alpha2.runs({ status: "finished" })).toEqual([expect.objectContaining({ runId: "alpha-run" })]);
  }, 120_000);
});
