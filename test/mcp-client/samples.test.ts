/**
 * @module test/mcp-client/samples.test
 * Runs the three client samples (built by `npm run build` into build/samples)
 * and checks the facts each prints: the adapted tool's prefixed name and
 * description, the integer schema of `a` and `b` (titles `A`, `B`), that an MCP
 * tool counts as side-effecting, the call's result; the agent's answer and stop
 * reason; the resource read as memory with its metadata, the static prompt as
 * a Prompt (version `mcp:1`), and the argumented prompt dropped with a warning
 * on stderr (the package logger) and fetched directly.
 */
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { printedFields } from "../helpers/run-sample.js";
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

const fields = (lines: string[]) => printedFields(lines.join("\n"));

/** The JSON Schema zod gives `z.int().meta({ title })`: an integer within the safe-integer bounds, titled. */
const integer = (title: string) => ({ type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, title });

describe("client samples print what they show", () => {
  it("mcp-smallest: the smallest thing that works", () => {
    const r = runSample("mcp-smallest");
    expect(r.status).toBe(0);
    expect(r.stderr).toEqual([]);
    expect(r.stdout).toHaveLength(4);
    expect(r.stdout[0]).toBe("demo_add | Add two integers.");
    const f = fields(r.stdout.slice(1));
    expect(Object.keys(f)).toEqual(["params", "sideEffecting", "result"]);
    expect(JSON.parse(f.params!)).toEqual({ a: integer("A"), b: integer("B") });
    expect(JSON.parse(f.sideEffecting!)).toBe(true);
    expect(f.result).toBe("5");
  });

  it("mcp-agent: the same server driven by a scripted FakeLLM", () => {
    const r = runSample("mcp-agent");
    expect(r.status).toBe(0);
    expect(r.stderr).toEqual([]);
    expect(r.stdout).toEqual(["output: 2 + 3 is 5. | stopReason: complete"]);
  });

  it("mcp-resources-prompts: resources and prompts from the same server", () => {
    const r = runSample("mcp-resources-prompts");
    expect(r.status).toBe(0);
    expect(r.stderr).toEqual([
      "mcpPrompts: dropping 'review' — MCP prompt requires arguments, cannot render statically. Use MCPClient.getPrompt(name, args) directly.",
    ]);
    const f = fields(r.stdout);
    expect(Object.keys(f)).toEqual(["memory", "metadata", "static", "argumented, fetched directly"]);
    expect(f.memory).toBe("Restart the ingest worker, then check the queue depth.");
    expect(JSON.parse(f.metadata!)).toEqual({ uri: "docs://runbook", name: "runbook", mimeType: "text/plain" });
    expect(JSON.parse(f.static!)).toEqual({ triage: { version: "mcp:1", template: "You triage incidents. Be terse." } });
    expect(f["argumented, fetched directly"]).toBe("Review this diff: -a +b");
  });
});

describe("a stdio server's stderr does not reach the parent's unless asked", () => {
  const script = (mode: string) => `
    import { MCPClient, StdioServer } from "arc-agentkit/mcp";
    const c = await MCPClient.start(new StdioServer({ command: process.execPath, args: [${JSON.stringify(fixture("counting-stdio-server.mjs"))}]${mode} }));
    console.log("tail:", JSON.stringify(c.stderrTail));
    await c.stop();`;

  it("default 'pipe': nothing on the parent's stderr, the tail is kept; 'inherit': the server writes to it", () => {
    const piped = spawnSync(NODE, ["--input-type=module", "-e", script("")], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(piped.status).toBe(0);
    expect(piped.stderr).toBe("");
    expect(piped.stdout).toBe('tail: "counting server ready"\n');
    const inherited = spawnSync(NODE, ["--input-type=module", "-e", script(', stderr: "inherit"')], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(inherited.status).toBe(0);
    expect(inherited.stderr).toBe("counting server ready\n");
    expect(inherited.stdout).toBe('tail: ""\n');
  });
});
