/**
 * @module bench/suites/runs.bench
 * Benchmark 10, durable agent runs: what recording a run costs on each
 * store — in-process (`MemoryInboxStore`), PGlite in this process, and a
 * real PostgreSQL on loopback (a login in the inbox's worker role, as a
 * fleet's worker logs in):
 * - per step at the store: a model turn's write, a tool call's two writes
 *   (started, finished), p50 and p99;
 * - a whole run's wall time recorded against the same run unrecorded, with
 *   a fake model that answers at once (the loop's own work is all there is
 *   to hide the recording behind), ABBA rounds;
 * - `agent.resume` of a 100-step run that stopped before its last turn:
 *   from the call until the run's result (reading the run back, the lease,
 *   the replay of 100 turns and 100 calls, the one new turn, the end).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pgDriver from "pg";
import { Agent, ReActCognition, RunContext, tool, toolCall, type LLM, type LLMRequest, type LLMTurn } from "arc-agentkit";
import {
  MemoryInboxStore,
  migrateInboxStore,
  pgliteInboxStore,
  postgresInboxStore,
  type InboxStore,
  type RunStep,
  type RunStore,
} from "arc-agentkit/askers";
import { abba, medianRatio, roundRatios } from "../lib/abba.js";
import { pick, type BenchConfig, type Suite } from "../lib/config.js";
import { startPostgres, type TestPostgres } from "../lib/postgres.js";
import type { Goal, Section } from "../lib/report.js";
import { median, ms, percentile, ratio } from "../lib/stats.js";

type Store = InboxStore & RunStore & { close?(): Promise<void> };

/** Goals of issue 40. */
const STEP_P50_MS = 1;
const WALL_RATIO = 1.1;
const RESUME_MS = 50;
const RESUME_STEPS = 100;

/**
 * A model answering turn n (one more than the assistant messages it is shown)
 * at once: a call to `note` for the first `steps` turns, then the answer.
 * `stopAt`: that turn never comes back until the run is cancelled (a run
 * stopped there, resumable).
 */
class StepsModel implements LLM {
  asked = 0;
  constructor(
    private readonly steps: number,
    private readonly stopAt?: number,
  ) {}

  complete(request: LLMRequest): Promise<LLMTurn> {
    let n = 1;
    for (const m of request.messages) if (m.role === "assistant") n++;
    this.asked = n;
    if (n === this.stopAt) {
      return new Promise((_, reject) => {
        const stop = () => reject(new Error("stopped"));
        if (request.signal?.aborted) stop();
        else request.signal?.addEventListener("abort", stop, { once: true });
      });
    }
    return Promise.resolve(
      n <= this.steps ? { content: "", toolCalls: [toolCall(`c${n}`, "note", { n })] } : { content: `done after ${n - 1} steps` },
    );
  }
}

function makeAgent(): Agent {
  const note = tool(
    { name: "note", description: "notes a number", sideEffecting: true, input: { type: "object", properties: { n: { type: "number" } } } },
    (args: Record<string, unknown>) => Promise.resolve(`noted ${String(args.n)}`),
  );
  return new Agent({
    name: "bench",
    model: "fake",
    prompt: "note the numbers",
    cognition: new ReActCognition({ tools: [note], maxSteps: 1000 }),
  });
}

/** `store` with each `appendRunStep` timed into `times` by the step's kind (the store's own methods bound, private fields and all). */
function timed(store: Store, times: Map<string, number[]>): Store {
  return new Proxy(store, {
    get(target, p) {
      const v = Reflect.get(target, p, target) as unknown;
      if (p === "appendRunStep") {
        return async (runId: string, holder: string, step: RunStep) => {
          const t = performance.now();
          await target.appendRunStep(runId, holder, step);
          const list = times.get(step.kind) ?? [];
          list.push(performance.now() - t);
          times.set(step.kind, list);
        };
      }
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

let runs = 0;

/** One `steps`-step run; recorded in `store` when given. Its wall time, ms. */
async function oneRun(agent: Agent, steps: number, store?: Store): Promise<number> {
  const ctx = new RunContext({ llm: new StepsModel(steps) });
  const t = performance.now();
  const r = store ? await agent.run("note", { ctx, store, runId: `bench-${process.pid}-${++runs}` }) : await agent.run("note", ctx);
  const took = performance.now() - t;
  if (r.stopReason !== "complete" || r.steps !== steps + 1)
    throw new Error(`runs bench: a ${steps}-step run ended ${r.stopReason} after ${r.steps} turns${r.error ? `: ${r.error.message}` : ""}`);
  return took;
}

/** Start a `steps`-step run and stop it (its context cancelled) when it asks for its last turn; its id. */
async function stoppedRun(agent: Agent, store: Store, steps: number): Promise<string> {
  const runId = `bench-resume-${process.pid}-${++runs}`;
  const model = new StepsModel(steps, steps + 1);
  const ctx = new RunContext({ llm: model });
  const running = agent.run("note", { ctx, store, runId });
  while (model.asked !== steps + 1) await new Promise((r) => setImmediate(r));
  ctx.cancel();
  const r = await running;
  if (r.stopReason !== "cancelled") throw new Error(`runs bench: the run to resume ended ${r.stopReason}`);
  return runId;
}

/** What one store measured. */
interface Measured {
  readonly name: string;
  /** Every write (a turn, a call's start, a call's end), ms. */
  readonly step: number[];
  readonly turn: number[];
  readonly call: number[];
  readonly unrecorded: number;
  readonly recorded: number;
  readonly ratio: { median: number; min: number; max: number };
  readonly resume: number[];
}

async function measure(name: string, store: Store, cfg: BenchConfig): Promise<Measured> {
  const steps = pick(cfg, 20, 10);
  const rounds = pick(cfg, 6, 3);
  const perBatch = pick(cfg, 5, 2);
  const resumes = pick(cfg, 15, 4);
  const agent = makeAgent();
  const times = new Map<string, number[]>();
  const recordedStore = timed(store, times);
  cfg.log(`runs: ${name}: warm-up`);
  for (let i = 0; i < pick(cfg, 20, 5); i++) {
    await oneRun(agent, steps);
    await oneRun(agent, steps, store);
  }
  cfg.log(`runs: ${name}: ${rounds} rounds of ${perBatch} runs of ${steps} steps, recorded and not`);
  const batches = await abba(["unrecorded", "recorded"], rounds, async (k) => {
    const walls: number[] = [];
    for (let i = 0; i < perBatch; i++) walls.push(await oneRun(agent, steps, k === "recorded" ? recordedStore : undefined));
    return walls;
  });
  const p50 = (b: number[][]): number => median(b.flat());
  const started = times.get("call_started") ?? [];
  const finished = times.get("call_finished") ?? [];
  cfg.log(`runs: ${name}: ${resumes} resumes of a ${RESUME_STEPS}-step run`);
  const resume: number[] = [];
  for (let i = 0; i < resumes; i++) {
    const runId = await stoppedRun(agent, store, RESUME_STEPS);
    const model = new StepsModel(RESUME_STEPS);
    const t = performance.now();
    const r = await agent.resume(runId, { store, ctx: new RunContext({ llm: model }) });
    resume.push(performance.now() - t);
    if (r.stopReason !== "complete" || r.steps !== RESUME_STEPS + 1)
      throw new Error(`runs bench: resume ended ${r.stopReason} after ${r.steps} turns${r.error ? `: ${r.error.message}` : ""}`);
  }
  return {
    name,
    step: [...times.values()].flat(),
    turn: times.get("turn") ?? [],
    call: started.map((s, i) => s + (finished[i] ?? NaN)),
    unrecorded: p50(batches.get("unrecorded")!.flat()),
    recorded: p50(batches.get("recorded")!.flat()),
    ratio: medianRatio(roundRatios(batches, "recorded", "unrecorded", p50)),
    resume,
  };
}

/** A login in the inbox's worker role (as a fleet's worker logs in). */
async function workerLogin(pg: TestPostgres): Promise<string> {
  const pool = new pgDriver.Pool({ connectionString: pg.connectionString, max: 1 });
  try {
    await pool.query("CREATE ROLE bench_runs_worker LOGIN IN ROLE agentkit_inbox_worker");
  } finally {
    await pool.end();
  }
  return pg.connectionString.replace("postgres://postgres@", "postgres://bench_runs_worker@");
}

async function run(cfg: BenchConfig): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), "akt-bench-runs-"));
  let pg: TestPostgres | undefined;
  const measured: Measured[] = [];
  try {
    pg = await startPostgres();
    await migrateInboxStore({ connectionString: pg.connectionString });
    const worker = await workerLogin(pg);
    const makers: Array<[string, () => Promise<Store>]> = [
      ["in-process (MemoryInboxStore)", () => Promise.resolve(new MemoryInboxStore())],
      ["PGlite in-process (pgliteInboxStore)", () => pgliteInboxStore({ dataDir: join(dir, "pglite") })],
      [
        "PostgreSQL 127.0.0.1 (postgresInboxStore, worker login)",
        () => Promise.resolve(postgresInboxStore({ connectionString: worker, role: "worker" })),
      ],
    ];
    for (const [name, make] of makers) {
      const store = await make();
      try {
        measured.push(await measure(name, store, cfg));
      } finally {
        await store.close?.();
      }
    }
  } finally {
    pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const steps = pick(cfg, 20, 10);
  const pgRow = measured.find((m) => m.name.startsWith("PostgreSQL"))!;
  const perStep = (m: Measured): number => (m.recorded - m.unrecorded) / steps;
  const goals: Goal[] = [
    {
      goal: `PostgreSQL: recording p50 at most ${STEP_P50_MS} ms per recorded step (one row: a model turn, a call's start, a call's end)`,
      measured: `${ms(percentile(pgRow.step, 0.5))} ms (a turn ${ms(percentile(pgRow.turn, 0.5))} ms, a tool call's two ${ms(percentile(pgRow.call, 0.5))} ms)`,
      met: percentile(pgRow.step, 0.5) <= STEP_P50_MS,
    },
    {
      goal: `PostgreSQL: a recorded run's wall time within ${WALL_RATIO.toFixed(2)}x of the unrecorded run's (fake model answering at once)`,
      measured: `${ratio(pgRow.ratio.median)} (rounds ${ratio(pgRow.ratio.min)}–${ratio(pgRow.ratio.max)})`,
      met: pgRow.ratio.median <= WALL_RATIO,
    },
    ...measured.map((m) => ({
      goal: `${m.name.split(" (")[0]}: resume of a ${RESUME_STEPS}-step run under ${RESUME_MS} ms (p50)`,
      measured: `${ms(percentile(m.resume, 0.5))} ms`,
      met: percentile(m.resume, 0.5) < RESUME_MS,
    })),
  ];
  return {
    id: "runs",
    title: "10. Durable agent runs: what recording costs, and resuming",
    method:
      `An agent (ReActCognition, one side-effecting tool \`note\` that answers at once) and a fake model that answers at once: each step is a model turn calling \`note\`, then the final answer. ` +
      `At the store, each \`appendRunStep\` of the recorded runs is timed: "step" is any one write (one row), a turn is one, a tool call two (started, then finished; its column is their sum). ` +
      `Wall time: ${pick(cfg, 6, 3)} ABBA rounds of ${pick(cfg, 5, 2)} runs of ${steps} steps, unrecorded (\`agent.run(task, ctx)\`) and recorded (\`agent.run(task, { ctx, store })\`); the ratio is the median of the per-round ratios of the median run. ` +
      `"recording per step" is (recorded − unrecorded) / ${steps}: the loop's whole cost of a step's three writes, the run's create, lease and end shared out. ` +
      `Resume: a ${RESUME_STEPS}-step run stopped (its context cancelled) when it asks for its last turn, then \`agent.resume(runId, { store })\` timed until its result (read back, lease taken, ${RESUME_STEPS} turns and calls replayed, one new turn, the end written); ${pick(cfg, 15, 4)} times. ` +
      `PostgreSQL is a real server on 127.0.0.1 (fsync off, as a test database), the store logged in as a member of the inbox's worker role; PGlite runs in this process on a directory.`,
    tables: [
      {
        head: [
          "store",
          "step p50 ms",
          "p99",
          "turn p50 ms",
          "p99",
          "tool call p50 ms",
          "p99",
          "unrecorded run ms",
          "recorded run ms",
          "recorded / unrecorded",
          "recording per step ms",
          "resume 100 steps p50 ms",
          "p99",
        ],
        rows: measured.map((m) => [
          m.name,
          ms(percentile(m.step, 0.5)),
          ms(percentile(m.step, 0.99)),
          ms(percentile(m.turn, 0.5)),
          ms(percentile(m.turn, 0.99)),
          ms(percentile(m.call, 0.5)),
          ms(percentile(m.call, 0.99)),
          ms(m.unrecorded),
          ms(m.recorded),
          ratio(m.ratio.median),
          ms(perStep(m)),
          ms(percentile(m.resume, 0.5)),
          ms(percentile(m.resume, 0.99)),
        ]),
      },
    ],
    goals,
    notes: [
      "The fake model answers at once, so the unrecorded run is the loop alone (tens of µs a step); a real model turn takes hundreds of ms to seconds, next to which the recording's per-step cost is what the store columns show.",
    ],
  };
}

/** Benchmark 10. */
export const runsSuite: Suite = { id: "runs", title: "Durable runs", run };
