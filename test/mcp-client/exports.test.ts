/** @module test/mcp-client/exports.test */
import { expect, it } from "vitest";
import * as client from "../../src/mcp/client/index.js";
import * as mcp from "../../src/mcp/index.js";

// An addition to the client's public surface is a reviewed decision: update this list on purpose.
const CLIENT_EXPORTS = [
  "DEFAULT_TTL_MS",
  "MCPClient",
  "StdioServer",
  "StreamableHttpServer",
  "mcpPrompts",
  "mcpResources",
  "mcpSkills",
  "mcpTools",
  "toolResultText",
];

// One import path per name: the barrel holds only what arc-agentkit/mcp re-exports (the
// internal constants and renderers are imported from their own files), and the classes
// its factories build (`McpTool`, `McpResourceMemory`) are types, not values.
it("the client barrel exports exactly these values, each one arc-agentkit/mcp re-exports", () => {
  expect(Object.keys(client).sort()).toEqual(CLIENT_EXPORTS);
  for (const name of CLIENT_EXPORTS) expect(mcp[name as keyof typeof mcp], name).toBe(client[name as keyof typeof client]);
  expect(client.DEFAULT_TTL_MS).toBe(30_000);
});
