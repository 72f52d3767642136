/**
 * @module bench/suites/approvals.bench
 * Benchmark 5, approvals: decisions per second through `ApprovalServer` with
 * an Asker that answers at once, sequential and with 16 concurrent clients,
 * next to the SDK's low-level `Server` answering the same `approve` call with
 * a constant allow (the transport's floor for one decision).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { abba, medianRatio, roundRatios } from "../lib/abba.js";
import { concurrent, sdkHttpClient, sequential, type Caller } from "../lib/callers.js";
import { startServer, type ChildServer } from "../lib/child-server.js";
import { pick, type BenchConfig, type Suite } from "../lib/config.js";
import type { Section } from "../lib/report.js";
import { int, median, ms, percentile, ratio } from "../lib/stats.js";

const CONCURRENCY = 16;

function approveCaller(client: Client): Caller {
  return {
    async call(i) {
      const r = (await client.callTool({
        name: "approve",
        arguments: { tool_name: "Bash", input: { command: `echo ${i}` }, tool_use_id: `tu-${i}` },
      })) as CallToolResult;
      const first = r.content[0];
      const answer = JSON.parse(first?.type === "text" ? first.text : "{}") as { behavior?: string; updatedInput?: { command?: string } };
      if (answer.behavior !== "allow" || answer.updatedInput?.command !== `echo ${i}`)
        throw new Error(`decision ${i}: unexpected answer ${JSON.stringify(answer)}`);
    },
    close: () => client.close(),
  };
}

async function run(cfg: BenchConfig): Promise<Section> {
  const rounds = pick(cfg, 6, 3);
  const batch = pick(cfg, 150, 40);
  const perClient = pick(cfg, 40, 10);
  const names = ["approvals", "sdk-approve"] as const;
  const servers = new Map<string, ChildServer>();
  const one = new Map<string, Caller>();
  const pools = new Map<string, Caller[]>();
  try {
    for (const k of names) {
      const s = await startServer(k);
      servers.set(k, s);
      one.set(k, approveCaller(await sdkHttpClient(s.url, s.headers)));
      pools.set(
        k,
        await Promise.all(Array.from({ length: CONCURRENCY }, async () => approveCaller(await sdkHttpClient(s.url, s.headers)))),
      );
      await sequential(one.get(k)!, 100);
      await concurrent(pools.get(k)!, 5);
    }
    let next = 1000;
    const seq = await abba(names, rounds, (k) => {
      const start = next;
      next += batch;
      return sequential(one.get(k)!, batch, start);
    });
    const conc = await abba(names, rounds, (k) => {
      const start = next;
      next += CONCURRENCY * perClient;
      return concurrent(pools.get(k)!, perClient, start);
    });
    const p50 = (b: number[][]): number => percentile(b.flat(), 0.5);
    const tput = (b: { callsPerSec: number }[]): number => b.length / b.reduce((s, x) => s + 1 / x.callsPerSec, 0);
    const lr = medianRatio(roundRatios(seq, "approvals", "sdk-approve", p50));
    const tr = medianRatio(roundRatios(conc, "approvals", "sdk-approve", tput));
    const rows = names.map((k) => {
      const all = seq.get(k)!.flat(2);
      const c = conc.get(k)!.flat();
      return [
        k === "approvals" ? "ApprovalServer, Asker answers at once" : "SDK Server, constant allow (floor)",
        ms(percentile(all, 0.5)),
        ms(percentile(all, 0.99)),
        int(1000 / percentile(all, 0.5)),
        int(median(c.map((x) => x.callsPerSec))),
        k === "approvals" ? `${ratio(lr.median)} / ${ratio(tr.median)}` : "1.00x / 1.00x",
      ];
    });
    return {
      id: "approvals",
      title: "5. Approvals (decisions per second through ApprovalServer)",
      method:
        `Both servers run in child processes; each decision is one \`approve\` tools/call from a raw SDK \`Client\` ` +
        `({ tool_name: "Bash", input: { command } }), its allow answer checked. ${rounds} ABBA rounds of ${batch} sequential decisions, and of ` +
        `${CONCURRENCY} concurrent clients x ${perClient} decisions. The ApprovalServer path includes the decision table, the audit record and the gate.check emission.`,
      tables: [
        {
          head: [
            "server",
            "p50 ms",
            "p99 ms",
            "sequential decisions/s (1000/p50)",
            `${CONCURRENCY}-client decisions/s`,
            "latency / throughput vs floor",
          ],
          rows,
        },
      ],
      goals: [],
      notes: [
        "ApprovalServer keeps every decision in `decisions` (its audit trail, by design), so its memory grows per decision until the server is dropped.",
      ],
    };
  } finally {
    await Promise.allSettled([...pools.values()].flat().map((c) => c.close()));
    await Promise.allSettled([...one.values()].map((c) => c.close()));
    await Promise.allSettled([...servers.values()].map((s) => s.stop()));
  }
}

/** Benchmark 5. */
export const approvals: Suite = { id: "approvals", title: "Approvals", run };
