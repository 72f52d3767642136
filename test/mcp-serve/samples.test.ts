/**
 * @module test/mcp-serve/samples.test
 * The serve samples against the seed's printed output. Each `samples/serve-*.ts`
 * is the twin of one of the seed's serve_registry examples; every printed line
 * must equal the seed's except the differences listed with each test (option
 * names in camelCase; the stdio child is a built JS file started by
 * process.execPath, and its env names NODE_PATH where Python's names
 * PYTHONPATH). Runs the built samples (`npm run build` first).
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MCPClient, StdioServer } from "../../src/mcp/index.js";
import { waitGone } from "../helpers/procs.js";
import { ROOT, runSample } from "../helpers/run-sample.js";

const CHILD = join(ROOT, "build", "samples", "serve-stdio-child.js");

// Verbatim from the seed (000_f0a8c6527e22b31d.txt), "Serving your own tools: serve_registry".
const SEED_MAIN = `tool_names:        ('mcp__engine__deploy', 'mcp__engine__run_check')
requires_approval: ('mcp__engine__deploy',)
auto_approve:      ('mcp__engine__run_check',)
caps:              ('egress',)
cli_kwargs keys:   ['mcp_config', 'strict_mcp_config']
advertised:        ['deploy', 'run_check']
schema unchanged:  True
deploy _meta:      {'side_effecting': True, 'requires_approval': True, 'caps': ['egress']}
deploy read-only:  False
ok:                lint:lax:ok
bad isError:       True
bad text:          tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']
session survived:  after:lax:ok
calls_seen:        3`;

// Verbatim from the seed, "Which transport, and when".
const SEED_STDIO_PARENT = `type: stdio
args: ['-m', 'myapp.mcp_server'] (command is sys.executable)
env:  {'PYTHONPATH': '/srv/app'}
url:  None`;

// Verbatim from the seed, "Two timeouts that do not read the same".
const SEED_TIMEOUTS = `our deadline: tool 'slow_build' did not return within 0.05s and was abandoned
their error:  tool 'call_upstream' failed: TimeoutError: upstream read timed out after 3s`;

// Verbatim from the seed, "The declarations travel, so the Rule of Two still applies".
const SEED_TRIFECTA = `spec.caps: ('egress', 'private_data', 'untrusted_content')
allowed:   False
reason:    lethal trifecta: this tool set combines private-data access, untrusted-content ingestion, and egress in one run — require a human gate or split the run`;

const camel = (s: string): string => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

describe("serve samples against the seed's printed output", () => {
  it("serve-registry prints the seed's main example (option names in camelCase)", async () => {
    // A private TMPDIR, so "the sample left no config directory" is not confused with other suites' files.
    const tmp = mkdtempSync(join(tmpdir(), "agentkit-sample-tmp-"));
    let printed: string[];
    let left: string[];
    try {
      printed = (await runSample("serve-registry", { TMPDIR: tmp })).trimEnd().split("\n");
      left = readdirSync(tmp);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    const seed = SEED_MAIN.split("\n").map((l) => (l.startsWith("cli_kwargs keys:") ? l.replace(/'([a-z_]+)'/g, (_m, k: string) => `'${camel(k)}'`) : l));
    expect(printed).toEqual(seed);
    // The sample stopped its spec: no config directory left behind.
    expect(left).toEqual([]);
  });

  it("serve-stdio-parent prints the seed's stdio parent lines (the child is a JS file started by process.execPath; NODE_PATH for PYTHONPATH)", async () => {
    const printed = (await runSample("serve-stdio-parent")).trimEnd().split("\n");
    const seed = SEED_STDIO_PARENT.split("\n");
    expect(printed).toHaveLength(seed.length);
    expect(printed[0]).toBe(seed[0]);
    expect(seed[1]).toBe("args: ['-m', 'myapp.mcp_server'] (command is sys.executable)");
    expect(printed[1]).toBe(`args: ['${CHILD}'] (command is process.execPath)`);
    expect(printed[2]).toBe(seed[2]!.replace("PYTHONPATH", "NODE_PATH"));
    expect(printed[3]).toBe(seed[3]);
  });

  it("serve-timeouts prints the seed's two different sentences", async () => {
    expect((await runSample("serve-timeouts")).trimEnd()).toBe(SEED_TIMEOUTS);
  });

  it("serve-trifecta prints the seed's verdict", async () => {
    expect((await runSample("serve-trifecta")).trimEnd()).toBe(SEED_TRIFECTA);
  });

  it("serve-stdio-child, spawned as the parent's config says, serves the tool and exits when stdin closes", async () => {
    const client = await MCPClient.open(new StdioServer({ command: process.execPath, args: [CHILD], env: { NODE_PATH: "/srv/app" } }));
    try {
      const tools = await client.listTools();
      expect(tools.map((t) => [t.name, t.annotations?.readOnlyHint])).toEqual([["run_check", true]]);
      expect((await client.callTool("run_check", { name: "lint" })).content).toEqual([{ type: "text", text: "lint:ok" }]);
      const bad = await client.callTool("run_check", { name: "lint", verbose: true });
      expect(bad).toEqual({
        content: [{ type: "text", text: "tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name']" }],
        isError: true,
      });
      expect((await client.callTool("nope", {})).content).toEqual([{ type: "text", text: "unknown tool 'nope'. Available tools: ['run_check']" }]);
    } finally {
      await client.close();
    }
    expect(await waitGone(CHILD)).toEqual([]);
  });
});
