/**
 * @module test/mcp-serve/samples.test
 * The serve samples, built (`npm run build` first) and run with node. Each test
 * reads the sample's `label: value` lines and checks the facts it exists to
 * show — qualified names, declarations, option keys, flags, texts, counts —
 * as values (JSON parsed), not as punctuation.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MCPClient, StdioServer } from "../../src/mcp/index.js";
import { waitGone } from "../helpers/procs.js";
import { ROOT, printedFields, runSample } from "../helpers/run-sample.js";

const CHILD = join(ROOT, "build", "samples", "serve-stdio-child.js");

const LETHAL_TRIFECTA =
  "lethal trifecta: this tool set combines private-data access, untrusted-content ingestion, and egress in one run — require a human gate or split the run";

describe("serve samples print what they show", () => {
  it("serve-registry: names, declarations, option keys, the unchanged schema, a bad call as a tool error, the count", async () => {
    // A private TMPDIR, so "the sample left no config directory" is not confused with other suites' files.
    const tmp = mkdtempSync(join(tmpdir(), "agentkit-sample-tmp-"));
    let out: string;
    let left: string[];
    try {
      out = await runSample("serve-registry", { TMPDIR: tmp });
      left = readdirSync(tmp);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    const f = printedFields(out);
    expect(Object.keys(f)).toEqual([
      "toolNames",
      "requiresApproval",
      "autoApprove",
      "caps",
      "cliOptions keys",
      "advertised",
      "schema unchanged",
      "deploy _meta",
      "deploy readOnlyHint",
      "ok",
      "bad isError",
      "bad text",
      "session survived",
      "callsSeen",
    ]);
    const json = (label: string): unknown => JSON.parse(f[label]!);
    // Result budgets are on by default: the module's read_result (read-only) is served beside the sample's two tools.
    expect(json("toolNames")).toEqual(["mcp__engine__deploy", "mcp__engine__read_result", "mcp__engine__run_check"]);
    expect(json("requiresApproval")).toEqual(["mcp__engine__deploy"]);
    expect(json("autoApprove")).toEqual(["mcp__engine__read_result", "mcp__engine__run_check"]);
    expect(json("caps")).toEqual(["egress"]);
    // The CLI is handed the config and the strict flag (an `env` carrying the token may join them).
    expect((json("cliOptions keys") as string[]).filter((k) => k !== "env")).toEqual(["mcpConfig", "strictMcpConfig"]);
    expect(json("advertised")).toEqual(["deploy", "read_result", "run_check"]);
    expect(json("schema unchanged")).toBe(true);
    expect(json("deploy _meta")).toEqual({ side_effecting: true, requires_approval: true, caps: ["egress"] });
    expect(json("deploy readOnlyHint")).toBe(false);
    expect(f.ok).toBe("lint:lax:ok");
    expect(json("bad isError")).toBe(true);
    expect(f["bad text"]).toBe(
      "tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']",
    );
    expect(f["session survived"]).toBe("after:lax:ok");
    expect(json("callsSeen")).toBe(3);
    // The sample stopped its spec: no config directory left behind.
    expect(left).toEqual([]);
  });

  it("serve-stdio-parent: a stdio entry naming the built child (started by process.execPath), its env, and no url", async () => {
    const out = await runSample("serve-stdio-parent");
    expect(out.trimEnd().split("\n")).toHaveLength(4);
    const f = printedFields(out);
    expect(Object.keys(f)).toEqual(["type", "args", "env", "url"]);
    expect(f.type).toBe("stdio");
    const suffix = " (command is process.execPath)";
    expect(f.args!.endsWith(suffix)).toBe(true);
    expect(JSON.parse(f.args!.slice(0, -suffix.length))).toEqual([CHILD]);
    expect(JSON.parse(f.env!)).toEqual({ NODE_PATH: "/srv/app" });
    expect(f.url).toBe("null");
  });

  it("serve-timeouts: the server's deadline and a tool's own TimeoutError read as two different sentences", async () => {
    const f = printedFields(await runSample("serve-timeouts"));
    expect(f).toEqual({
      "our deadline": "tool 'slow_build' did not return within 0.05s and was abandoned",
      "their error": "tool 'call_upstream' failed: TimeoutError: upstream read timed out after 3s",
    });
  });

  it("serve-trifecta: the caps travel with the served tools and RunPolicy refuses the set", async () => {
    const f = printedFields(await runSample("serve-trifecta"));
    expect(Object.keys(f)).toEqual(["spec.caps", "allowed", "reason"]);
    expect(JSON.parse(f["spec.caps"]!)).toEqual(["egress", "private_data", "untrusted_content"]);
    expect(JSON.parse(f.allowed!)).toBe(false);
    expect(f.reason).toBe(LETHAL_TRIFECTA);
  });

  it("serve-stdio-child, spawned as the parent's config says, serves the tool and exits when stdin closes", async () => {
    const client = await MCPClient.start(new StdioServer({ command: process.execPath, args: [CHILD], env: { NODE_PATH: "/srv/app" } }));
    try {
      // The stdio child serves both eras; the client's default "auto" settles on 2026-07-28.
      expect(client.protocolVersion).toBe("2026-07-28");
      const tools = await client.listTools();
      expect(tools.map((t) => [t.name, t.annotations?.readOnlyHint])).toEqual([
        ["run_check", true],
        ["read_result", true],
      ]);
      expect((await client.callTool("run_check", { name: "lint" })).content).toEqual([{ type: "text", text: "lint:ok" }]);
      const bad = await client.callTool("run_check", { name: "lint", verbose: true });
      expect({ content: bad.content, isError: bad.isError }).toEqual({
        content: [
          { type: "text", text: "tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name']" },
        ],
        isError: true,
      });
      expect((await client.callTool("nope", {})).content).toEqual([
        { type: "text", text: "unknown tool 'nope'. Available tools: ['read_result', 'run_check']" },
      ]);
    } finally {
      await client.stop();
    }
    expect(await waitGone(CHILD)).toEqual([]);
  });
});
