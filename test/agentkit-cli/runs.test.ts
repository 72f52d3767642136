/**
 * @module test/agentkit-cli/runs.test
 * `agentkit runs` as a real process against a real PostgreSQL server: it
 * lists the durable runs the store holds (a finished one, and one left
 * running by a "crash"), filters by status, prints JSON, and refuses a bad
 * status or a missing store with a usage error naming what is accepted.
 * Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunContext } from "../../src/index.js";
import { migrateInboxStore, postgresInboxStore, type PostgresInboxStore } from "../../src/askers/index.js";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";
import { makeAgent, noEffects, StepModel, until } from "../askers/runs/run-kit.js";
import { requireBuild, runAgentkit } from "./agentkit-process.js";

let pg: TestPostgres;
let store: PostgresInboxStore;
beforeAll(async () => {
  requireBuild();
  pg = await startPostgres();
  await migrateInboxStore({ connectionString: pg.connectionString });
  store = postgresInboxStore({ connectionString: pg.connectionString });
  await makeAgent(noEffects()).run("ship it", {
    store,
    runId: "done-1",
    ctx: new RunContext({ llm: new StepModel(), asker: { ask: () => Promise.resolve({ kind: "approve" }) } }),
  });
  const model = new StepModel(undefined, 2);
  const ctx = new RunContext({ llm: model });
  const running = makeAgent(noEffects()).run("ship it", { store, runId: "left-2", ctx });
  await until(() => model.asked.includes(2), "turn 2");
  ctx.cancel();
  await running;
}, 120_000);
afterAll(async () => {
  await store?.stop();
  pg?.stop();
});

describe("agentkit runs", () => {
  it("prints every run, newest change first, and only those of one status with --status", async () => {
    const all = await runAgentkit(["runs", "--store", pg.connectionString]);
    expect(all.stderr).toBe("");
    expect(all.code).toBe(0);
    const lines = all.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^RUN\s+STATUS\s+AGENT\s+UPDATED$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 3))).toEqual([
      ["left-2", "running", "ops"],
      ["done-1", "finished", "ops"],
    ]);
    const finished = await runAgentkit(["runs", "--store", pg.connectionString, "--status", "finished", "--json"]);
    expect(JSON.parse(finished.stdout)).toEqual([{ runId: "done-1", status: "finished", agent: "ops", updatedAt: expect.any(String) }]);
    const none = await runAgentkit(["runs", "--store", pg.connectionString, "--status", "waiting"]);
    expect(none.stdout).toBe("no waiting runs\n");
  });

  it("refuses a status it does not know, and a missing store, naming what is accepted (exit 2)", async () => {
    const bad = await runAgentkit(["runs", "--store", pg.connectionString, "--status", "crashed"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("agentkit runs: --status must be one of running, waiting, finished, failed, got 'crashed'");
    const nowhere = await runAgentkit(["runs"]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toContain(
      "agentkit runs: give the store the runs are in: --store <postgres-url>, --store-env VAR, or --inbox-store <dir>",
    );
  });
});
