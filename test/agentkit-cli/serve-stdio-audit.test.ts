/**
 * @module test/agentkit-cli/serve-stdio-audit.test
 * `agentkit serve --transport stdio` serves through bootstrap: the module's
 * guard asks its Asker and writes the module's audit file, exactly as over
 * HTTP. The program is spawned as a real child by a real MCP stdio client.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCPClient, StdioServer } from "../../src/mcp/index.js";
import { AGENTKIT, FIXTURES, ROOT, requireBuild } from "./agentkit-process.js";

const dir = mkdtempSync(join(tmpdir(), "agentkit-stdio-audit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(() => requireBuild());

function text(res: { content: Array<{ type: string; text?: string }> }): string {
  return res.content.map((b) => b.text ?? `[${b.type}]`).join("");
}

describe("agentkit serve --transport stdio, a module with auditPath", () => {
  it("asks the module's Asker before the guarded tool runs and writes one audit line per decision", async () => {
    const auditPath = join(dir, "audit.jsonl");
    const server = new StdioServer({
      command: process.execPath,
      args: [AGENTKIT, "serve", join(FIXTURES, "audited-module.mjs"), "--transport", "stdio"],
      env: { AGENTKIT_TEST_AUDIT: auditPath },
      cwd: ROOT,
    });
    {
      await using client = await MCPClient.start(server);
      expect(text(await client.callTool("deploy", { target: "staging" }))).toBe("deployed to staging");
      expect(text(await client.callTool("deploy", { target: "prod" }))).toBe("deployed to prod");
    }
    expect(existsSync(auditPath)).toBe(true);
    const lines = readFileSync(auditPath, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.tool, l.allowed, l.source, l.actor])).toEqual([
      ["mcp__audited__deploy", true, "asker", "fixture-ops"],
      ["mcp__audited__deploy", true, "asker", "fixture-ops"],
    ]);
  });
});
