/**
 * @module test/mcp-approvals/advertised-schema-and-no-deadline.test
 * What the Claude CLI reads from `tools/list`: the `approve` tool's
 * `inputSchema` (tool_name, input, tool_use_id; tool_name and input
 * required), as it arrives over a real loopback session. And `timeoutMs`
 * unset really waits: an Asker that answers after ~1.5 s is heard (allowed,
 * source `asker`), not cut off by some default deadline.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import type { Decision } from "../../src/contracts/elicitation.js";
import { ApprovalServer, APPROVAL_TOOL_NAME } from "../../src/mcp/approvals/index.js";
import { askerAnswering } from "../helpers/asker.js";

/** An SDK client on the approval server (one dependent signal per request, as the other approval tests do). */
async function clientFor(server: ApprovalServer): Promise<Client & AsyncDisposable> {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { ...server.authHeaders } },
    fetch: (u, init) => fetch(u, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init),
  });
  const client = new Client({ name: "agentkit-approvals-test", version: "0.0.0" });
  await client.connect(transport);
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

describe("the advertised approve tool", () => {
  it("has inputSchema { tool_name: string, input: object, tool_use_id: string }, tool_name and input required", async () => {
    await using server = await ApprovalServer.start({ asker: { ask: async () => ({ kind: "approve" }) } });
    await using client = await clientFor(server);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([APPROVAL_TOOL_NAME]);
    const schema = tools[0]!.inputSchema;
    expect(schema).toEqual({
      type: "object",
      properties: {
        tool_name: { type: "string", description: expect.any(String) },
        input: { type: "object", description: expect.any(String) },
        tool_use_id: { type: "string", description: expect.any(String) },
      },
      required: ["tool_name", "input"],
    });
    expect(Object.keys(schema.properties!)).toEqual(["tool_name", "input", "tool_use_id"]);
    for (const p of Object.values(schema.properties as Record<string, { description: string }>))
      expect(p.description.length).toBeGreaterThan(0);
  });
});

describe("timeoutMs unset", () => {
  it("waits for a slow Asker: an approval after ~1.5 s is allowed, source asker", async () => {
    const slow: Decision = { kind: "approve", actor: "slow-reviewer" };
    const asker = askerAnswering(() => new Promise<Decision>((resolve) => setTimeout(() => resolve(slow), 1_500)));
    await using server = await ApprovalServer.start({ asker });
    await using client = await clientFor(server);
    const started = performance.now();
    const r = (await client.callTool({
      name: "approve",
      arguments: { tool_name: "Write", input: { file_path: "out.txt" }, tool_use_id: "toolu_9" },
    })) as CallToolResult;
    expect(r.isError).toBeUndefined();
    expect((r.content[0] as { text: string }).text).toBe('{"behavior": "allow", "updatedInput": {"file_path": "out.txt"}}');
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_400);
    expect(server.decisions).toHaveLength(1);
    expect(server.decisions[0]).toMatchObject({ tool: "Write", allowed: true, source: "asker", asked: true, actor: "slow-reviewer" });
    expect(asker.seen).toHaveLength(1);
    expect(asker.seen[0]!.timeoutMs).toBeUndefined();
    expect(server.timeoutMs).toBeUndefined();
  });
});
