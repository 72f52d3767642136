/**
 * @module test/mcp-serve/conformance.test
 * The MCP conformance suite 0.1.16, every server scenario (`--suite all`:
 * the 30 active ones and the 2 pending), against a booted @McpServer fixture
 * module (test/fixtures/servers/conformance-module.ts) over the loopback
 * listener. The suite runs once, as a real subprocess started with node (its
 * bin, never npx; the ESM shim gives it fs.globSync on Node 20); each scenario
 * is then its own `it`, so a regression names the scenario. WARNING checks
 * (server-sse-polling's "no priming event", "no retry field": the SDK
 * transport sends neither for the 2025-03-26 protocol version that scenario
 * announces) do not fail a scenario, as they do not fail the suite.
 */
import "reflect-metadata";
import { join } from "node:path";
import { container } from "tsyringe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap, type McpApp } from "../../src/mcp/index.js";
import { ConformanceModule } from "../fixtures/servers/conformance-module.js";
import { runNode, type NodeRun } from "../helpers/procs.js";

const ROOT = join(import.meta.dirname, "..", "..");
const CONFORMANCE = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const SHIM = join(ROOT, "test", "fixtures", "conformance", "register.mjs");

/** Every server scenario of conformance 0.1.16 (`conformance list --server`). */
const SCENARIOS = [
  "server-initialize",
  "logging-set-level",
  "ping",
  "completion-complete",
  "tools-list",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-with-logging",
  "tools-call-error",
  "tools-call-with-progress",
  "tools-call-sampling",
  "tools-call-elicitation",
  "json-schema-2020-12",
  "elicitation-sep1034-defaults",
  "server-sse-polling",
  "server-sse-multiple-streams",
  "elicitation-sep1330-enums",
  "resources-list",
  "resources-read-text",
  "resources-read-binary",
  "resources-templates-read",
  "resources-subscribe",
  "resources-unsubscribe",
  "prompts-list",
  "prompts-get-simple",
  "prompts-get-with-args",
  "prompts-get-embedded-resource",
  "prompts-get-with-image",
  "dns-rebinding-protection",
];

type Run = NodeRun;

/** Run the conformance bin with `args`; its process group is killed after `ms`. */
function conformance(args: string[], ms = 120_000): Promise<Run> {
  return runNode(["--import", SHIM, CONFORMANCE, ...args], { cwd: ROOT, ms });
}

let app: McpApp;
let run: Run;
/** scenario -> [passed, failed], from the suite's SUMMARY lines (`✓ ping: 1 passed, 0 failed`). */
const summary = new Map<string, [number, number]>();

beforeAll(async () => {
  app = await bootstrap(ConformanceModule, { container: container.createChildContainer() });
  run = await conformance(["server", "--url", app.spec!.url!, "--suite", "all"]);
  for (const m of run.stdout.matchAll(/^[✓✗] ([a-z0-9-]+): (\d+) passed, (\d+) failed/gm)) summary.set(m[1]!, [Number(m[2]), Number(m[3])]);
}, 180_000);

afterAll(async () => {
  await app?.stop();
});

describe("MCP conformance 0.1.16 server scenarios against a served @McpServer module", () => {
  it("the suite knows exactly these scenarios, ran them all and exited 0", async () => {
    const listed = await conformance(["list", "--server"]);
    expect([...listed.stdout.matchAll(/^ {2}- ([a-z0-9-]+) /gm)].map((m) => m[1])).toEqual(SCENARIOS);
    expect([...summary.keys()].sort(), run.stdout + run.stderr).toEqual([...SCENARIOS].sort());
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toMatch(/Total: \d+ passed, 0 failed/);
  });

  for (const scenario of SCENARIOS) {
    it(scenario, () => {
      const counts = summary.get(scenario);
      const section = run.stdout.split(`=== Running scenario: ${scenario} ===`)[1]?.split("=== Running scenario:")[0] ?? run.stdout;
      expect(counts, `${scenario} did not run:\n${run.stdout}\n${run.stderr}`).toBeDefined();
      expect(counts![1], section).toBe(0);
      // server-sse-polling has no MUST check that can pass here: the tool's answer on the POST stream is INFO,
      // and its two SHOULD checks (a priming event, a retry field) are WARNINGs because the SDK transport sends
      // neither for the protocol version 2025-03-26 the scenario announces (no failure either way).
      if (scenario !== "server-sse-polling") expect(counts![0], section).toBeGreaterThan(0);
    });
  }
});
