/**
 * @module test/build/bench.test
 * The benchmark machinery, not its numbers (a benchmark reports; it is never a
 * timed test): the ABBA and interleaved orders that make the ratios fair, the
 * ratio arithmetic, and `npm run bench`'s runner end to end on a fresh build
 * (quick mode, one suite, written to a temporary file) — so a clean clone can
 * produce BENCHMARKS.md; and the fake model API's think time (its time to
 * first token), which benchmark 11's think-time rows stand on.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { abba, medianRatio, pooledRatio, roundRatios } from "../../bench/lib/abba.js";
import { interleaved, type Caller } from "../../bench/lib/callers.js";
import { ROOT } from "../helpers/run-sample.js";

const run = promisify(execFile);

function recorder(name: string, log: string[]): Caller {
  return {
    call: async (i) => void log.push(`${name}${i}`),
    close: async () => {},
  };
}

describe("bench orders", () => {
  it("abba runs each round as an order and its reverse, the first contender rotating", async () => {
    const log: string[] = [];
    const res = await abba(["a", "b", "c"], 3, async (n, r) => {
      log.push(`${n}${r}`);
      return r;
    });
    expect(log).toEqual(["a0", "b0", "c0", "c0", "b0", "a0", "b1", "c1", "a1", "a1", "c1", "b1", "c2", "a2", "b2", "b2", "a2", "c2"]);
    expect(res.get("b")).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
  });

  it("interleaved alternates single calls (A B, B A, ...) and gives every call its own index", async () => {
    const log: string[] = [];
    const lat = await interleaved([recorder("a", log), recorder("b", log)], 3, 100);
    expect(log).toEqual(["a100", "b101", "b103", "a102", "a104", "b105"]);
    expect(lat.map((l) => l.length)).toEqual([3, 3]);
    expect(lat.flat().every((x) => Number.isFinite(x) && x >= 0)).toBe(true);
  });

  it("ratios are per round against the baseline, summarised by their median and range", () => {
    const res = new Map([
      ["ours", [[[2]], [[3]], [[4]]]],
      ["sdk", [[[2]], [[2]], [[2]]]],
    ]);
    const ratios = roundRatios(res, "ours", "sdk", (b) => b.flat()[0]!);
    expect(ratios).toEqual([1, 1.5, 2]);
    expect(medianRatio(ratios)).toEqual({ median: 1.5, min: 1, max: 2 });
  });
});

describe("pooled ratios (many short rounds)", () => {
  it("the metric over every round of each contender pooled, divided", () => {
    // 4 rounds of one batch each; the metric is the sum of the batches given.
    const res = new Map([
      ["ours", [[3], [3], [6], [6]]],
      ["sdk", [[3], [3], [3], [3]]],
    ]);
    const sum = (b: number[]) => b.reduce((t, x) => t + x, 0);
    expect(pooledRatio(res, "ours", "sdk", sum)).toBe(18 / 12);
    expect(pooledRatio(res, "sdk", "ours", sum)).toBe(12 / 18);
  });
});

/** The bench's build (build/bench/), compiled once for the two tests that run it. */
let benchBuilt: Promise<unknown> | undefined;
const buildBench = (): Promise<unknown> =>
  (benchBuilt ??= run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "bench/tsconfig.json"], { cwd: ROOT }));

describe("the fake model API's steps turn (benchmark 11)", () => {
  it("answers at once, or under /steps/ttft/<ms> only after that time to first token; another path is not found", async () => {
    await buildBench();
    const { startServer } = (await import(join(ROOT, "build/bench/lib/child-server.js"))) as typeof import("../../bench/lib/child-server.js");
    await using api = await startServer("model-api");
    const body = JSON.stringify({ model: "m", max_tokens: 64, messages: [{ role: "user", content: "note 1" }] });
    const turn = async (path: string): Promise<{ status: number; firstByteMs: number; text: string }> => {
      const t = performance.now();
      const res = await fetch(`${api.url}${path}`, { method: "POST", body, headers: { "content-type": "application/json" } });
      const firstByteMs = performance.now() - t;
      return { status: res.status, firstByteMs, text: await res.text() };
    };
    const atOnce = await turn("/steps/v1/messages");
    expect(atOnce.status).toBe(200);
    expect(atOnce.text).toContain('"name":"note"');
    const thinking = await turn("/steps/ttft/400/v1/messages");
    expect(thinking.status).toBe(200);
    expect(thinking.text).toBe(atOnce.text);
    // A lower bound only (the head is held until the think time passed); a loaded machine can only make it later.
    expect(thinking.firstByteMs).toBeGreaterThanOrEqual(395);
    expect((await turn("/steps/ttft/soon/v1/messages")).status).toBe(404);
  }, 120_000);
});

describe("npm run bench, end to end", () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("builds, runs a suite against real servers, prints its table and writes the report", async () => {
    await buildBench();
    dir = await mkdtemp(join(tmpdir(), "agentkit-bench-"));
    const out = join(dir, "BENCHMARKS.md");
    const { stdout } = await run(process.execPath, ["--expose-gc", "build/bench/run.js", "--quick", "--only=client,models", `--out=${out}`], { cwd: ROOT, timeout: 240_000 });
    expect(stdout).toContain("== 2. Client overhead");
    expect(stdout).toMatch(/stdio +2025-11-25 +agentkit mcpTools\(\) tool\.run/);
    expect(stdout).toMatch(/HTTP +2026-07-28 +raw SDK v2 Client\.callTool \(anchor\)/);
    // The model loop runs in worker processes: their rounds reach the table.
    expect(stdout).toContain("== 7. Model loop overhead");
    expect(stdout).toMatch(/Agent \+ ReActCognition \+ AnthropicLLM +[\d.]+ +[\d.]+ +\d\.\d\dx/);
    const md = await readFile(out, "utf8");
    expect(md).toMatch(/^# Benchmarks\n\nGenerated by `npm run bench -- --quick --only=client,models/);
    expect(md).toContain("## Goals");
    expect(md).toMatch(/\| client overhead over HTTP \(2025-11-25\) within 1\.05x of the raw SDK v2 Client \| median of \d+ per-round p50 ratios \d\.\d\dx .*\| (met|\*\*missed\*\*)/);
    expect(md).toMatch(/\| HTTP \| 2025-11-25 \| raw SDK v2 Client\.callTool \(anchor\) \| [\d,]+ \| [\d.]+ \| [\d.]+ \| 1\.00x \| \d\.\d\dx /);
    expect(md).toMatch(/\| HTTP \| 2025-11-25 \| raw SDK v1 Client\.callTool \(v1-era figure\) \| [\d,]+ \| [\d.]+ \| [\d.]+ \| \d\.\d\dx .*\| 1\.00x \|/);
  }, 300_000);
});
