/**
 * @module bench/suites/serving.bench
 * Benchmark 1, serving overhead: `tools/call` round trips through
 * `serveRegistry` vs the SDK v2's low-level `Server` (same tool, same era,
 * same transport choice: stateful streamable HTTP, SSE responses — the goal's
 * anchor) vs the SDK v1's (the v1-era figure) vs fastmcp vs a bare express
 * JSON echo (the floor), all on 2025-11-25; and on 2026-07-28 the same
 * `serveRegistry` endpoint vs the SDK v2's `createMcpHandler` on node:http.
 * Every server runs in its own child process; the clients (one raw SDK v2
 * `Client` per connection, pinned to the row's era) run in the benchmark process.
 */
import { abba, medianRatio, roundRatios } from "../lib/abba.js";
import { concurrent, fetchEchoCaller, sdk2Caller, sdk2HttpClient, sequential, type Caller, type Era } from "../lib/callers.js";
import { startServer, type ChildServer, type ServerKind } from "../lib/child-server.js";
import { pick, type BenchConfig, type Suite } from "../lib/config.js";
import type { Goal, Section } from "../lib/report.js";
import { int, median, ms, percentile, ratio } from "../lib/stats.js";

/** One row: a server kind called in one era (the agentkit server answers both eras on one URL: one process, two rows). */
interface Contender {
  readonly id: string;
  readonly kind: ServerKind;
  readonly era: Era;
  readonly label: string;
  /** The contender its ratios are taken against. */
  readonly anchor: string;
}

const CONTENDERS: readonly Contender[] = [
  { id: "agentkit", kind: "agentkit", era: "2025-11-25", label: "agentkit serveRegistry", anchor: "sdk2" },
  {
    id: "sdk2",
    kind: "sdk2",
    era: "2025-11-25",
    label: "raw SDK v2 low-level Server + NodeStreamableHTTPServerTransport (anchor)",
    anchor: "sdk2",
  },
  {
    id: "sdk",
    kind: "sdk",
    era: "2025-11-25",
    label: "raw SDK v1 low-level Server + StreamableHTTPServerTransport (v1-era figure)",
    anchor: "sdk2",
  },
  { id: "fastmcp", kind: "fastmcp", era: "2025-11-25", label: "fastmcp 4.20.16 (httpStream)", anchor: "sdk2" },
  { id: "express", kind: "express", era: "2025-11-25", label: "express JSON echo, no MCP (floor)", anchor: "sdk2" },
  { id: "agentkit-2026", kind: "agentkit", era: "2026-07-28", label: "agentkit serveRegistry (the same endpoint)", anchor: "sdk2-modern" },
  {
    id: "sdk2-modern",
    kind: "sdk2-modern",
    era: "2026-07-28",
    label: "raw SDK v2 createMcpHandler via toNodeHandler (anchor)",
    anchor: "sdk2-modern",
  },
];
const BY_ID = new Map(CONTENDERS.map((c) => [c.id, c]));
const IDS = CONTENDERS.map((c) => c.id);
const CONCURRENCY = 16;

async function callerFor(server: ChildServer, era: Era): Promise<Caller> {
  return server.kind === "express"
    ? fetchEchoCaller(server.url, server.headers)
    : sdk2Caller(await sdk2HttpClient(server.url, server.headers, era));
}

async function run(cfg: BenchConfig): Promise<Section> {
  const warm = pick(cfg, 200, 50);
  const rounds = pick(cfg, 8, 4);
  const batch = pick(cfg, 125, 50); // 2 batches per round: 2,000 sequential calls per contender in full
  const cRounds = pick(cfg, 8, 2);
  const perClient = pick(cfg, 50, 15);
  const servers = new Map<string, ChildServer>();
  const callers = new Map<string, Caller>();
  const pools = new Map<string, Caller[]>();
  try {
    for (const c of CONTENDERS) {
      let s = servers.get(c.kind);
      if (!s) servers.set(c.kind, (s = await startServer(c.kind)));
      callers.set(c.id, await callerFor(s, c.era));
      pools.set(c.id, await Promise.all(Array.from({ length: CONCURRENCY }, () => callerFor(s, c.era))));
    }
    cfg.log(`serving: warm-up ${warm} calls each`);
    for (const k of IDS) {
      await sequential(callers.get(k)!, warm);
      await concurrent(pools.get(k)!, 10);
    }
    // Socket writes per response, outside the timed batches.
    const writes = new Map<string, number>();
    for (const k of IDS) {
      const server = servers.get(BY_ID.get(k)!.kind)!;
      const before = await server.memory();
      await sequential(callers.get(k)!, 200);
      const after = await server.memory();
      writes.set(k, (after.socketWrites - before.socketWrites) / 200);
    }
    cfg.log(`serving: ${rounds} ABBA rounds x 2 x ${batch} sequential calls`);
    let next = 1_000_000;
    const seq = await abba(IDS, rounds, (k) => {
      const start = next;
      next += batch;
      return sequential(callers.get(k)!, batch, start);
    });
    cfg.log(`serving: ${cRounds} ABBA rounds of ${CONCURRENCY} concurrent clients x ${perClient} calls`);
    const conc = await abba(IDS, cRounds, async (k) => {
      const start = next;
      next += CONCURRENCY * perClient;
      const server = servers.get(BY_ID.get(k)!.kind)!;
      const cpu0 = await server.cpu();
      const r = await concurrent(pools.get(k)!, perClient, start);
      return { ...r, serverCpuUs: (await server.cpu()) - cpu0, calls: CONCURRENCY * perClient };
    });
    const p50 = (batches: number[][]): number => percentile(batches.flat(), 0.5);
    // Throughput of a round: all its calls over all its time.
    const tput = (batches: { callsPerSec: number }[]): number => batches.length / batches.reduce((s, b) => s + 1 / b.callsPerSec, 0);
    const rows: string[][] = [];
    const ratios = new Map<string, ReturnType<typeof medianRatio>>();
    const tputRatios = new Map<string, ReturnType<typeof medianRatio>>();
    // Server CPU per call over a round's batches (the child's own user + system CPU).
    const cpuPerCall = (batches: { serverCpuUs: number; calls: number }[]): number =>
      batches.reduce((s, b) => s + b.serverCpuUs, 0) / batches.reduce((s, b) => s + b.calls, 0);
    for (const c of CONTENDERS) {
      const k = c.id;
      const base = c.anchor === k;
      const all = seq.get(k)!.flat(2);
      const lr = medianRatio(roundRatios(seq, k, c.anchor, p50));
      const tr = medianRatio(roundRatios(conc, k, c.anchor, tput));
      const cr = medianRatio(roundRatios(conc, k, c.anchor, cpuPerCall));
      ratios.set(k, lr);
      tputRatios.set(k, tr);
      const cAll = conc.get(k)!.flat();
      rows.push([
        c.era,
        c.label,
        int(all.length),
        ms(percentile(all, 0.5)),
        ms(percentile(all, 0.99)),
        base ? "1.00x" : `${ratio(lr.median)} (${lr.min.toFixed(2)}–${lr.max.toFixed(2)})`,
        int(median(cAll.map((b) => b.callsPerSec))),
        ms(
          percentile(
            cAll.flatMap((b) => b.latencies),
            0.99,
          ),
        ),
        base ? "1.00x" : `${ratio(tr.median)} (${tr.min.toFixed(2)}–${tr.max.toFixed(2)})`,
        int(median(conc.get(k)!.map(cpuPerCall))),
        base ? "1.00x" : `${ratio(cr.median)} (${cr.min.toFixed(2)}–${cr.max.toFixed(2)})`,
        writes.get(k)!.toFixed(2),
      ]);
    }
    const lat = ratios.get("agentkit")!;
    const thr = tputRatios.get("agentkit")!;
    const modern = ratios.get("agentkit-2026")!;
    const modernThr = tputRatios.get("agentkit-2026")!;
    // What the 2026 path costs per call against the 2025 one, on the same agentkit endpoint (issue 27's closing note).
    const eraCost = medianRatio(roundRatios(seq, "agentkit-2026", "agentkit", p50));
    const eraCpu = medianRatio(roundRatios(conc, "agentkit-2026", "agentkit", cpuPerCall));
    const goals: Goal[] = [
      {
        goal: "p50 within 1.10x of the raw SDK v2 server (2025-11-25, stateful SSE)",
        measured: `median of ${rounds} per-round p50 ratios ${ratio(lat.median)} (range ${lat.min.toFixed(2)}–${lat.max.toFixed(2)})`,
        met: lat.median <= 1.1,
      },
      {
        goal: `throughput with ${CONCURRENCY} concurrent clients at least the raw SDK v2 server's (2025-11-25)`,
        measured: `median of ${cRounds} per-round throughput ratios ${ratio(thr.median)} (range ${thr.min.toFixed(2)}–${thr.max.toFixed(2)})`,
        met: thr.median >= 1.0,
        ...(thr.median < 1.0 && thr.median >= 0.95
          ? { note: "within the ±5 % round-to-round noise of this 2-core machine, but below 1.00 on this run" }
          : {}),
      },
      {
        goal: "2026-07-28: p50 within 1.10x of the raw SDK v2 createMcpHandler on node:http",
        measured: `median of ${rounds} per-round p50 ratios ${ratio(modern.median)} (range ${modern.min.toFixed(2)}–${modern.max.toFixed(2)})`,
        met: modern.median <= 1.1,
      },
      {
        goal: `2026-07-28: throughput with ${CONCURRENCY} concurrent clients at least the raw SDK v2 createMcpHandler's`,
        measured: `median of ${cRounds} per-round throughput ratios ${ratio(modernThr.median)} (range ${modernThr.min.toFixed(2)}–${modernThr.max.toFixed(2)})`,
        met: modernThr.median >= 1.0,
      },
    ];
    return {
      id: "serving",
      title: "1. Serving overhead (tools/call over loopback HTTP)",
      method:
        `Each server runs in its own child process (\`node build/bench/servers/http-server.js <kind>\`), bound to 127.0.0.1 with the same bearer check; ` +
        `the clients run in the benchmark process. MCP contenders are called through the raw SDK v2 \`Client\` on streamable HTTP, pinned to the row's era ` +
        `(2025-11-25: stateful sessions, SSE responses; 2026-07-28: no session, one POST per call), with the same \`AbortSignal.any\` fetch wrapper for all; the express floor through a bare \`fetch\`. ` +
        `Both agentkit rows are one \`serveRegistry\` process answering both eras on one URL; the 2026 anchor is what a v2 user writes for that era on node:http: ` +
        `\`toNodeHandler(createMcpHandler(factory, { legacy: "reject" }))\`, the body parsed first and handed over as ours is. Every call's answer is checked to be its own input. ` +
        `${warm} warm-up calls, then ${rounds} ABBA rounds over all ${CONTENDERS.length} rows (each runs twice per round, order palindromic and rotating) of ${batch} sequential calls per batch: ` +
        `${2 * rounds * batch} sequential calls per row. The ratio is the median of per-round p50 ratios against the row's era's anchor (2025: the raw SDK v2 server; 2026: createMcpHandler). ` +
        `Throughput: ${CONCURRENCY} clients (each its own connection and session) making ${perClient} sequential calls each, all at once, ${cRounds} ABBA rounds. ` +
        `"server CPU" is the server process's own user + system CPU over each throughput batch, per call (median over rounds; the ratio is the median of per-round ratios): ` +
        `with the clients on the same 2 cores, it shows what a server costs per call apart from how the CPU was shared. ` +
        `"writes/resp" counts the server's socket writes per sequential call (200 calls, outside the timed batches).`,
      tables: [
        {
          head: [
            "era",
            "server",
            "calls",
            "p50 ms",
            "p99 ms",
            "p50 vs anchor",
            `${CONCURRENCY}-client calls/s`,
            "p99 ms under load",
            "throughput vs anchor",
            "server CPU µs/call under load",
            "server CPU vs anchor",
            "writes/resp",
          ],
          rows,
        },
      ],
      goals,
      notes: [
        `The 2026-07-28 path on the same agentkit endpoint costs ${ratio(eraCost.median)} the 2025-11-25 one per sequential call (median of per-round p50 ratios, range ${eraCost.min.toFixed(2)}–${eraCost.max.toFixed(2)}) and ${ratio(eraCpu.median)} its server CPU per call under load. ` +
          "A 2026 call has no session to reuse: the SDK's createMcpHandler builds a fresh server per request (as the era asks) and answers through web Request/Response, which agentkit bridges from node:http without a second read of the body; the 2025 path keeps agentkit's own node:http transport and its sessions.",
      ],
    };
  } finally {
    await Promise.allSettled([...pools.values()].flat().map((c) => c.close()));
    await Promise.allSettled([...callers.values()].map((c) => c.close()));
    await Promise.allSettled([...servers.values()].map((s) => s.stop()));
  }
}

/** Benchmark 1. */
export const serving: Suite = { id: "serving", title: "Serving overhead", run };
