/**
 * @module test/mcp-client/samples.test
 * Runs the three client samples (built by `npm run build` into build/samples)
 * and compares what they print with the seed's printed output.
 *
 * The mapping from the seed's lines to the twins' lines, exactly:
 * - `params:` — the seed prints pydantic's schema for `a: int`
 *   (`{'title': 'A', 'type': 'integer'}`); the twin prints the JSON Schema its
 *   JS server (SDK McpServer + zod `z.int().meta({ title: "A" })`) advertises,
 *   rendered Python-style: zod puts `type` first, adds the safe-integer bounds
 *   `minimum`/`maximum`, then `title`. Dropping the two bounds gives the seed's
 *   keys and values.
 * - the drop warning — the seed's Python names `mcp_prompts` and
 *   `MCPClient.get_prompt` become `mcpPrompts` and `MCPClient.getPrompt`
 *   (API.md's TypeScript wording); the rest of the text is identical. It is
 *   written to stderr by the package logger, as Python's logging does; the seed
 *   shows it above the stdout lines, so the test compares stderr + stdout.
 * Every other line is identical to the seed's.
 */
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { NODE, ROOT, fixture } from "./support.js";

function runSample(name: string): { stdout: string[]; stderr: string[]; status: number | null } {
  const js = `${ROOT}build/samples/${name}.js`;
  const ts = `${ROOT}samples/${name}.ts`;
  if (!existsSync(js) || statSync(js).mtimeMs < statSync(ts).mtimeMs) {
    throw new Error(`${js} is missing or older than ${ts}: run \`npm run build\` first (npm test does)`);
  }
  const r = spawnSync(NODE, [js], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
  const lines = (s: string) => s.split("\n").filter((l) => l !== "");
  return { stdout: lines(r.stdout), stderr: lines(r.stderr), status: r.status };
}

const SEED_SMALLEST = [
  "demo_add | Add two integers.",
  "params: {'a': {'title': 'A', 'type': 'integer'}, 'b': {'title': 'B', 'type': 'integer'}}",
  "side_effecting: True",
  "result: 5",
];

const SEED_AGENT = ["output: 2 + 3 is 5. | stop_reason: complete"];

const SEED_RESOURCES_PROMPTS = [
  "mcp_prompts: dropping 'review' — MCP prompt requires arguments, cannot render statically. Use MCPClient.get_prompt(name, args) directly.",
  "memory: Restart the ingest worker, then check the queue depth.",
  "metadata: {'uri': 'docs://runbook', 'name': 'runbook', 'mimeType': 'text/plain'}",
  "static: {'triage': ('mcp:1', 'You triage incidents. Be terse.')}",
  "argumented, fetched directly: Review this diff: -a +b",
];

const BOUNDS = "'minimum': -9007199254740991, 'maximum': 9007199254740991";

describe("client samples print what the seed prints", () => {
  it("mcp-smallest: the smallest thing that works", () => {
    const r = runSample("mcp-smallest");
    expect(r.status).toBe(0);
    expect(r.stderr).toEqual([]);
    const twinParams = `params: {'a': {'type': 'integer', ${BOUNDS}, 'title': 'A'}, 'b': {'type': 'integer', ${BOUNDS}, 'title': 'B'}}`;
    expect(r.stdout).toEqual([SEED_SMALLEST[0], twinParams, SEED_SMALLEST[2], SEED_SMALLEST[3]]);
    // The documented mapping: drop zod's bounds, order keys as pydantic does -> the seed's line.
    const normalised = twinParams.replaceAll(`, ${BOUNDS}`, "").replace(/\{'type': 'integer', 'title': '([AB])'\}/g, "{'title': '$1', 'type': 'integer'}");
    expect(normalised).toBe(SEED_SMALLEST[1]);
  });

  it("mcp-agent: the same server driven by a scripted FakeLLM", () => {
    const r = runSample("mcp-agent");
    expect(r.status).toBe(0);
    expect(r.stderr).toEqual([]);
    expect(r.stdout).toEqual(SEED_AGENT);
  });

  it("mcp-resources-prompts: resources and prompts from the same server", () => {
    const r = runSample("mcp-resources-prompts");
    expect(r.status).toBe(0);
    const expected = [SEED_RESOURCES_PROMPTS[0]!.replace("mcp_prompts:", "mcpPrompts:").replace("MCPClient.get_prompt(", "MCPClient.getPrompt("), ...SEED_RESOURCES_PROMPTS.slice(1)];
    expect(r.stderr).toEqual(expected.slice(0, 1));
    expect([...r.stderr, ...r.stdout]).toEqual(expected);
  });
});

describe("a stdio server's stderr does not reach the parent's unless asked", () => {
  const script = (mode: string) => `
    import { MCPClient, StdioServer } from "arc-agentkit/mcp";
    const c = await MCPClient.open(new StdioServer({ command: process.execPath, args: [${JSON.stringify(fixture("counting-stdio-server.mjs"))}]${mode} }));
    console.log("tail:", JSON.stringify(c.stderrTail));
    await c.close();`;

  it("default 'pipe': nothing on the parent's stderr, the tail is kept; 'inherit': the server writes to it", () => {
    const piped = spawnSync(NODE, ["--input-type=module", "-e", script("")], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(piped.status).toBe(0);
    expect(piped.stderr).toBe("");
    expect(piped.stdout).toBe('tail: "counting server ready"\n');
    const inherited = spawnSync(NODE, ["--input-type=module", "-e", script(', stderr: "inherit"')], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(inherited.status).toBe(0);
    expect(inherited.stderr).toBe("counting server ready\n");
    expect(inherited.stdout).toBe('tail: ""\n');
  });
});
