/**
 * @module test/mcp-approvals/guard-checks-arguments-first.test
 * Only what can run reaches a person: a malformed call to a guarded served
 * tool (a real MCP client over loopback HTTP) is refused with the
 * `ToolArgumentError` text and the guard's Asker is never asked; a
 * well-formed one is asked once and runs.
 */
import "reflect-metadata";
import { describe, expect, it } from "vitest";
import { tool, type Asker } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { approvalGuard } from "../../src/mcp/approvals/index.js";
import { MCPClient, StreamableHttpServer } from "../../src/mcp/client/index.js";
import { serveRegistry } from "../../src/mcp/serve/index.js";

describe("approvalGuard on serveRegistry", () => {
  it("checks the arguments against the tool's schema before anyone is asked", async () => {
    const asked: string[] = [];
    const asker: Asker = { ask: async (q) => (asked.push(JSON.stringify(q.toolCall?.arguments)), { kind: "approve", actor: "ops" }) };
    const ran: string[] = [];
    const deploy = tool(
      {
        name: "deploy",
        description: "Deploy.",
        input: { type: "object", properties: { target: { type: "string" } }, required: ["target"], additionalProperties: false },
        requiresApproval: true,
      },
      function deploy(input: { target: string }) {
        ran.push(input.target);
        return `deployed ${input.target}`;
      },
    );
    const guard = approvalGuard({ asker });
    await using spec = await serveRegistry([deploy], { name: "engine", ctx: makeTestCtx(), guard });
    await spec.start();
    await using client = await MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: { ...spec.authHeaders } }));
    const bad = await client.callTool("deploy", { target: 7 });
    expect(bad.isError).toBe(true);
    expect((bad.content[0] as { text: string }).text).toBe(
      "tool 'deploy' call rejected: argument 'target' must be string, got number 7. Accepted arguments: ['target']",
    );
    expect(asked).toEqual([]);
    expect(guard.decisions).toEqual([]);
    const good = await client.callTool("deploy", { target: "prod" });
    expect((good.content[0] as { text: string }).text).toBe("deployed prod");
    expect(asked).toEqual(['{"target":"prod"}']);
    expect(ran).toEqual(["prod"]);
  });
});
