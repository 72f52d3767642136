/**
 * @module samples/mcp-smallest
 * Spawn a tiny MCP server and call its tool as an agentkit Tool.
 *
 * The smallest thing that works. It needs no API key, no network and no
 * third-party server: the server is a few lines of the MCP SDK and runs under
 * the same Node. It prints the adapted tool's prefixed name and description,
 * the JSON Schema the server advertised for `a` and `b`, that an MCP tool is
 * treated as side-effecting, and the result of calling it
 * (test/mcp-client/samples.test.ts checks each).
 */
import { fileURLToPath } from "node:url";
import { MCPClient, StdioServer, mcpTools } from "arc-agentkit/mcp";
import { makeTestCtx } from "arc-agentkit/testing";

// A complete MCP server, run via `node -e` so this file stands alone (its
// imports resolve from `cwd`, this sample's folder inside the project).
// In real use `command` is `npx`, `uvx`, or a compiled binary.
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
  const server = new StdioServer({
    command: process.execPath,
    args: ["--input-type=module", "-e", SERVER],
    cwd: fileURLToPath(new URL(".", import.meta.url)),
  });
  await using mcp = await MCPClient.start(server);
  const tools = await mcpTools(mcp, { prefix: "demo_" });
  const tool = tools[0]!;
  console.log(tool.name, "|", tool.description);
  console.log("params:", JSON.stringify(tool.schema.parameters.properties));
  console.log("sideEffecting:", tool.sideEffecting);

  const ctx = makeTestCtx();
  console.log("result:", await tool.run({ a: 2, b: 3 }, ctx));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
