/**
 * @module test/askers/runs/durable-runs.test
 * Durable agent runs on each store — in-process (`MemoryInboxStore`),
 * embedded (`pgliteInboxStore`) and a real PostgreSQL
 * (`postgresInboxStore`): `agent.run(input, { store, runId })` records
 * every step before the next, and `agent.resume(runId, { store })` keeps
 * the resume rules. A run here "crashes" by having its context cancelled at
 * the chosen point (a cancelled durable run stops where it is and stays
 * resumable, as a dead process leaves it); runs whose processes are really
 * killed are in `durable-crash.test.ts`.
 */
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { RunContext, RunResumeError, type Asker, type AskOptions, type Decision, type Elicitation } from "../../../src/index.js";
import {
  inboxAsker,
  migrateInboxStore,
  MemoryInboxStore,
  postgresInboxStore,
  type InboxStore,
  type PostgresInboxStore,
  type RunStep,
  type RunStore,
} from "../../../src/askers/index.js";
import { PgliteStores } from "../../helpers/pglite.js";
import { startPostgres, type TestPostgres } from "../../helpers/postgres.js";
import { RUN_STATE_FORMAT } from "../../../src/contracts/run-record.js";
import { makeAgent, noEffects, StepModel, until, type Effects } from "./run-kit.js";

/** An Asker that answers from a list and records what it was asked. */
function answering(...decisions: Decision[]): Asker & { asked: Array<{ request: Elicitation; options?: AskOptions }> } {
  const asked: Array<{ request: Elicitation; options?: AskOptions }> = [];
  return {
    asked,
    ask(request, options) {
      asked.push({ request, options });
      return Promise.resolve(decisions.shift() ?? { kind: "reject", note: "script ran out" });
    },
  };
}

/** How a run is stopped part-way ("crashed"): a tool or a turn that hangs, the Asker it asks, and the moment to stop it. */
interface Crash {
  readonly hang?: "read" | "send" | "deploy";
  readonly hangTurn?: number;
  readonly asker?: Asker;
  readonly approvalTimeoutMs?: number;
  /** Stop once this is true. */
  readonly when: (model: StepModel) => boolean | Promise<boolean>;
}

/** Start run `runId` and stop it (its context cancelled: it stays resumable) once `crash.when` holds; the first process's model. */
async function crashRun(store: Store, runId: string, effects: Effects, crash: Crash): Promise<StepModel> {
  const model = new StepModel(undefined, crash.hangTurn);
  const ctx = new RunContext({ llm: model, asker: crash.asker ?? answering() });
  const agent = makeAgent(effects, {
    ...(crash.hang ? { hang: crash.hang } : {}),
    ...(crash.approvalTimeoutMs ? { approvalTimeoutMs: crash.approvalTimeoutMs } : {}),
  });
  const running = agent.run("ship it", { store, runId, ctx });
  await until(() => crash.when(model), `the moment to stop run '${runId}'`);
  ctx.cancel();
  expect((await running).stopReason).toBe("cancelled");
  return model;
}

/**
 * `store` with each write of steps (`appendRunStep` or `appendRunSteps`) told to `seen` once it is in the store;
 * `hold` may return a promise the write waits for before it reaches the store (a slow write).
 */
function watched(
  store: Store,
  seen: (steps: readonly RunStep[]) => void,
  hold?: (steps: readonly RunStep[]) => Promise<void> | undefined,
): Store {
  const write = async (steps: readonly RunStep[], go: () => Promise<void>): Promise<void> => {
    await hold?.(steps);
    await go();
    seen(steps);
  };
  return new Proxy(store, {
    get(target, p) {
      if (p === "appendRunStep")
        return (runId: string, holder: string, step: RunStep) => write([step], () => target.appendRunStep(runId, holder, step));
      if (p === "appendRunSteps" && target.appendRunSteps)
        return (runId: string, holder: string, steps: readonly RunStep[]) =>
          write(steps, () => target.appendRunSteps!(runId, holder, steps));
      const v = Reflect.get(target, p, target) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** A store of each kind under test. */
type Store = InboxStore & RunStore;

let pg: TestPostgres | undefined;
const pglites = new PgliteStores();
const opened: Array<{ stop(): Promise<void> }> = [];
let schemas = 0;

/** Another worker's store on the same PostgreSQL schema as `store` (closed after the file). */
function sameDatabase(store: Store): PostgresInboxStore {
  const other = postgresInboxStore({ connectionString: pg!.connectionString, schema: (store as PostgresInboxStore).schema, leaseMs: 1000 });
  opened.push(other);
  return other;
}

/** A fresh store of `kind` (closed after the file). */
async function storeOf(kind: string): Promise<Store> {
  if (kind === "memory") return new MemoryInboxStore();
  if (kind === "pglite") return pglites.fresh();
  pg ??= await startPostgres();
  const schema = `runs_${++schemas}`;
  await migrateInboxStore({ connectionString: pg.connectionString, schema });
  const store = postgresInboxStore({ connectionString: pg.connectionString, schema, leaseMs: 1000 });
  opened.push(store);
  return store;
}

afterAll(async () => {
  await Promise.all([...opened.map((s) => s.stop()), pglites.close()]);
  pg?.stop();
}, 120_000);

afterEach(() => {
  vi.useRealTimers();
});

// Opening a database takes seconds on a loaded machine (PGlite's first open, a PostgreSQL server's start).
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const KINDS = (process.env["RUNS_STORES"] ?? "memory,pglite,postgres").split(",");

describe.each(KINDS)("durable runs on %s: recording", (kind) => {
  it("records every turn, question and call (started, finished) in order, and names the run", async () => {
    const store = await storeOf(kind);
    const effects = noEffects();
    const llm = new StepModel();
    const r = await makeAgent(effects).run("ship it", {
      store,
      runId: "run-a",
      ctx: new RunContext({ llm, asker: answering({ kind: "approve", actor: "ada" }) }),
    });
    expect(r).toMatchObject({ stopReason: "complete", output: "done after 3 turns", runId: "run-a", steps: 4 });
    const loaded = await store.loadRun("run-a");
    expect(loaded!.head).toMatchObject({
      runId: "run-a",
      status: "finished",
      agent: "ops",
      format: RUN_STATE_FORMAT,
      input: "ship it",
      holder: null,
    });
    expect(loaded!.steps.map((s) => `${s.kind}${"key" in s.data ? ` ${String(s.data.key)}` : ""}`)).toEqual([
      "turn",
      "call_started 1.0",
      "call_finished 1.0",
      "turn",
      "call_started 2.0",
      "call_finished 2.0",
      "turn",
      "question 3.0",
      "call_started 3.0",
      "call_finished 3.0",
      "turn",
    ]);
    expect(await store.runs({ status: "finished" })).toEqual([
      { runId: "run-a", status: "finished", agent: "ops", updatedAt: expect.any(String) },
    ]);
    expect(await store.runs({ status: "running" })).toEqual([]);
  });

  it("refuses a runId already in the store, and runs nothing", async () => {
    const store = await storeOf(kind);
    const effects = noEffects();
    await makeAgent(effects).run("first", {
      store,
      runId: "dup",
      ctx: new RunContext({ llm: new StepModel(), asker: answering({ kind: "approve" }) }),
    });
    const llm = new StepModel();
    const again = makeAgent(effects).run("second", { store, runId: "dup", ctx: new RunContext({ llm }) });
    await expect(again).rejects.toThrow(RunResumeError);
    await expect(again).rejects.toMatchObject({
      failure: "duplicate_run",
      message: expect.stringContaining("agent.resume('dup', { store })"),
    });
    expect(llm.asked).toEqual([]);
  });

  it("a turn that asks for a call goes to the store in one write with the call's start (or its question)", async () => {
    const store = await storeOf(kind);
    const writes: string[][] = [];
    const r = await makeAgent(noEffects()).run("ship it", {
      store: watched(store, (steps) => writes.push(steps.map((s) => s.kind))),
      runId: "one-write",
      ctx: new RunContext({ llm: new StepModel(), asker: answering({ kind: "approve", actor: "ada" }) }),
    });
    expect(r.stopReason).toBe("complete");
    // No turn that asks for a call is written alone: one round trip to the store before each call's body (or question).
    expect(writes).toEqual([
      ["turn", "call_started"],
      ["call_finished"],
      ["turn", "call_started"],
      ["call_finished"],
      ["turn", "question"],
      ["call_started"],
      ["call_finished"],
      ["turn"],
    ]);
  });

  it("the next model request goes out while a call's end is written, and the next turn is written after that end", async () => {
    const store = await storeOf(kind);
    const writes: string[][] = [];
    let letEndsThrough!: () => void;
    const endsHeld = new Promise<void>((resolve) => (letEndsThrough = resolve));
    const slowEnds = watched(
      store,
      (steps) => writes.push(steps.map((s) => s.kind)),
      (steps) => (steps.some((s) => s.kind === "call_finished") ? endsHeld : undefined),
    );
    const llm = new StepModel();
    const running = makeAgent(noEffects()).run("ship it", {
      store: slowEnds,
      runId: "end-behind",
      ctx: new RunContext({ llm, asker: answering({ kind: "approve", actor: "ada" }) }),
    });
    // Turn 2 is requested while call 1.0's end is still on its way to the store.
    await until(() => llm.asked.includes(2), "turn 2 requested while call 1.0's end was being written");
    expect(writes).toEqual([["turn", "call_started"]]);
    letEndsThrough();
    expect((await running).stopReason).toBe("complete");
    const steps = (await store.loadRun("end-behind"))!.steps;
    expect(steps.map((s) => `${s.kind}${"key" in s.data ? ` ${String(s.data.key)}` : ""}`).slice(0, 5)).toEqual([
      "turn",
      "call_started 1.0",
      "call_finished 1.0",
      "turn",
      "call_started 2.0",
    ]);
  });

  it("a run's own writes: no read before it is created, and its end lets go of it in the same write", async () => {
    const store = await storeOf(kind);
    const called: string[] = [];
    const counted = new Proxy(store, {
      get(target, p) {
        const v = Reflect.get(target, p, target) as unknown;
        if (typeof v !== "function") return v;
        return (...a: unknown[]) => {
          if (typeof p === "string" && ["loadRun", "createRun", "setRunStatus", "releaseRun", "claimRun"].includes(p)) called.push(p);
          return (v as (...a: unknown[]) => unknown).apply(target, a);
        };
      },
    });
    const r = await makeAgent(noEffects()).run("ship it", {
      store: counted,
      runId: "own-writes",
      ctx: new RunContext({ llm: new StepModel(), asker: answering({ kind: "approve", actor: "ada" }) }),
    });
    expect(r.stopReason).toBe("complete");
    expect(called).toEqual(["createRun", "setRunStatus"]);
    expect((await store.loadRun("own-writes"))!.head).toMatchObject({ status: "finished", holder: null });
  });

  it("without a store a runId is refused by name, and a run with the context as second argument still works", async () => {
    const agent = makeAgent(noEffects());
    await expect(agent.run("x", { runId: "r" })).rejects.toThrow(/'runId' names a durable run, which needs a 'store'/);
    const r = await agent.run("x", new RunContext({ llm: new StepModel((n) => ({ content: `t${n}` })) }));
    expect(r).toMatchObject({ output: "t1", stopReason: "complete" });
    expect(r.runId).toBeUndefined();
  });
});

describe.each(KINDS)("durable runs on %s: resume", (kind) => {
  it("reads finished model turns back and never requests them again; finished calls are not run again", async () => {
    const store = await storeOf(kind);
    const effects = noEffects();
    await crashRun(store, "r1", effects, { hangTurn: 3, when: (m) => m.asked.includes(3) });
    expect((await store.runs())[0]).toMatchObject({ runId: "r1", status: "running" });

    const second = new StepModel();
    const r = await makeAgent(effects).resume("r1", {
      store,
      ctx: new RunContext({ llm: second, asker: answering({ kind: "approve", actor: "ada" }) }),
    });
    expect(r).toMatchObject({ stopReason: "complete", runId: "r1", output: "done after 3 turns" });
    expect(second.asked).toEqual([3, 4]);
    expect(effects.read).toBe(1);
    expect(effects.send).toEqual([{ to: "ops" }]);
    expect(effects.deploy).toEqual([{ env: "prod" }]);
    // the resumed model is shown the whole conversation, the read-back turns and results included
    expect(second.requests[0]!.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "tool"]);
    expect(r.toolCalls.map((c) => c.name)).toEqual(["read", "send", "deploy"]);
  });

  it("asks a pending question again under the same questionId, and continues when it is answered in the inbox", async () => {
    const store = await storeOf(kind);
    const effects = noEffects();
    await crashRun(store, "r2", effects, {
      asker: inboxAsker({ store, source: "w1" }),
      when: async () => (await store.runs())[0]?.status === "waiting" && (await store.pending()).length === 1,
    });
    const [asked] = await store.pending();
    expect((await store.get(asked!.id))!.status).toBe("pending");

    const resumed = makeAgent(effects).resume("r2", {
      store,
      ctx: new RunContext({ llm: new StepModel(), asker: inboxAsker({ store, source: "w2" }) }),
    });
    await until(
      async () => (await store.runs())[0]?.status === "waiting" && (await store.loadRun("r2"))!.head.holder !== null,
      "resumed and waiting",
    );
    expect((await store.pending()).map((q) => q.id)).toEqual([asked!.id]);
    await store.settle(asked!.id, { status: "answered", answer: { kind: "approve", actor: "inbox session 1" } });
    expect(await resumed).toMatchObject({ stopReason: "complete" });
    expect(effects.deploy).toEqual([{ env: "prod" }]);
    expect(effects.send).toHaveLength(1);
  });

  it("picks up a decision made while no worker was alive", async () => {
    const store = await storeOf(kind);
    const effects = noEffects();
    await crashRun(store, "r3", effects, {
      asker: inboxAsker({ store, source: "w1" }),
      when: async () => (await store.pending()).length === 1,
    });
    const [asked] = await store.pending();
    await store.settle(asked!.id, { status: "answered", answer: { kind: "modify", actor: "inbox session 1", value: { env: "staging" } } });

    const asker = inboxAsker({ store, source: "w2" });
    const r = await makeAgent(effects).resume("r3", { store, ctx: new RunContext({ llm: new StepModel(), asker }) });
    expect(r.stopReason).toBe("complete");
    expect(effects.deploy).toEqual([{ env: "staging" }]);
    expect(await store.pending()).toEqual([]);
  });

  it("runs a started-but-unfinished side-effecting call again only after a `resume` question is approved", async () => {
    const store = await storeOf(kind);
    const effects = noEffects();
    await crashRun(store, "r4", effects, { hang: "send", when: () => effects.send.length === 1 });

    const asker = answering({ kind: "approve", actor: "ada" }, { kind: "approve", actor: "ada" });
    const r = await makeAgent(effects).resume("r4", { store, ctx: new RunContext({ llm: new StepModel(), asker }) });
    expect(r.stopReason).toBe("complete");
    expect(asker.asked.map((a) => [a.request.source, a.request.toolCall?.name])).toEqual([
      ["resume", "send"],
      ["react", "deploy"],
    ]);
    expect(asker.asked[0]!.request.question).toMatch(/stopped while 'send' was running/);
    expect(effects.send).toEqual([{ to: "ops" }, { to: "ops" }]);
  });

  it("a resume question answered modify runs the edited arguments", async () => {
    const store = await storeOf(kind);
    const effects = noEffects();
    await crashRun(store, "r5", effects, { hang: "send", when: () => effects.send.length === 1 });
    const asker = answering({ kind: "modify", value: { to: "dev" } }, { kind: "approve" });
    await makeAgent(effects).resume("r5", { store, ctx: new RunContext({ llm: new StepModel(), asker }) });
    expect(effects.send).toEqual([{ to: "ops" }, { to: "dev" }]);
  });

  it.each([
    ["reject", { kind: "reject", note: "already sent" }],
    ["expired", { kind: "expired" }],
  ] as const)("a resume question answered %s does not run the call, and the model is told", async (_, decision) => {
    const store = await storeOf(kind);
    const effects = noEffects();
    await crashRun(store, "r6", effects, { hang: "send", when: () => effects.send.length === 1 });
    const llm = new StepModel();
    const r = await makeAgent(effects).resume("r6", {
      store,
      ctx: new RunContext({ llm, asker: answering(decision, { kind: "approve" }) }),
    });
    expect(r.stopReason).toBe("complete");
    expect(effects.send).toHaveLength(1);
    const told = llm.requests[0]!.messages.find((m) => m.role === "tool" && m.name === "send");
    expect(told?.content).toMatch(/^'send' was started before the run stopped and was not run again: /);
    expect(r.toolCalls[1]).toMatchObject({ name: "send", ok: false });
  });

  it("runs a started-but-unfinished read-only call again without asking", async () => {
    const store = await storeOf(kind);
    const effects = noEffects();
    await crashRun(store, "r7", effects, { hang: "read", when: () => effects.read === 1 });
    const asker = answering({ kind: "approve" });
    const r = await makeAgent(effects).resume("r7", { store, ctx: new RunContext({ llm: new StepModel(), asker }) });
    expect(r.stopReason).toBe("complete");
    expect(effects.read).toBe(2);
    expect(asker.asked.map((a) => a.request.toolCall?.name)).toEqual(["deploy"]);
  });

  it("refuses a run whose agent changed, naming each change, and runs nothing", async () => {
    const store = await storeOf(kind);
    const effects = noEffects();
    await crashRun(store, "r8", effects, { hangTurn: 2, when: (m) => m.asked.includes(2) });
    const llm = new StepModel();
    const resumed = makeAgent(effects, { model: "m2", deployArg: "target" }).resume("r8", {
      store,
      ctx: new RunContext({ llm, asker: answering() }),
    });
    await expect(resumed).rejects.toThrow(RunResumeError);
    await expect(resumed).rejects.toMatchObject({
      failure: "agent_changed",
      changes: ["model: 'm1' -> 'm2'", "tool 'deploy': its schema changed"],
    });
    await expect(resumed).rejects.toThrow(/What changed: model: 'm1' -> 'm2'; tool 'deploy': its schema changed/);
    expect(llm.asked).toEqual([]);
    expect(effects.read).toBe(1);
    expect((await store.loadRun("r8"))!.steps).toHaveLength(3);
  });

  it("a deadline that passed while no worker was alive denies as a timeout, in the same words as a live timeout", async () => {
    const words =
      "tool 'deploy' was not run: approval for 'deploy' timed out: nobody answered within 60s; denied (a timeout, not a refusal)";
    if (kind === "memory") {
      // the live timeout, for the words (a fake clock: the 60 s pass at once)
      vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"] });
      const live = await storeOf(kind);
      const liveRun = makeAgent(noEffects(), { approvalTimeoutMs: 60_000 }).run("ship it", {
        store: live,
        ctx: new RunContext({ llm: new StepModel(), asker: inboxAsker({ store: live }) }),
      });
      await vi.waitUntil(async () => (await live.pending()).length === 1);
      await vi.advanceTimersByTimeAsync(60_000);
      expect((await liveRun).toolCalls[2]!.result).toBe(words);
      vi.useRealTimers();
    }
    const store = await storeOf(kind);
    const effects = noEffects();
    await crashRun(store, "r9", effects, {
      asker: inboxAsker({ store }),
      approvalTimeoutMs: 60_000,
      when: async () => (await store.pending()).length === 1,
    });
    const [asked] = await store.pending();
    // no process alive for 61 s (only the clock is fake: the database's own timers run)
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61_000);
    const asker = answering({ kind: "approve" });
    const r = await makeAgent(effects, { approvalTimeoutMs: 60_000 }).resume("r9", {
      store,
      ctx: new RunContext({ llm: new StepModel(), asker }),
    });
    expect(asker.asked).toEqual([]);
    expect(effects.deploy).toEqual([]);
    expect(r.toolCalls[2]!.result).toBe(words);
    expect((await store.get(asked!.id))!.status).toBe("timed_out");
  });

  it("returns a finished run's stored result without running anything", async () => {
    const store = await storeOf(kind);
    const effects = noEffects();
    const done = await makeAgent(effects).run("ship it", {
      store,
      runId: "r10",
      ctx: new RunContext({ llm: new StepModel(), asker: answering({ kind: "approve" }) }),
    });
    const llm = new StepModel();
    const again = await makeAgent(effects).resume("r10", { store, ctx: new RunContext({ llm }) });
    expect(again).toMatchObject({ output: done.output, stopReason: "complete", steps: 4, runId: "r10" });
    expect(llm.asked).toEqual([]);
    expect(effects.deploy).toHaveLength(1);
  });

  it("refuses to resume a run a live worker holds, naming the holder", async () => {
    const store = await storeOf(kind);
    const first = new StepModel(undefined, 2);
    const ctx = new RunContext({ llm: first });
    const running = makeAgent(noEffects()).run("ship it", { store, runId: "r11", ctx });
    await until(() => first.asked.includes(2), "turn 2 requested");
    const llm = new StepModel();
    const resumed = makeAgent(noEffects()).resume("r11", { store, ctx: new RunContext({ llm }) });
    await expect(resumed).rejects.toMatchObject({
      failure: "held",
      holder: store.worker,
      message: expect.stringContaining(`held by worker '${store.worker}'`),
    });
    expect(llm.asked).toEqual([]);
    ctx.cancel();
    await running;
  });
});

describe.each(KINDS)("durable runs on %s: bad input", (kind) => {
  it("an unknown run id is refused by name", async () => {
    const store = await storeOf(kind);
    await expect(makeAgent(noEffects()).resume("nope", { store, ctx: new RunContext({ llm: new StepModel() }) })).rejects.toMatchObject({
      failure: "unknown_run",
      message: "there is no run 'nope' in the store; store.runs() (or `agentkit runs`) lists the runs it holds",
    });
  });

  it("a run written in another state format is refused, naming both formats; nothing ran", async () => {
    const store = await storeOf(kind);
    const now = new Date().toISOString();
    await store.createRun({
      runId: "old",
      status: "running",
      agent: "ops",
      updatedAt: now,
      createdAt: now,
      format: 2,
      input: "x",
      fingerprint: {},
      holder: null,
    });
    const llm = new StepModel();
    await expect(makeAgent(noEffects()).resume("old", { store, ctx: new RunContext({ llm }) })).rejects.toThrow(
      "run 'old' was written in run state format 2 (another version of arc-agentkit); this version reads format 1 only. Resume it with the version that started it; nothing ran",
    );
    expect(llm.asked).toEqual([]);
  });

  it("a truncated step is refused, naming the step and what is missing; nothing ran", async () => {
    const store = await storeOf(kind);
    const effects = noEffects();
    await crashRun(store, "cut", effects, { hangTurn: 2, when: (m) => m.asked.includes(2) });
    await store.claimRun("cut", "vandal");
    await store.appendRunStep("cut", "vandal", { seq: 4, kind: "call_finished", data: { key: "2.0" }, at: new Date().toISOString() });
    await store.releaseRun("cut", "vandal");
    const llm = new StepModel();
    await expect(makeAgent(effects).resume("cut", { store, ctx: new RunContext({ llm }) })).rejects.toThrow(
      "run 'cut' is truncated or damaged at step 4 of 4: its 'record' is missing or not a tool call record; nothing ran",
    );
    expect(llm.asked).toEqual([]);
    expect(effects.read).toBe(1);
  });

  it("a truncated run row (its agent's fingerprint gone) is refused, naming what is missing; nothing ran, nothing lost", async () => {
    const store = await storeOf(kind);
    const now = new Date().toISOString();
    await store.createRun({
      runId: "headless",
      status: "running",
      agent: "ops",
      updatedAt: now,
      createdAt: now,
      format: RUN_STATE_FORMAT,
      input: "ship it",
      fingerprint: null as unknown as Record<string, unknown>,
      holder: null,
    });
    const llm = new StepModel();
    const effects = noEffects();
    await expect(makeAgent(effects).resume("headless", { store, ctx: new RunContext({ llm }) })).rejects.toMatchObject({
      failure: "unreadable",
      message: "run 'headless' is truncated: its fingerprint is missing; nothing ran",
    });
    expect(llm.asked).toEqual([]);
    expect(effects.read).toBe(0);
    expect(await store.loadRun("headless")).toMatchObject({ head: { runId: "headless", status: "running", input: "ship it" }, steps: [] });
  });
});

describe.each(KINDS.filter((k) => k !== "memory"))("durable runs on %s: a store that is down", (kind) => {
  it("resume on a closed store is a clear error, and nothing runs", async () => {
    const store = await storeOf(kind);
    await crashRun(store, "down", noEffects(), { hangTurn: 2, when: (m) => m.asked.includes(2) });
    await (store as PostgresInboxStore).stop();
    const llm = new StepModel();
    const effects = noEffects();
    await expect(makeAgent(effects).resume("down", { store, ctx: new RunContext({ llm }) })).rejects.toMatchObject({
      failure: "store",
      message: expect.stringMatching(
        /^run 'down': the run store failed \(InboxError: the inbox database is unavailable: .*\); nothing ran$/,
      ),
    });
    expect(llm.asked).toEqual([]);
    expect(effects.read).toBe(0);
  });
});

describe.each(KINDS.filter((k) => k === "postgres"))("durable runs on %s: two workers", (kind) => {
  it("a run held by a live worker is refused naming it; once that worker is gone the next one takes it", async () => {
    const a = await storeOf(kind);
    const b = sameDatabase(a);
    const first = new StepModel(undefined, 2);
    const ctxA = new RunContext({ llm: first });
    const running = makeAgent(noEffects()).run("ship it", { store: a, runId: "two", ctx: ctxA });
    await until(() => first.asked.includes(2), "worker a at turn 2");
    const llm = new StepModel();
    await expect(makeAgent(noEffects()).resume("two", { store: b, ctx: new RunContext({ llm }) })).rejects.toMatchObject({
      failure: "held",
      holder: (a as PostgresInboxStore).worker,
    });
    expect(llm.asked).toEqual([]);
    // worker a's process ends without letting go of the run (its lease row goes with it)
    await (a as PostgresInboxStore).stop();
    ctxA.cancel();
    await running;
    const r = await makeAgent(noEffects()).resume("two", { store: b, ctx: new RunContext({ llm, asker: answering({ kind: "approve" }) }) });
    expect(r.stopReason).toBe("complete");
    expect(llm.asked).toEqual([2, 3, 4]);
  });

  it("two workers resuming the same run at once: one wins, the other is told which worker holds it", async () => {
    const a = await storeOf(kind);
    await crashRun(a, "race", noEffects(), { hangTurn: 2, when: (m) => m.asked.includes(2) });
    const [b, c] = [sameDatabase(a), sameDatabase(a)];
    const [ctxB, ctxC] = [new RunContext({ llm: new StepModel(undefined, 2) }), new RunContext({ llm: new StepModel(undefined, 2) })];
    const outcomes = [
      makeAgent(noEffects()).resume("race", { store: b, ctx: ctxB }),
      makeAgent(noEffects()).resume("race", { store: c, ctx: ctxC }),
    ];
    const loser = await Promise.race(
      outcomes.map((p, i) =>
        p.then(
          () => undefined,
          (err: unknown) => ({ i, err }),
        ),
      ),
    );
    expect(loser).toBeDefined();
    const winner = loser!.i === 0 ? c : b;
    expect(loser!.err).toMatchObject({
      failure: "held",
      holder: winner.worker,
      message: expect.stringContaining(`held by worker '${winner.worker}'`),
    });
    ctxB.cancel();
    ctxC.cancel();
    await Promise.allSettled(outcomes);
  });
});
