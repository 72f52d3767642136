/**
 * @module bench/suites/client.bench
 * Benchmark 2, client overhead: an `mcpTools()` tool's `run()` (through
 * `MCPClient`) vs the raw SDK `Client.callTool`, against the same server — a
 * raw SDK server, over stdio (each client spawns its own copy) and over
 * streamable HTTP (one child process, one session per client).
 */
import { fileURLToPath } from "node:url";
import { RunContext } from "arc-agentkit";
import { MCPClient, StdioServer, StreamableHttpServer, mcpTools } from "arc-agentkit/mcp";
import { medianRatio, roundRatios } from "../lib/abba.js";
import { checkEcho, interleaved, sdkCaller, sdkHttpClient, sdkStdioClient, sequential, type Caller } from "../lib/callers.js";
import { startServer } from "../lib/child-server.js";
import { pick, type BenchConfig, type Suite } from "../lib/config.js";
import type { Goal, Section } from "../lib/report.js";
import { int, ms, percentile, ratio } from "../lib/stats.js";
import { ECHO, echoArgs } from "../servers/echo.js";

const stdioScript = fileURLToPath(new URL("../servers/stdio-server.js", import.meta.url));

/** Our path: `MCPClient` -> `mcpTools()` -> the echo tool's `run(args, ctx)` (text out). */
async function agentkitCaller(client: MCPClient): Promise<Caller> {
  const echo = (await mcpTools(client)).find((t) => t.name === ECHO)!;
  const ctx = new RunContext();
  return {
    async call(i) {
      checkEcho(i, await echo.run(echoArgs(i), ctx));
    },
    close: () => client.close(),
  };
}

async function run(cfg: BenchConfig): Promise<Section> {
  const warm = pick(cfg, 200, 50);
  const rounds = pick(cfg, 12, 4);
  // A stdio round trip is ~0.2 ms: bigger batches, so one scheduling hiccup does not decide a round.
  const batchFor = (transport: string): number => (transport === "stdio" ? pick(cfg, 500, 100) : pick(cfg, 125, 50));
  const rows: string[][] = [];
  const goals: Goal[] = [];
  const http = await startServer("sdk");
  const callers: Caller[] = [];
  try {
    const transports: Array<{ name: string; ours: () => Promise<Caller>; raw: () => Promise<Caller> }> = [
      {
        name: "stdio",
        ours: async () => agentkitCaller(await MCPClient.open(new StdioServer({ command: process.execPath, args: [stdioScript], stderr: "inherit" }))),
        raw: async () => {
          const c = await sdkStdioClient(stdioScript);
          await c.listTools();
          return sdkCaller(c);
        },
      },
      {
        name: "HTTP",
        ours: async () => agentkitCaller(await MCPClient.open(new StreamableHttpServer({ url: http.url, headers: http.headers }))),
        raw: async () => sdkCaller(await sdkHttpClient(http.url, http.headers)),
      },
    ];
    for (const t of transports) {
      const ours = await t.ours();
      const raw = await t.raw();
      callers.push(ours, raw);
      await sequential(ours, warm);
      await sequential(raw, warm);
      const batch = batchFor(t.name);
      cfg.log(`client ${t.name}: ${rounds} rounds x ${2 * batch} interleaved calls each`);
      let next = 1_000_000;
      const res = new Map<string, number[][][]>([
        ["agentkit", []],
        ["sdk", []],
      ]);
      for (let r = 0; r < rounds; r++) {
        // Which client leads each pair alternates within the round; the first one alternates between rounds.
        const pair = r % 2 ? [raw, ours] : [ours, raw];
        const lat = await interleaved(pair, 2 * batch, next);
        next += 4 * batch;
        const [mine, theirs] = r % 2 ? [lat[1]!, lat[0]!] : [lat[0]!, lat[1]!];
        res.get("agentkit")!.push([mine]);
        res.get("sdk")!.push([theirs]);
      }
      const p50 = (b: number[][]): number => percentile(b.flat(), 0.5);
      const r = medianRatio(roundRatios(res, "agentkit", "sdk", p50));
      for (const n of ["agentkit", "sdk"]) {
        const all = res.get(n)!.flat(2);
        rows.push([
          t.name,
          n === "agentkit" ? "agentkit mcpTools() tool.run" : "raw SDK Client.callTool",
          int(all.length),
          ms(percentile(all, 0.5)),
          ms(percentile(all, 0.99)),
          n === "sdk" ? "1.00x" : `${ratio(r.median)} (${r.min.toFixed(2)}–${r.max.toFixed(2)})`,
        ]);
      }
      goals.push({
        goal: `client overhead over ${t.name} within 1.05x of the raw SDK`,
        measured: `median of ${rounds} per-round p50 ratios ${ratio(r.median)} (range ${r.min.toFixed(2)}–${r.max.toFixed(2)})`,
        met: r.median <= 1.05,
      });
    }
  } finally {
    await Promise.allSettled(callers.map((c) => c.close()));
    await http.stop();
  }
  return {
    id: "client",
    title: "2. Client overhead (mcpTools() tool run vs SDK Client.callTool)",
    method:
      `The server is the SDK's low-level \`Server\` with the echo tool: for stdio each client spawns its own copy (\`node build/bench/servers/stdio-server.js\`); ` +
      `for HTTP one child process (stateful, SSE responses) serves both clients, each with its own session. Ours is \`MCPClient.open()\` -> \`mcpTools()\` -> ` +
      `\`tool.run(args, ctx)\` (a \`RunContext\` per run, text flattening included); the raw side is \`Client.callTool()\` after one \`listTools()\`. ` +
      `${warm} warm-up calls each, then ${rounds} rounds in which the two clients alternate single calls (A B, B A, ...: ${2 * batchFor("stdio")} calls each per round on stdio, ${2 * batchFor("HTTP")} on HTTP), so both see the same moment of a shared VM; ratio = median of per-round p50 ratios. ` +
      "Our stdio transport starts the server as the leader of its own process group (so closing ends the whole tree) and passes the whole parent environment (the seed's env overlays the parent's); the SDK's passes six variables.",
    tables: [{ head: ["transport", "client", "calls", "p50 ms", "p99 ms", "p50 vs SDK"], rows }],
    goals,
    notes: [],
  };
}

/** Benchmark 2. */
export const client: Suite = { id: "client", title: "Client overhead", run };
