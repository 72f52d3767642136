/**
 * @module bench/suites/models.bench
 * Benchmark 7, the model loop's own overhead: one turn through `Agent` +
 * `ReActCognition` + `AnthropicLLM` / `OpenAILLM` (the provider adapter and
 * the loop's bookkeeping: messages, stream events on ctx, usage, the result),
 * beside a bare streaming SDK call to the same fake API that reads the same
 * events and keeps the text — the floor for one turn — made twice: without a
 * signal, and with a fresh `AbortController`'s signal, as a run passes its own
 * so it can be cancelled (the SDKs do real work per request for a signal).
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { pooledRatio } from "../lib/abba.js";
import { startServer, type ChildServer } from "../lib/child-server.js";
import { pick, type BenchConfig, type Suite } from "../lib/config.js";
import type { Goal, Section } from "../lib/report.js";
import { median, ms, percentile, ratio } from "../lib/stats.js";
import { CONTENDERS, type ModelBatch, type WorkerResult } from "../lib/model-contenders.js";

const TARGET = 1.05;
const WORKER = fileURLToPath(new URL("./models-worker.js", import.meta.url));
const run$ = promisify(execFile);

/** One worker process's rounds, as a map for the ABBA helpers. */
async function worker(url: string, rounds: number, batch: number): Promise<Map<string, ModelBatch[][]>> {
  const { stdout } = await run$(process.execPath, ["--expose-gc", WORKER, url, String(rounds), String(batch)], {
    maxBuffer: 64 << 20,
    timeout: 600_000,
  });
  return new Map(Object.entries(JSON.parse(stdout) as WorkerResult));
}

async function run(cfg: BenchConfig): Promise<Section> {
  // Several processes, each of many short rounds: a 20-turn batch is short
  // enough that this VM's speed does not drift within a round, and a
  // process's own JIT and heap layout (which move a ratio by a few per cent
  // from one process to the next) are sampled, not fixed.
  const processes = pick(cfg, 5, 1);
  const rounds = pick(cfg, 30, 5);
  const batch = pick(cfg, 20, 10);
  let server: ChildServer | undefined;
  try {
    server = await startServer("model-api");
    const runs: Map<string, ModelBatch[][]>[] = [];
    for (let i = 0; i < processes; i++) {
      cfg.log(`models: process ${i + 1}/${processes}`);
      runs.push(await worker(server.url, rounds, batch));
    }
    const p50 = (b: ModelBatch[]): number =>
      percentile(
        b.flatMap((x) => x.lat),
        0.5,
      );
    const cpu = (b: ModelBatch[]): number => b.reduce((t, x) => t + x.cpuUs, 0) / b.reduce((t, x) => t + x.lat.length, 0);
    /** Per process, `metric` of `k` over all its rounds vs `base`'s; summarised by the median and range over processes. */
    const across = (k: string, base: string, metric: (b: ModelBatch[]) => number) => {
      const per = runs.map((res) => pooledRatio(res, k, base, metric));
      return { median: median(per), min: Math.min(...per), max: Math.max(...per) };
    };
    const rows: string[][] = [];
    const goals: Goal[] = [];
    for (const provider of ["anthropic", "openai"] as const) {
      const [agent, bare, signal] = CONTENDERS[provider];
      const sdkCall = provider === "anthropic" ? "messages.create" : "responses.create";
      const label: Record<string, string> = {
        [agent]: `Agent + ReActCognition + ${provider === "anthropic" ? "AnthropicLLM" : "OpenAILLM (responses)"}`,
        [bare]: `bare ${sdkCall}({ stream: true })`,
        [signal]: `bare ${sdkCall}({ stream: true }, { signal })`,
      };
      const range = (r: { median: number; min: number; max: number }) => `${ratio(r.median)} (${ratio(r.min)}–${ratio(r.max)})`;
      for (const k of [agent, bare, signal]) {
        const batches = runs.flatMap((res) => res.get(k)!.flat());
        const all = batches.flatMap((x) => x.lat);
        rows.push([
          label[k]!,
          ms(percentile(all, 0.5)),
          ms(percentile(all, 0.99)),
          k === bare ? "1.00x" : range(across(k, bare, p50)),
          k === signal ? "1.00x" : range(across(k, signal, p50)),
          cpu(batches).toFixed(0),
          k === signal ? "1.00x" : range(across(k, signal, cpu)),
        ]);
      }
      const own = across(agent, signal, p50);
      goals.push({
        goal: `${provider}: one agent turn's p50 within ${TARGET.toFixed(2)}x of a bare SDK streaming call that can be cancelled the same way (a signal)`,
        measured: ratio(own.median),
        met: own.median <= TARGET,
      });
    }
    return {
      id: "models",
      title: "7. Model loop overhead (one ReAct turn vs a bare SDK call, same fake API)",
      method:
        `A child process serves a canned streamed text turn (prepared bytes) for \`/v1/messages\` and \`/v1/responses\`. ` +
        `Ours: \`agent.run("hi", new RunContext({ llm }))\` with \`ReActCognition({ tools: [] })\` — one model turn through the provider adapter, ` +
        `\`llm.delta\`/\`llm.turn\` emitted on ctx, usage summed, the frozen result. Floor: the same SDK's raw streaming create, reading the ` +
        `same events and keeping the text, without a signal and with a fresh \`AbortController\`'s signal per call (a run hands the SDK its own, so it can be cancelled). ${processes} processes one after another, each warming up every contender and then running ${rounds} ABBA rounds of ${batch} sequential turns per contender (short rounds, so drift in this VM's speed reaches every contender alike); per process, ratio = p50 over all its rounds vs the baseline's; shown: the median over the processes (in brackets: the lowest and highest process).`,
      tables: [
        {
          head: [
            "path",
            "p50 ms",
            "p99 ms",
            "p50 vs bare SDK",
            "p50 vs bare SDK + signal",
            "client CPU µs/turn",
            "CPU vs bare SDK + signal",
          ],
          rows,
        },
      ],
      goals,
      notes: [
        "All contenders use the same SDK client code path and the same loopback connection pool; against the bare call with a signal, the difference is the adapter (request building, tool-name map, event dispatch) and the loop (messages, events, result).",
        "Client CPU is this process's user+system CPU per turn over each batch (GC threads included); the fake API runs in its own process. On a shared 2-vCPU machine it moves less than wall time, so it shows what the adapter and the loop add even when latency rounds spread.",
        "The signal is the SDKs' cost, not the loop's: the openai SDK keeps each request's abort listener behind a WeakRef and a FinalizationRegistry, which the bare call pays too once it passes one.",
      ],
    };
  } finally {
    await server?.stop();
  }
}

/** Benchmark 7. */
export const models: Suite = { id: "models", title: "Models", run };
