/**
 * @module bench/suites/budgets.bench
 * Benchmark 10, served results within a budget (issue 41): what the budget costs a result
 * under it — the same served module, a short answer, with `results: {}` (the
 * budget checked on every call) against without (every result goes out
 * whole), ABBA rounds — and what a spill of 1 MB costs end to end: a served
 * call whose tool returns 1 MB (JSON records, or plain text) answered with a
 * preview, a note and a link, the whole kept in the module's in-process
 * store, against the same call answering a short result.
 */
import { RunContext, tool } from "arc-agentkit";
import { serveRegistry, type McpServerSpec } from "arc-agentkit/mcp";
import { abba, medianRatio, roundRatios } from "../lib/abba.js";
import { sdk2HttpClient } from "../lib/callers.js";
import { pick, type BenchConfig, type Suite } from "../lib/config.js";
import type { Goal, Section } from "../lib/report.js";
import { int, ms, percentile, ratio } from "../lib/stats.js";

/** About 1,000,000 characters of JSON: an array of small records. */
function megabyteJson(): string {
  const rows: Array<{ id: number; name: string; tags: string[] }> = [];
  for (let i = 0, n = 2; n < 1_000_000; i++) {
    const row = { id: i, name: `record-${i}`, tags: ["alpha", "beta", `t${i % 7}`] };
    rows.push(row);
    n += JSON.stringify(row).length + 1;
  }
  return JSON.stringify(rows);
}

const JSON_MB = megabyteJson();
const TEXT_MB = "lorem ipsum dolor sit amet ".repeat(Math.ceil(1_000_000 / 27)).slice(0, 1_000_000);

const tools = [
  tool({ name: "short", description: "A short answer.", sideEffecting: false }, () => "a short answer, well under any budget"),
  tool({ name: "json_mb", description: "1 MB of JSON.", sideEffecting: false }, () => JSON_MB),
  tool({ name: "text_mb", description: "1 MB of text.", sideEffecting: false }, () => TEXT_MB),
];

type Client = Awaited<ReturnType<typeof sdk2HttpClient>>;

async function open(results: boolean): Promise<{ spec: McpServerSpec; client: Client }> {
  const spec = await serveRegistry(tools, { name: "budgets", ctx: new RunContext(), ...(results ? { results: {} } : {}) });
  await spec.start();
  const client = await sdk2HttpClient(spec.url!, { ...spec.authHeaders });
  return { spec, client };
}

async function timed(n: number, op: () => Promise<unknown>): Promise<number[]> {
  const lat: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await op();
    lat.push(performance.now() - t0);
  }
  return lat;
}

/** One call of `name`; checks a spilled answer came back (a link), or a short one whole. */
async function call(c: Client, name: string): Promise<void> {
  const r = (await c.callTool({ name, arguments: {} })) as { content: Array<{ type: string; text?: string }>; isError?: boolean };
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content).slice(0, 200)}`);
  const spilled = r.content.some((b) => b.type === "resource_link");
  if (spilled !== (name !== "short")) throw new Error(`${name}: expected ${name === "short" ? "a whole" : "a spilled"} answer`);
}

async function run(cfg: BenchConfig): Promise<Section> {
  const rounds = pick(cfg, 8, 2);
  const batchN = pick(cfg, 300, 60);
  const spillN = pick(cfg, 60, 12);
  const on = await open(true);
  const off = await open(false);
  try {
    const clients: Record<string, Client> = { "budgets on": on.client, "budgets off": off.client };
    for (const c of Object.values(clients)) await timed(100, () => call(c, "short"));
    const results = await abba(Object.keys(clients), rounds, (name) => timed(batchN, () => call(clients[name]!, "short")));
    const p50 = (batches: number[][]): number => percentile(batches.flat(), 0.5);
    const under = medianRatio(roundRatios(results, "budgets on", "budgets off", p50));
    const onLat = [...results.get("budgets on")!].flat(2);
    const offLat = [...results.get("budgets off")!].flat(2);
    await timed(5, () => call(on.client, "json_mb"));
    await timed(5, () => call(on.client, "text_mb"));
    const jsonLat = await timed(spillN, () => call(on.client, "json_mb"));
    const textLat = await timed(spillN, () => call(on.client, "text_mb"));
    const shortLat = await timed(spillN, () => call(on.client, "short"));
    const goals: Goal[] = [
      {
        goal: "a result under its budget: p50 within 1.02x of a served call with budgets off",
        measured: `${ratio(under.median)} (rounds ${ratio(under.min)}–${ratio(under.max)})`,
        met: under.median <= 1.02,
      },
      {
        goal: "a spill of 1 MB under 20 ms p50, store included",
        measured: `JSON ${ms(percentile(jsonLat, 0.5))} ms, text ${ms(percentile(textLat, 0.5))} ms (whole served calls; a short call ${ms(percentile(shortLat, 0.5))} ms)`,
        met: percentile(jsonLat, 0.5) < 20 && percentile(textLat, 0.5) < 20,
      },
    ];
    const row = (what: string, lat: number[]): string[] => [what, int(lat.length), ms(percentile(lat, 0.5)), ms(percentile(lat, 0.99))];
    return {
      id: "budgets",
      title: "10. Served results within a budget (results, read_result)",
      method:
        "One process: two `serveRegistry` modules of the same three tools on loopback HTTP, one with `results: {}` (20,000-character budget), one without; an SDK v2 client each. " +
        `The cost under budget: ${rounds} ABBA rounds of ${batchN} sequential calls of a short tool per contender, the median of the per-round p50 ratios. ` +
        `The spill: ${spillN} sequential calls of a tool returning 1,000,000 characters (JSON records; plain text), each answered with a preview, a note and a resource_link, the whole kept in the module's MemoryResultStore — ` +
        "the whole served call, so the tool, the spill, the store and the 20,000-character answer on the wire are all in the number.",
      tables: [
        {
          head: ["operation", "ops", "p50 ms", "p99 ms"],
          rows: [
            row("short result, budgets on", onLat),
            row("short result, budgets off", offLat),
            row("1 MB JSON, spilled", jsonLat),
            row("1 MB text, spilled", textLat),
            row("short result (same client, beside the spills)", shortLat),
          ],
        },
      ],
      goals,
      notes: [],
    };
  } finally {
    await on.client.close();
    await off.client.close();
    await on.spec.stop();
    await off.spec.stop();
  }
}

/** Served results within a budget. */
export const budgets: Suite = { id: "budgets", title: "Result budgets", run };
