/**
 * @module test/mcp-approvals/samples.test
 * The approval samples, built (`npm run build` first) and run with node, checked
 * for the facts they show: the permission-prompt tool's name, the options the
 * CLI is handed (the approval server's entry, the strict flag, the prompt tool,
 * no ambient settings; no secret values printed), each wire answer, and who
 * decided each prompt. `approvals-narrowing` shows autoAllowWhen subtracting
 * /etc from the auto-allowed Reads.
 */
import { describe, expect, it } from "vitest";
import { printedFields, runSample } from "../helpers/run-sample.js";

const TOOL = "mcp__agentkit_approvals__approve";

/** `  Read   allowed=true  source=auto_allow asked=false` -> its four facts. */
function decisionLines(out: string): Array<{ tool: string; allowed: boolean; source: string; asked: boolean }> {
  return [...out.matchAll(/^ {2}(\w+) +allowed=(true|false) +source=(\w+) +asked=(true|false)$/gm)].map((m) => ({
    tool: m[1]!,
    allowed: m[2] === "true",
    source: m[3]!,
    asked: m[4] === "true",
  }));
}

describe("approval samples print what they show", () => {
  it("samples/approvals.ts: the tool name, the CLI options, three wire answers and three decision records", async () => {
    const out = await runSample("approvals");
    const f = printedFields(out);
    expect(f.toolName).toBe(TOOL);

    // The options, generically: keys, then each value (mcpConfig as its servers' shape; an env as names only).
    const keys = JSON.parse(f.cliOptions!) as string[];
    expect(keys.filter((k) => k !== "env").sort()).toEqual(["mcpConfig", "permissionPromptTool", "settingSources", "strictMcpConfig"]);
    for (const k of keys) expect(f, `a line for ${k}`).toHaveProperty([k]);
    const servers = JSON.parse(f.mcpConfig!) as Array<Record<string, { type: string; url: string; headers?: string[] }>>;
    expect(servers).toHaveLength(1);
    expect(Object.keys(servers[0]!)).toEqual(["agentkit_approvals"]);
    const entry = servers[0]!.agentkit_approvals!;
    expect(entry.type).toBe("http");
    expect(entry.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(JSON.parse(f.strictMcpConfig!)).toBe(true);
    expect(JSON.parse(f.permissionPromptTool!)).toBe(TOOL);
    expect(JSON.parse(f.settingSources!)).toBe("");
    // The entry carries an Authorization header; its value (the credential) is not printed.
    expect(entry.headers).toEqual(["Authorization"]);
    expect(out).not.toContain("Bearer");

    expect(JSON.parse(f.tools!)).toEqual(["approve"]);
    const answers = [...out.matchAll(/^ {2}(\w+) +-> (.*)$/gm)].map((m) => [m[1], JSON.parse(m[2]!)]);
    expect(answers).toEqual([
      ["Read", { behavior: "allow", updatedInput: { file_path: "/etc/passwd" } }],
      ["Write", { behavior: "deny", message: "/etc is out of scope" }],
      ["Write", { behavior: "allow", updatedInput: { file_path: "out.txt" } }],
    ]);
    expect(JSON.parse(f.promptsSeen!)).toBe(3);
    expect(decisionLines(out)).toEqual([
      { tool: "Read", allowed: true, source: "auto_allow", asked: false },
      { tool: "Write", allowed: false, source: "asker", asked: true },
      { tool: "Write", allowed: true, source: "asker", asked: true },
    ]);
  });

  it("samples/approvals-narrowing.ts: README.md is auto-allowed, /etc/passwd falls through to the reviewer", async () => {
    const lines = (await runSample("approvals-narrowing")).trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^Read README\.md +auto-allowed: true$/);
    expect(lines[1]).toMatch(/^Read \/etc\/passwd +auto-allowed: false +\/\/ falls through to the reviewer: source=asker asked=true$/);
  });
});
