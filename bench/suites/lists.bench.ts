/**
 * @module bench/suites/lists.bench
 * Benchmark 3, cached lists: `MCPClient.listTools()` from its cache vs a
 * forced refresh (vs the raw SDK listing every time), over a stdio server
 * with 50 tools; and an `mcpResources()` query over a server with 1,000
 * resources — warm (list cached), cold (TTL 0: list again every query), and
 * the raw SDK doing the same by hand (list, filter, read the top k).
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { MCPClient, StdioServer, mcpResources } from "arc-agentkit/mcp";
import { sdkStdioClient } from "../lib/callers.js";
import { pick, type BenchConfig, type Suite } from "../lib/config.js";
import type { Section } from "../lib/report.js";
import { int, ms, percentile } from "../lib/stats.js";

const stdioScript = fileURLToPath(new URL("../servers/stdio-server.js", import.meta.url));
const K = 5;

async function timed(n: number, op: (i: number) => Promise<unknown>): Promise<number[]> {
  const lat: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await op(i);
    lat.push(performance.now() - t0);
  }
  return lat;
}

function row(what: string, lat: number[]): string[] {
  return [what, int(lat.length), ms(percentile(lat, 0.5)), ms(percentile(lat, 0.99))];
}

/** The raw SDK equivalent of one `mcpResources` query: list every page, filter, rank, read the top k. */
async function rawQuery(c: Client, text: string): Promise<number> {
  const all = (await c.listResources()).resources;
  const needle = text.toLowerCase();
  const hits = all
    .map((r, order) => ({
      r,
      order,
      score: [r.name, r.description, r.uri].filter((f) => typeof f === "string" && f.toLowerCase().includes(needle)).length,
    }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, K);
  const read = await Promise.all(hits.map((h) => c.readResource({ uri: h.r.uri })));
  return read.length;
}

async function run(cfg: BenchConfig): Promise<Section> {
  const cachedN = pick(cfg, 10_000, 2_000);
  const refreshN = pick(cfg, 500, 100);
  const queryN = pick(cfg, 200, 40);
  const coldN = pick(cfg, 50, 10);
  const toolsServer = new StdioServer({ command: process.execPath, args: [stdioScript, "--tools", "50"], stderr: "inherit" });
  const resServer = new StdioServer({ command: process.execPath, args: [stdioScript, "--resources", "1000"], stderr: "inherit" });
  const rows: string[][] = [];
  const notes: string[] = [];
  {
    await using ours = await MCPClient.start(toolsServer);
    const raw = await sdkStdioClient(stdioScript, ["--tools", "50"]);
    try {
      const n = (await ours.listTools()).length;
      if (n !== 50) throw new Error(`expected 50 tools, got ${n}`);
      await timed(50, () => ours.listTools({ forceRefresh: true }));
      await timed(50, () => raw.listTools());
      const cached = await timed(cachedN, () => ours.listTools());
      const refresh = await timed(refreshN, () => ours.listTools({ forceRefresh: true }));
      const rawList = await timed(refreshN, () => raw.listTools());
      rows.push(row("listTools() from cache (50 tools)", cached));
      rows.push(row("listTools({ forceRefresh: true })", refresh));
      rows.push(row("raw SDK Client.listTools()", rawList));
      notes.push(
        `listTools() from cache is ${(percentile(refresh, 0.5) / percentile(cached, 0.5)).toFixed(0)}x faster at p50 than a refresh; ` +
          "a cached call still copies the (frozen) array, so the caller can sort or filter it.",
      );
    } finally {
      await raw.close();
    }
  }
  {
    await using warmClient = await MCPClient.start(resServer);
    await using coldClient = await MCPClient.start(resServer, { ttlMs: 0 });
    const raw = await sdkStdioClient(stdioScript, ["--resources", "1000"]);
    try {
      const warm = mcpResources(warmClient);
      const cold = mcpResources(coldClient, { ttlMs: 0 });
      const first = await warm.query("topic-7", { k: K });
      if (first.length !== K) throw new Error(`expected ${K} resources for topic-7, got ${first.length}`);
      await timed(10, (i) => cold.query(`topic-${i % 50}`, { k: K }));
      await timed(10, (i) => rawQuery(raw, `topic-${i % 50}`));
      const warmLat = await timed(queryN, (i) => warm.query(`topic-${i % 50}`, { k: K }));
      const coldLat = await timed(coldN, (i) => cold.query(`topic-${i % 50}`, { k: K }));
      const rawLat = await timed(coldN, (i) => rawQuery(raw, `topic-${i % 50}`));
      rows.push(row(`mcpResources query, k=${K}, 1,000 resources, list cached`, warmLat));
      rows.push(row(`mcpResources query, k=${K}, list fetched every time (ttlMs 0)`, coldLat));
      rows.push(row(`raw SDK: listResources + filter + read ${K}`, rawLat));
      notes.push(
        `A warm query is the ${K} reads plus an in-memory scan of 1,000 entries; the list itself costs ` +
          `${ms(percentile(coldLat, 0.5) - percentile(warmLat, 0.5))} ms at p50 when it is not cached.`,
      );
    } finally {
      await raw.close();
    }
  }
  return {
    id: "lists",
    title: "3. Cached lists (listTools cache, mcpResources over 1,000 resources)",
    method:
      "Over stdio to the SDK's low-level `Server` (`stdio-server.js --tools 50` / `--resources 1000`), one client each. Sequential operations after a warm-up. " +
      `The resource query is \`mcpResources(client).query("topic-<n>", { k: ${K} })\`: 20 of the 1,000 resources match each topic, the top ${K} are read.`,
    tables: [{ head: ["operation", "ops", "p50 ms", "p99 ms"], rows }],
    goals: [],
    notes,
  };
}

/** Benchmark 3. */
export const lists: Suite = { id: "lists", title: "Cached lists", run };
