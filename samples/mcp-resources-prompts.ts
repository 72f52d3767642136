/**
 * @module samples/mcp-resources-prompts
 * Resources and prompts from the same server.
 *
 * Resources become a queryable MemorySource, static prompts become PromptTemplate
 * objects (version `mcp:1`, the rendered text as template), and an argumented
 * prompt is dropped with a warning (on stderr, through the package logger)
 * and fetched directly instead.
 */
import { fileURLToPath } from "node:url";
import { MCPClient, StdioServer, mcpPrompts, mcpResources } from "arc-agentkit/mcp";
import { makeTestCtx } from "arc-agentkit/testing";

const SERVER = `
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
const mcp = new McpServer({ name: "demo", version: "1.0.0" });

mcp.registerResource("runbook", "docs://runbook", { description: "On-call runbook.", mimeType: "text/plain" },
  async (uri) => ({ contents: [{ uri: uri.href, text: "Restart the ingest worker, then check the queue depth." }] }));

mcp.registerPrompt("triage", { description: "Static triage prompt." },
  async () => ({ messages: [{ role: "user", content: { type: "text", text: "You triage incidents. Be terse." } }] }));

mcp.registerPrompt("review", { description: "Needs an argument.", argsSchema: { diff: z.string() } },
  async ({ diff }) => ({ messages: [{ role: "user", content: { type: "text", text: "Review this diff: " + diff } }] }));

await mcp.connect(new StdioServerTransport());
`;

async function main(): Promise<void> {
  const ctx = makeTestCtx();
  const cwd = fileURLToPath(new URL(".", import.meta.url));
  await using mcp = await MCPClient.start(new StdioServer({ command: process.execPath, args: ["--input-type=module", "-e", SERVER], cwd }));
  const memory = mcpResources(mcp, { name: "runbooks" });
  const items = await memory.query("runbook", { k: 1, ctx });
  console.log("memory:", items[0]!.content);
  console.log("metadata:", JSON.stringify(items[0]!.metadata));

  const prompts = await mcpPrompts(mcp);
  console.log(
    "static:",
    JSON.stringify(Object.fromEntries(Object.entries(prompts).map(([k, v]) => [k, { version: v.version, template: v.template }]))),
  );
  console.log("argumented, fetched directly:", await mcp.getPrompt("review", { diff: "-a +b" }));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
