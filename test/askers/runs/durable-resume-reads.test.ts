/**
 * @module test/askers/runs/durable-resume-reads.test
 * How often a resume reads a run (the cost benchmark 10 measures): once,
 * when taking it shows nothing was written since the read (the store counts
 * the run's steps as it takes it); again under the lease when a worker that
 * died after the first read had written more — and then the resume goes on
 * from what that worker wrote. In-process and on a real PostgreSQL (whose
 * statements PGlite runs too).
 */
import { afterAll, describe, expect, it } from "vitest";
import { RunContext } from "../../../src/index.js";
import {
  migrateInboxStore,
  MemoryInboxStore,
  postgresInboxStore,
  type InboxStore,
  type PostgresInboxStore,
  type RunStore,
} from "../../../src/askers/index.js";
import { startPostgres, type TestPostgres } from "../../helpers/postgres.js";
import { makeAgent, noEffects, StepModel, until } from "./run-kit.js";

type Store = InboxStore & RunStore;
let pg: TestPostgres | undefined;
const opened: PostgresInboxStore[] = [];

afterAll(async () => {
  await Promise.all(opened.map((s) => s.stop()));
  pg?.stop();
}, 60_000);

async function storeOf(kind: string): Promise<Store> {
  if (kind === "memory") return new MemoryInboxStore();
  pg ??= await startPostgres();
  await migrateInboxStore({ connectionString: pg.connectionString });
  const s = postgresInboxStore({ connectionString: pg.connectionString, leaseMs: 1000 });
  opened.push(s);
  return s;
}

/** `store` with its `loadRun` calls counted, and `beforeClaim` run just before each `claimRun`. */
function counted(store: Store, beforeClaim: () => Promise<void> = async () => {}): Store & { loads: number } {
  const c = new Proxy(store, {
    get(target, p) {
      if (p === "loadRun") {
        return (runId: string) => {
          c.loads++;
          return target.loadRun(runId);
        };
      }
      if (p === "claimRun") {
        return async (runId: string, holder: string) => {
          await beforeClaim();
          return target.claimRun(runId, holder);
        };
      }
      const v = Reflect.get(target, p, target) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as Store & { loads: number };
  c.loads = 0;
  return c;
}

/** Run `runId` until turn 2 is asked for, then stop it (its context cancelled; it stays resumable). */
async function stopAtTurn2(store: Store, runId: string): Promise<void> {
  const model = new StepModel(undefined, 2);
  const ctx = new RunContext({ llm: model });
  const running = makeAgent(noEffects()).run("ship it", { store, runId, ctx });
  await until(() => model.asked.includes(2), "turn 2 asked for");
  ctx.cancel();
  await running;
}

describe.each(["memory", "postgres"])("resuming on %s", (kind) => {
  it("reads the run once when nothing was written between the read and taking it", async () => {
    const store = await storeOf(kind);
    await stopAtTurn2(store, "once");
    const spy = counted(store);
    const llm = new StepModel();
    const r = await makeAgent(noEffects()).resume("once", {
      store: spy,
      ctx: new RunContext({ llm, asker: { ask: () => Promise.resolve({ kind: "approve" }) } }),
    });
    expect(r.stopReason).toBe("complete");
    expect(llm.asked).toEqual([2, 3, 4]);
    expect(spy.loads).toBe(1);
  }, 120_000);

  it("reads it again under the lease when more was written after the first read, and goes on from there", async () => {
    const store = await storeOf(kind);
    await stopAtTurn2(store, "more");
    // between the resume's read and its claim, the run's last worker (alive a moment longer) records turn 2
    const late = async (): Promise<void> => {
      await store.claimRun("more", "late-worker");
      await store.appendRunStep("more", "late-worker", {
        seq: 4,
        kind: "turn",
        data: { step: 2, content: "sending (late)", toolCalls: [] },
        at: new Date().toISOString(),
      });
      await store.releaseRun("more", "late-worker");
    };
    let once = false;
    const spy = counted(store, async () => {
      if (once) return;
      once = true;
      await late();
    });
    const llm = new StepModel();
    const r = await makeAgent(noEffects()).resume("more", { store: spy, ctx: new RunContext({ llm }) });
    expect(spy.loads).toBe(2);
    // turn 2 (written late: no tool calls) is read back, not asked for again; the run ends on it
    expect(llm.asked).toEqual([]);
    expect(r).toMatchObject({ stopReason: "complete", output: "sending (late)" });
  }, 120_000);
});
