/**
 * @module bench/suites/hosted.bench
 * Hosting overhead: `tools/call` through arc-agentkit/express (`mcpRouter` on
 * an express app) vs the raw SDK v2 server through its own express adapter
 * (`createMcpExpressApp` + `requireBearerAuth` + `createMcpHandler`, stateless),
 * side by side in one run, for each protocol era: an SDK v2 client pinned to
 * 2026-07-28 and one pinned to 2025-11-25. Both servers run in child
 * processes with the same token verifier; the clients run here.
 */
import { abba, medianRatio, roundRatios } from "../lib/abba.js";
import { concurrent, sequential, v2Caller, type Caller } from "../lib/callers.js";
import { startServer, type ChildServer } from "../lib/child-server.js";
import { pick, type BenchConfig, type Suite } from "../lib/config.js";
import type { Goal, Section } from "../lib/report.js";
import { int, median, ms, percentile, ratio } from "../lib/stats.js";

type Era = "2026-07-28" | "2025-11-25";
/** A contender: a server kind reached by a client of one era. */
interface Contender {
  readonly id: string;
  readonly kind: "hosted" | "sdk-express";
  readonly era: Era;
  readonly label: string;
  /** The id of the row this one is compared with (itself for a baseline). */
  readonly baseline: string;
}

const CONTENDERS: readonly Contender[] = [
  {
    id: "hosted-2026",
    kind: "hosted",
    era: "2026-07-28",
    label: "agentkit mcpRouter on express, client on 2026-07-28",
    baseline: "sdk-2026",
  },
  {
    id: "sdk-2026",
    kind: "sdk-express",
    era: "2026-07-28",
    label: "raw SDK v2 express adapter, client on 2026-07-28 (baseline)",
    baseline: "sdk-2026",
  },
  {
    id: "hosted-2025",
    kind: "hosted",
    era: "2025-11-25",
    label: "agentkit mcpRouter on express, client on 2025-11-25 (stateless)",
    baseline: "sdk-2025",
  },
  {
    id: "sdk-2025",
    kind: "sdk-express",
    era: "2025-11-25",
    label: "raw SDK v2 express adapter, client on 2025-11-25 (baseline)",
    baseline: "sdk-2025",
  },
];
const IDS = CONTENDERS.map((c) => c.id);
const CONCURRENCY = 16;

async function run(cfg: BenchConfig): Promise<Section> {
  const warm = pick(cfg, 200, 30);
  const rounds = pick(cfg, 6, 2);
  const batch = pick(cfg, 100, 25);
  const cRounds = pick(cfg, 6, 2);
  const perClient = pick(cfg, 40, 8);
  const servers = new Map<string, ChildServer>();
  const callers = new Map<string, Caller>();
  const pools = new Map<string, Caller[]>();
  try {
    for (const kind of ["hosted", "sdk-express"] as const) servers.set(kind, await startServer(kind));
    for (const c of CONTENDERS) {
      const s = servers.get(c.kind)!;
      callers.set(c.id, await v2Caller(s.url, s.headers, c.era));
      pools.set(c.id, await Promise.all(Array.from({ length: CONCURRENCY }, () => v2Caller(s.url, s.headers, c.era))));
    }
    cfg.log(`hosted: warm-up ${warm} calls each`);
    for (const id of IDS) {
      await sequential(callers.get(id)!, warm);
      await concurrent(pools.get(id)!, 5);
    }
    cfg.log(`hosted: ${rounds} ABBA rounds x 2 x ${batch} sequential calls`);
    let next = 1_000_000;
    const seq = await abba(IDS, rounds, (id) => {
      const start = next;
      next += batch;
      return sequential(callers.get(id)!, batch, start);
    });
    cfg.log(`hosted: ${cRounds} ABBA rounds of ${CONCURRENCY} concurrent clients x ${perClient} calls`);
    const conc = await abba(IDS, cRounds, async (id) => {
      const start = next;
      next += CONCURRENCY * perClient;
      const server = servers.get(CONTENDERS.find((c) => c.id === id)!.kind)!;
      const cpu0 = await server.cpu();
      const r = await concurrent(pools.get(id)!, perClient, start);
      return { ...r, serverCpuUs: (await server.cpu()) - cpu0, calls: CONCURRENCY * perClient };
    });
    const p50 = (batches: number[][]): number => percentile(batches.flat(), 0.5);
    const tput = (batches: { callsPerSec: number }[]): number => batches.length / batches.reduce((s, b) => s + 1 / b.callsPerSec, 0);
    const cpuPerCall = (batches: { serverCpuUs: number; calls: number }[]): number =>
      batches.reduce((s, b) => s + b.serverCpuUs, 0) / batches.reduce((s, b) => s + b.calls, 0);
    const rows: string[][] = [];
    const lat = new Map<string, ReturnType<typeof medianRatio>>();
    const thr = new Map<string, ReturnType<typeof medianRatio>>();
    for (const c of CONTENDERS) {
      const all = seq.get(c.id)!.flat(2);
      const base = c.baseline === c.id;
      const lr = medianRatio(roundRatios(seq, c.id, c.baseline, p50));
      const tr = medianRatio(roundRatios(conc, c.id, c.baseline, tput));
      const cr = medianRatio(roundRatios(conc, c.id, c.baseline, cpuPerCall));
      lat.set(c.id, lr);
      thr.set(c.id, tr);
      const cAll = conc.get(c.id)!.flat();
      const shown = (r: { median: number; min: number; max: number }): string =>
        base ? "1.00x" : `${ratio(r.median)} (${r.min.toFixed(2)}–${r.max.toFixed(2)})`;
      rows.push([
        c.label,
        int(all.length),
        ms(percentile(all, 0.5)),
        ms(percentile(all, 0.99)),
        shown(lr),
        int(median(cAll.map((b) => b.callsPerSec))),
        shown(tr),
        int(median(conc.get(c.id)!.map(cpuPerCall))),
        shown(cr),
      ]);
    }
    const goals: Goal[] = [];
    for (const id of ["hosted-2026", "hosted-2025"]) {
      const era = CONTENDERS.find((c) => c.id === id)!.era;
      const l = lat.get(id)!;
      const t = thr.get(id)!;
      goals.push(
        {
          goal: `hosted p50 within 1.10x of the raw SDK v2 express adapter (${era})`,
          measured: `median of ${rounds} per-round p50 ratios ${ratio(l.median)} (range ${l.min.toFixed(2)}–${l.max.toFixed(2)})`,
          met: l.median <= 1.1,
        },
        {
          goal: `hosted throughput with ${CONCURRENCY} concurrent clients at least the raw SDK v2 express adapter's (${era})`,
          measured: `median of ${cRounds} per-round throughput ratios ${ratio(t.median)} (range ${t.min.toFixed(2)}–${t.max.toFixed(2)})`,
          met: t.median >= 1.0,
        },
      );
    }
    return {
      id: "hosted",
      title: "Hosting overhead (tools/call through express, OAuth resource server, stateless)",
      method:
        `Two servers in child processes (\`node build/bench/servers/http-server.js hosted|sdk-express\`) on 127.0.0.1, each checking the same bearer token ` +
        `through its verifyAccessToken (a SHA-256 digest compare): arc-agentkit/express's mcpRouter([echo]) mounted at /mcp of an express 5 app (rate limit off), ` +
        `and the SDK v2 server as its express adapter wires it: createMcpExpressApp (host check, JSON body), requireBearerAuth, toNodeHandler(createMcpHandler(factory, { legacy: "stateless" })) ` +
        `with one McpServer per request. Clients: SDK v2 Client pinned to 2026-07-28 (per-request _meta, no session) and to 2025-11-25 (stateless legacy leg), one connection each; ` +
        `every answer is checked to be its own call's. ${warm} warm-up calls, then ${rounds} ABBA rounds of ${batch} sequential calls per batch ` +
        `(${2 * rounds * batch} per contender); the ratio is the median of per-round p50 ratios against the same era's SDK row. ` +
        `Throughput: ${CONCURRENCY} clients making ${perClient} sequential calls each, all at once, ${cRounds} ABBA rounds; "server CPU" is the server process's user + system CPU per call.`,
      tables: [
        {
          head: [
            "server",
            "calls",
            "p50 ms",
            "p99 ms",
            "p50 vs SDK",
            `${CONCURRENCY}-client calls/s`,
            "throughput vs SDK",
            "server CPU µs/call under load",
            "server CPU vs SDK",
          ],
          rows,
        },
      ],
      goals,
      notes: [],
    };
  } finally {
    for (const c of [...callers.values(), ...[...pools.values()].flat()]) await c.close().catch(() => {});
    for (const s of servers.values()) await s.stop();
  }
}

/** The hosting benchmark (`--only=hosted`). */
export const hosted: Suite = { id: "hosted", title: "Hosting overhead", run };
