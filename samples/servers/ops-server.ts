/**
 * @module samples/servers/ops-server
 * A small, real MCP server over stdio, written with the SDK's high-level
 * `McpServer`: the "remote" the DI sample injects as a provider. Runs as
 * `node build/samples/servers/ops-server.js`.
 */
import { McpServer as SdkMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new SdkMcpServer({ name: "ops", version: "1.0.0" });

server.registerTool(
  "queue_depth",
  { description: "Report the ingest queue's depth.", inputSchema: { queue: z.string() } },
  async ({ queue }) => ({ content: [{ type: "text", text: `${queue}: 42 messages waiting` }] }),
);

server.registerResource("runbook", "docs://runbook", { description: "On-call runbook.", mimeType: "text/plain" }, async (uri) => ({
  contents: [{ uri: uri.href, mimeType: "text/plain", text: "Restart the ingest worker, then check the queue depth." }],
}));

server.registerPrompt("triage", { description: "Static triage prompt." }, async () => ({
  messages: [{ role: "user", content: { type: "text", text: "You triage incidents. Be terse." } }],
}));

server.connect(new StdioServerTransport()).catch((err) => {
  process.stderr.write(`ops-server: ${String(err)}\n`);
  process.exit(1);
});
