/**
 * @module bench/suites/client.bench
 * Benchmark 2, client overhead: an `mcpTools()` tool's `run()` (through
 * `MCPClient`) vs the raw SDK v2 `Client.callTool` (`@modelcontextprotocol/client`,
 * the goal's anchor) and, kept beside them for one release, the raw SDK v1
 * `Client.callTool` (the v1-era figure), against the same server in one
 * interleaved run: over stdio (each client spawns its own copy of a raw SDK
 * server), over streamable HTTP (one child process, one session per client),
 * both in the 2025-11-25 era, and over HTTP in the 2026-07-28 era against the
 * SDK v2's `createMcpHandler` (v2 clients only: v1 cannot speak it).
 */
import { fileURLToPath } from "node:url";
import { RunContext } from "arc-agentkit";
import { MCPClient, StdioServer, StreamableHttpServer, mcpTools } from "arc-agentkit/mcp";
import { medianRatio, roundRatios } from "../lib/abba.js";
import {
  checkEcho,
  interleaved,
  sdk2Caller,
  sdk2HttpClient,
  sdk2StdioClient,
  sdkCaller,
  sdkHttpClient,
  sdkStdioClient,
  sequential,
  type Caller,
} from "../lib/callers.js";
import { startServer, type ChildServer } from "../lib/child-server.js";
import { pick, type BenchConfig, type Suite } from "../lib/config.js";
import type { Goal, Section } from "../lib/report.js";
import { int, ms, percentile, ratio } from "../lib/stats.js";
import { ECHO, echoArgs } from "../servers/echo.js";

const stdioScript = fileURLToPath(new URL("../servers/stdio-server.js", import.meta.url));

/** Our path: `MCPClient` -> `mcpTools()` -> the echo tool's `run(args, ctx)` (text out); throws unless the client opened in `era`. */
async function agentkitCaller(client: MCPClient, era: string): Promise<Caller> {
  if (client.protocolVersion !== era) {
    await client.stop();
    throw new Error(`client bench: MCPClient opened ${client.protocolVersion ?? "no era"}, the row is for ${era}`);
  }
  const echo = (await mcpTools(client)).find((t) => t.name === ECHO)!;
  const ctx = new RunContext();
  return {
    async call(i) {
      checkEcho(i, await echo.run(echoArgs(i), ctx));
    },
    close: () => client.stop(),
  };
}

const CONTENDERS = ["agentkit", "sdk2", "sdk1"] as const;
type Contender = (typeof CONTENDERS)[number];
const LABEL: Record<Contender, string> = {
  agentkit: "agentkit mcpTools() tool.run",
  sdk2: "raw SDK v2 Client.callTool (anchor)",
  sdk1: "raw SDK v1 Client.callTool (v1-era figure)",
};

interface Transport {
  readonly name: string;
  readonly era: string;
  readonly open: Partial<Record<Contender, () => Promise<Caller>>>;
}

async function run(cfg: BenchConfig): Promise<Section> {
  const warm = pick(cfg, 200, 50);
  const rounds = pick(cfg, 12, 4);
  // A stdio round trip is ~0.2 ms: bigger batches, so one scheduling hiccup does not decide a round.
  const batchFor = (transport: string): number => (transport === "stdio" ? pick(cfg, 500, 100) : pick(cfg, 125, 50));
  const rows: string[][] = [];
  const goals: Goal[] = [];
  const servers: ChildServer[] = [];
  const callers: Caller[] = [];
  try {
    const http = await startServer("sdk");
    servers.push(http);
    const modern = await startServer("sdk2-modern");
    servers.push(modern);
    const transports: Transport[] = [
      {
        name: "stdio",
        era: "2025-11-25",
        open: {
          agentkit: async () =>
            agentkitCaller(
              await MCPClient.start(new StdioServer({ command: process.execPath, args: [stdioScript], stderr: "inherit" })),
              "2025-11-25",
            ),
          sdk2: async () => {
            const c = await sdk2StdioClient(stdioScript);
            await c.listTools();
            return sdk2Caller(c);
          },
          sdk1: async () => {
            const c = await sdkStdioClient(stdioScript);
            await c.listTools();
            return sdkCaller(c);
          },
        },
      },
      {
        name: "HTTP",
        era: "2025-11-25",
        open: {
          agentkit: async () =>
            agentkitCaller(await MCPClient.start(new StreamableHttpServer({ url: http.url, headers: http.headers })), "2025-11-25"),
          sdk2: async () => sdk2Caller(await sdk2HttpClient(http.url, http.headers)),
          sdk1: async () => sdkCaller(await sdkHttpClient(http.url, http.headers)),
        },
      },
      {
        name: "HTTP",
        era: "2026-07-28",
        open: {
          agentkit: async () =>
            agentkitCaller(
              await MCPClient.start(new StreamableHttpServer({ url: modern.url, headers: modern.headers, protocol: "2026-07-28" })),
              "2026-07-28",
            ),
          sdk2: async () => sdk2Caller(await sdk2HttpClient(modern.url, modern.headers, "2026-07-28")),
        },
      },
    ];
    for (const t of transports) {
      const names = CONTENDERS.filter((n) => t.open[n]);
      const opened: Caller[] = [];
      for (const n of names) {
        const c = await t.open[n]!();
        callers.push(c);
        opened.push(c);
        await sequential(c, warm);
      }
      const batch = batchFor(t.name);
      cfg.log(`client ${t.name} ${t.era}: ${rounds} rounds x ${2 * batch} interleaved calls each`);
      let next = 1_000_000;
      const res = new Map<string, number[][][]>(names.map((n) => [n, []]));
      for (let r = 0; r < rounds; r++) {
        // The leading client rotates from round to round; within a round the order alternates (A B C, C B A, ...).
        const order = names.map((_, k) => (k + r) % names.length);
        const lat = await interleaved(
          order.map((k) => opened[k]!),
          2 * batch,
          next,
        );
        next += 2 * batch * names.length + 1;
        order.forEach((k, j) => res.get(names[k]!)!.push([lat[j]!]));
      }
      const p50 = (b: number[][]): number => percentile(b.flat(), 0.5);
      const vs = (n: string, base: string): ReturnType<typeof medianRatio> => medianRatio(roundRatios(res, n, base, p50));
      for (const n of names) {
        const all = res.get(n)!.flat(2);
        const cell = (base: Contender): string => {
          if (!names.includes(base)) return "—";
          if (n === base) return "1.00x";
          const r = vs(n, base);
          return `${ratio(r.median)} (${r.min.toFixed(2)}–${r.max.toFixed(2)})`;
        };
        rows.push([
          t.name,
          t.era,
          LABEL[n],
          int(all.length),
          ms(percentile(all, 0.5)),
          ms(percentile(all, 0.99)),
          cell("sdk2"),
          cell("sdk1"),
        ]);
      }
      const r = vs("agentkit", "sdk2");
      goals.push({
        goal: `client overhead over ${t.name} (${t.era}) within 1.05x of the raw SDK v2 Client`,
        measured: `median of ${rounds} per-round p50 ratios ${ratio(r.median)} (range ${r.min.toFixed(2)}–${r.max.toFixed(2)})`,
        met: r.median <= 1.05,
      });
    }
  } finally {
    await Promise.allSettled(callers.map((c) => c.close()));
    await Promise.allSettled(servers.map((s) => s.stop()));
  }
  return {
    id: "client",
    title: "2. Client overhead (mcpTools() tool run vs SDK v2 and v1 Client.callTool)",
    method:
      `2025-11-25 rows: the server is the SDK v1's low-level \`Server\` with the echo tool (it speaks 2025 only, so every client lands in the same era; ours and the v2 client open with their default \`auto\` probe): ` +
      `for stdio each client spawns its own copy (\`node build/bench/servers/stdio-server.js\`); for HTTP one child process (stateful, SSE responses) serves every client, each with its own session. ` +
      `2026-07-28 rows: one child process serving the SDK v2's \`createMcpHandler(factory, { legacy: "reject" })\` on node:http; ours is opened with \`protocol: "2026-07-28"\`, the v2 client pinned to it. ` +
      `Ours is \`MCPClient.start()\` -> \`mcpTools()\` -> \`tool.run(args, ctx)\` (a \`RunContext\` per run, text flattening included; the era it opened in is checked); the raw sides are \`Client.callTool()\` after one \`listTools()\`, ` +
      `the HTTP ones with the same per-request \`AbortSignal.any\` fetch wrapper. ` +
      `${warm} warm-up calls each, then ${rounds} rounds in which the clients alternate single calls (A B C, C B A, ...; the leading client rotates per round: ${2 * batchFor("stdio")} calls each per round on stdio, ${2 * batchFor("HTTP")} on HTTP), so all see the same moment of a shared VM; ratio = median of per-round p50 ratios. ` +
      "The goal is judged against the v2 client; the v1 column keeps the v1-era figure for one release. " +
      "Our stdio transport starts the server as the leader of its own process group (so closing ends the whole tree) and passes the whole parent environment (the seed's env overlays the parent's); the SDK's passes six variables.",
    tables: [{ head: ["transport", "era", "client", "calls", "p50 ms", "p99 ms", "p50 vs SDK v2", "p50 vs SDK v1"], rows }],
    goals,
    notes: [],
  };
}

/** Benchmark 2. */
export const client: Suite = { id: "client", title: "Client overhead", run };
