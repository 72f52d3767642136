/**
 * @module bench/servers/stdio-server
 * The SDK's low-level Server on stdio: `node stdio-server.js [--tools N]
 * [--resources N]`. Serves `echo` (plus N-1 filler tools) and N text
 * resources `bench://doc/<n>` named `doc-<n>` ("topic-<n % 50>" in the
 * description). Exits when stdin closes.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Resource,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { ECHO, ECHO_DESCRIPTION, ECHO_SCHEMA } from "./echo.js";

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const toolCount = Math.max(1, flag("--tools", 1));
const resourceCount = flag("--resources", 0);

const tools: Tool[] = [{ name: ECHO, description: ECHO_DESCRIPTION, inputSchema: ECHO_SCHEMA as never }];
for (let n = 1; n < toolCount; n++) {
  tools.push({
    name: `filler_${n}`,
    description: `Filler tool number ${n}, for list sizes.`,
    inputSchema: {
      type: "object",
      properties: { q: { type: "string", description: "query" }, limit: { type: "integer" } },
      required: ["q"],
    },
  });
}
const resources: Resource[] = Array.from({ length: resourceCount }, (_, n) => ({
  uri: `bench://doc/${n}`,
  name: `doc-${n}`,
  description: `Document ${n} about topic-${n % 50}.`,
  mimeType: "text/plain",
}));

const server = new Server(
  { name: "bench-stdio", version: "1.0.0" },
  { capabilities: { tools: {}, ...(resourceCount ? { resources: {} } : {}) } },
);
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, (req): CallToolResult => {
  const a = (req.params.arguments ?? {}) as { i?: unknown; text?: unknown };
  return { content: [{ type: "text", text: JSON.stringify({ i: a.i, text: a.text }) }] };
});
if (resourceCount) {
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources }));
  server.setRequestHandler(ReadResourceRequestSchema, (req) => ({
    contents: [{ uri: req.params.uri, mimeType: "text/plain", text: `contents of ${req.params.uri}` }],
  }));
}
process.stdin.on("end", () => void server.close().finally(() => process.exit(0)));
await server.connect(new StdioServerTransport());
