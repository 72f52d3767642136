/**
 * @module test/mcp-di/handed-asker.test
 * `bootstrap(module, { asker })` on a module that names no Asker (what
 * `agentkit serve --approve` does, issue #43 point 4): the handed person
 * answers, and the module's `requiresApproval` tools ask it before they run;
 * a module that says `guard: "none"` keeps its tools unasked.
 */
import "reflect-metadata";
import { describe, expect, it } from "vitest";
import { tool, type Asker } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { MCPClient, McpServer, StreamableHttpServer, bootstrap } from "../../src/mcp/index.js";
import { askerAnswering } from "../helpers/asker.js";

/** An Asker that answers `decision` and records the tools it was asked about. */

const deploy = tool({ name: "deploy", description: "Deploy.", requiresApproval: true }, () => "deployed");

class Plain {}
McpServer({ name: "plain", tools: [deploy] })(Plain);
class Unguarded {}
McpServer({ name: "unguarded", tools: [deploy], guard: "none" })(Unguarded);

async function callDeploy(module: object, asker: Asker): Promise<{ text: string; guarded: boolean }> {
  await using app = await bootstrap(module as new () => object, { ctx: makeTestCtx(), asker });
  await using client = await MCPClient.start(
    new StreamableHttpServer({ url: app.spec!.url!, headers: app.spec!.authHeaders, protocol: "2025-11-25" }),
  );
  const r = await client.callTool("deploy", {});
  return { text: (r.content[0] as { text: string }).text, guarded: app.guard !== null };
}

describe("a person handed to bootstrap", () => {
  it("is asked before a requiresApproval tool of a module that names no Asker", async () => {
    const rejecting = askerAnswering({ kind: "reject", actor: "ops", note: "not today" });
    const r = await callDeploy(Plain, rejecting);
    expect(r.guarded).toBe(true);
    expect(rejecting.seen.map((q) => q.toolCall?.name)).toEqual(["mcp__plain__deploy"]);
    expect(r.text).toBe("tool 'deploy' was not run: rejected by ops: not today");
  });

  it('is not asked when the module says guard: "none"', async () => {
    const rejecting = askerAnswering({ kind: "reject", actor: "ops" });
    const r = await callDeploy(Unguarded, rejecting);
    expect(r.guarded).toBe(false);
    expect(rejecting.seen).toEqual([]);
    expect(r.text).toBe("deployed");
  });
});
