/**
 * @module samples/mcp-agent
 * The same server, driven by a scripted FakeLLM instead of a real one.
 *
 * Adapted MCP tools satisfy the Tool contract structurally, so they drop into
 * ReActCognition unchanged: the scripted model calls `demo_add`, reads 5, and
 * answers. Swap FakeLLM for a real model and nothing about the MCP wiring
 * changes.
 */
import { fileURLToPath } from "node:url";
import { Agent, ReActCognition } from "arc-agentkit";
import { MCPClient, StdioServer, mcpTools } from "arc-agentkit/mcp";
import { FakeLLM, Turn, makeTestCtx } from "arc-agentkit/testing";

const SERVER = `
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
const mcp = new McpServer({ name: "demo", version: "1.0.0" });

mcp.registerTool("add", {
  description: "Add two integers.",
  inputSchema: { a: z.int().meta({ title: "A" }), b: z.int().meta({ title: "B" }) },
}, async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }));

await mcp.connect(new StdioServerTransport());
`;

async function main(): Promise<void> {
  const llm = FakeLLM.script([
    new Turn({ toolCalls: [{ id: "1", name: "demo_add", arguments: { a: 2, b: 3 } }] }),
    new Turn({ content: "2 + 3 is 5." }),
  ]);
  const ctx = makeTestCtx({ llm });
  const cwd = fileURLToPath(new URL(".", import.meta.url));
  await using mcp = await MCPClient.start(new StdioServer({ command: process.execPath, args: ["--input-type=module", "-e", SERVER], cwd }));
  const agent = new Agent({
    name: "calc",
    model: "fake",
    prompt: "Use the tools.",
    cognition: new ReActCognition({ tools: await mcpTools(mcp, { prefix: "demo_" }) }),
  });
  const result = await agent.run("What is 2 + 3?", ctx);
  console.log("output:", result.output, "| stopReason:", result.stopReason);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
