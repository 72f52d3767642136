/**
 * @module test/mcp-approvals/samples.test
 * The samples against the seed's printed output. `samples/approvals.ts` is the
 * twin of the seed's ApprovalServer example: every line must equal the seed's
 * except the cli line, which must hold the seed's cli_kwargs (keys in
 * camelCase, the port and token masked) plus exactly one key more,
 * `settingSources: ""`. `samples/approvals-narrowing.ts` prints the seed's two
 * auto_allow_when lines. Runs the built samples (`npm run build` first).
 */
import { describe, expect, it } from "vitest";
import { runSample } from "../helpers/run-sample.js";

// Verbatim from the seed (000_f0a8c6527e22b31d.txt), "The other direction".
const SEED_OUTPUT = `tool_name:  mcp__agentkit_approvals__approve
cli_kwargs: {'mcp_config': ('{"mcpServers": {"agentkit_approvals": {"type": "http", "url": "http://127.0.0.1:65162/mcp", "headers": {"Authorization": "Bearer <43-char token>"}}}}',), 'strict_mcp_config': True, 'permission_prompt_tool': 'mcp__agentkit_approvals__approve'}
tools:      ['approve']
  Read   -> {"behavior": "allow", "updatedInput": {"file_path": "/etc/passwd"}}
  Write  -> {"behavior": "deny", "message": "/etc is out of scope"}
  Write  -> {"behavior": "allow", "updatedInput": {"file_path": "out.txt"}}
prompts_seen: 3
  Read   allowed=True  source=auto_allow asked=False
  Write  allowed=False source=asker      asked=True
  Write  allowed=True  source=asker      asked=True`;

// Verbatim from the seed, "Narrowing it by argument".
const SEED_NARROWING = `Read README.md    auto-allowed: True
Read /etc/passwd  auto-allowed: False   # falls through to the reviewer`;

const camel = (s: string): string => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
const maskPort = (s: string): string => s.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>");

/** The seed's cli_kwargs line as a TypeScript options object (keys camelCase, tuple -> array, port masked). */
function seedCliOptions(line: string): Record<string, unknown> {
  const doc = /\('(\{"mcpServers".*\})',\)/.exec(line)![1]!;
  const keys = [...line.matchAll(/'([a-z_]+)': /g)].map((m) => m[1]!);
  expect(keys).toEqual(["mcp_config", "strict_mcp_config", "permission_prompt_tool"]);
  return {
    [camel(keys[0]!)]: [JSON.parse(maskPort(doc))],
    [camel(keys[1]!)]: true,
    [camel(keys[2]!)]: /'permission_prompt_tool': '([^']+)'/.exec(line)![1],
  };
}

describe("samples against the seed's printed output", () => {
  it("samples/approvals.ts prints the seed's ApprovalServer output (port, token masked; settingSources the one extra key)", async () => {
    const printed = (await runSample("approvals")).trimEnd().split("\n");
    const seed = SEED_OUTPUT.split("\n");
    expect(printed).toHaveLength(seed.length);
    // Every line but the cli line is the seed's, character for character.
    expect(printed.filter((_l, i) => i !== 1)).toEqual(seed.filter((_l, i) => i !== 1));

    expect(printed[1]!.startsWith("cli_kwargs: ")).toBe(true);
    const options = JSON.parse(printed[1]!.slice("cli_kwargs: ".length)) as Record<string, unknown>;
    // mcpConfig names the 0600 file instead of inlining the seed's document:
    // the bearer token must not reach the CLI's argv (issue 14).
    expect(options.mcpConfig).toEqual([expect.stringMatching(/\/agentkit-[^/]+\/mcp-config\.json$/)]);
    const { settingSources, mcpConfig: _path, ...rest } = options;
    expect(Object.keys(options)).toEqual([...Object.keys(seedCliOptions(seed[1]!)), "settingSources"]);
    expect(settingSources).toBe("");
    const { mcpConfig: _doc, ...seedRest } = seedCliOptions(seed[1]!);
    expect(rest).toEqual(seedRest);
  });

  it("samples/approvals-narrowing.ts prints the seed's auto_allow_when lines", async () => {
    expect((await runSample("approvals-narrowing")).trimEnd()).toBe(SEED_NARROWING);
  });
});
