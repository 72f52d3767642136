/**
 * @module test/askers/runs/durable-store-down.test
 * A durable run's store going down, on a real PostgreSQL stopped and started
 * again (`pg_ctl stop`, the data kept): a run started while it is down is
 * refused before anything runs; a run whose store goes down mid-run stops
 * at the step it could not record, names the run and what to do, and once
 * the database is back a resume continues from what was written — nothing
 * lost, no recorded turn asked again, no side effect done twice.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunContext, RunResumeError, type Asker } from "../../../src/index.js";
import { migrateInboxStore, postgresInboxStore, type PostgresInboxStore } from "../../../src/askers/index.js";
import { startPostgres, type TestPostgres } from "../../helpers/postgres.js";
import { defaultScript, makeAgent, noEffects, StepModel } from "./run-kit.js";

let pg: TestPostgres;
const opened: PostgresInboxStore[] = [];
const approve: Asker = { ask: () => Promise.resolve({ kind: "approve" }) };

beforeAll(async () => {
  pg = await startPostgres();
  await migrateInboxStore({ connectionString: pg.connectionString });
}, 120_000);

afterAll(async () => {
  pg?.start();
  await Promise.all(opened.map((s) => s.stop()));
  pg?.stop();
}, 60_000);

function store(): PostgresInboxStore {
  const s = postgresInboxStore({ connectionString: pg.connectionString, leaseMs: 1000 });
  opened.push(s);
  return s;
}

describe("durable runs on PostgreSQL: a store that is down", () => {
  it("a run started while the database is down is refused before anything runs", async () => {
    const s = store();
    pg.pause();
    try {
      const llm = new StepModel();
      const effects = noEffects();
      const refused = await makeAgent(effects)
        .run("ship it", { store: s, runId: "never", ctx: new RunContext({ llm }) })
        .catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(RunResumeError);
      expect(refused).toMatchObject({
        failure: "store",
        message: expect.stringMatching(
          /^run 'never': the run store failed \(InboxError: the inbox database is unavailable: .*\); nothing ran$/,
        ),
      });
      expect(llm.asked).toEqual([]);
      expect(effects.read).toBe(0);
    } finally {
      pg.start();
    }
    expect(await s.runs()).toEqual([]);
  }, 60_000);

  it("a run whose database stops mid-run stops at the step it could not record, naming the run; once the database is back a resume goes on from what was written", async () => {
    const first = store();
    const effects = noEffects();
    let stopped = false;
    // the database stops while the model answers turn 2 (turn 1 and its read's start are recorded; the read's end was
    // to be written while turn 2 was requested, so it never was)
    const llm = new StepModel((n) => {
      if (n === 2 && !stopped) {
        stopped = true;
        pg.pause();
      }
      return defaultScript(n);
    });
    const result = await makeAgent(effects).run("ship it", { store: first, runId: "mid", ctx: new RunContext({ llm, asker: approve }) });
    expect(result).toMatchObject({ stopReason: "error", runId: "mid" });
    expect(result.error?.message).toMatch(/^run 'mid' stopped: its step could not be recorded \(.+\); resume it once the store is back$/);
    expect(llm.asked).toEqual([1, 2]);
    expect(effects).toEqual({ read: 1, send: [], deploy: [] });

    pg.start();
    await first.stop(); // the first worker's process ends (its lease goes with it)
    const second = store();
    expect(await second.runs()).toEqual([expect.objectContaining({ runId: "mid", status: "running" })]);
    const again = new StepModel();
    const resumed = await makeAgent(effects).resume("mid", { store: second, ctx: new RunContext({ llm: again, asker: approve }) });
    expect(resumed).toMatchObject({ stopReason: "complete", output: "done after 3 turns", runId: "mid" });
    // turn 1 was recorded: never asked again; turn 2's answer was never recorded, so it is asked for; the read started
    // and never recorded its end: a read-only call, it runs again without asking
    expect(again.asked).toEqual([2, 3, 4]);
    expect(effects).toEqual({ read: 2, send: [{ to: "ops" }], deploy: [{ env: "prod" }] });
  }, 120_000);
});
