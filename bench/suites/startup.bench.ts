/**
 * @module bench/suites/startup.bench
 * Benchmark 4, stdio startup: `MCPClient.open(StdioServer)` plus the first
 * `callTool` vs the raw SDK (`Client.connect(StdioClientTransport)` plus the
 * first `callTool`), spawning the same server script; close timed separately.
 */
import { fileURLToPath } from "node:url";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { MCPClient, StdioServer } from "arc-agentkit/mcp";
import { abba, medianRatio, roundRatios } from "../lib/abba.js";
import { checkEcho, sdkStdioClient } from "../lib/callers.js";
import { pick, type BenchConfig, type Suite } from "../lib/config.js";
import type { Goal, Section } from "../lib/report.js";
import { int, median, ms, percentile, ratio } from "../lib/stats.js";
import { ECHO, echoArgs } from "../servers/echo.js";

const stdioScript = fileURLToPath(new URL("../servers/stdio-server.js", import.meta.url));

interface Sample {
  readonly openAndCall: number;
  readonly close: number;
}

function text(r: CallToolResult): string | undefined {
  const first = r.content[0];
  return first?.type === "text" ? first.text : undefined;
}

async function ours(i: number): Promise<Sample> {
  const t0 = performance.now();
  const c = await MCPClient.open(new StdioServer({ command: process.execPath, args: [stdioScript], stderr: "inherit" }));
  checkEcho(i, text(await c.callTool(ECHO, echoArgs(i))));
  const t1 = performance.now();
  await c.close();
  return { openAndCall: t1 - t0, close: performance.now() - t1 };
}

async function raw(i: number): Promise<Sample> {
  const t0 = performance.now();
  const c = await sdkStdioClient(stdioScript);
  checkEcho(i, text((await c.callTool({ name: ECHO, arguments: echoArgs(i) })) as CallToolResult));
  const t1 = performance.now();
  await c.close();
  return { openAndCall: t1 - t0, close: performance.now() - t1 };
}

async function run(cfg: BenchConfig): Promise<Section> {
  const rounds = pick(cfg, 10, 3);
  await ours(0);
  await raw(0);
  let i = 1;
  const res = await abba(["agentkit", "sdk"], rounds, (n) => (n === "agentkit" ? ours(i++) : raw(i++)));
  const r = medianRatio(roundRatios(res, "agentkit", "sdk", (b) => median(b.map((s) => s.openAndCall))));
  const rows = ["agentkit", "sdk"].map((n) => {
    const all = res.get(n)!.flat();
    const oc = all.map((s) => s.openAndCall);
    return [
      n === "agentkit" ? "MCPClient.open + first callTool" : "raw SDK connect + first callTool",
      int(all.length),
      ms(percentile(oc, 0.5)),
      ms(Math.max(...oc)),
      n === "sdk" ? "1.00x" : `${ratio(r.median)} (${r.min.toFixed(2)}–${r.max.toFixed(2)})`,
      ms(percentile(all.map((s) => s.close), 0.5)),
    ];
  });
  const goals: Goal[] = [];
  return {
    id: "startup",
    title: "4. Stdio startup (open + first call)",
    method:
      `Each sample spawns \`node build/bench/servers/stdio-server.js\` (the SDK's low-level Server), initializes, makes one echo call, then closes. ` +
      `${rounds} ABBA rounds, one sample per batch (${2 * rounds} samples each). Close is timed apart: ours ends the server's whole process group; ` +
      "the SDK's `close()` ends stdin and waits for the child.",
    tables: [{ head: ["client", "samples", "p50 ms", "max ms", "p50 vs SDK", "close p50 ms"], rows }],
    goals,
    notes: [
      "Ours passes the whole parent environment to the server (the seed's `env` overlays the parent's); the SDK passes six variables. On this machine that includes NODE_EXTRA_CA_CERTS, which makes every Node child parse a CA bundle at start: measured apart, the raw SDK with the full environment took ~35 ms longer per start than with its default one. The rest of the gap is the process-group spawn and the tree-ending close.",
    ],
  };
}

/** Benchmark 4. */
export const startup: Suite = { id: "startup", title: "Stdio startup", run };
