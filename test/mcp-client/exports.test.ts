/** @module test/mcp-client/exports.test */
import { expect, it } from "vitest";
import * as client from "../../src/mcp/client/index.js";
import * as mcp from "../../src/mcp/index.js";

// An addition to the client's public surface is a reviewed decision: update this list on purpose.
const CLIENT_EXPORTS = [
  "DEFAULT_HTTP_TIMEOUT_MS",
  "DEFAULT_MAX_SAMPLING_TOKENS",
  "DEFAULT_MAX_SERVER_REQUESTS",
  "DEFAULT_TTL_MS",
  "MCPClient",
  "MCP_PROMPT_VERSION",
  "McpConnectError",
  "McpNotEnteredError",
  "McpRequestError",
  "McpResourceMemory",
  "McpSessionLostError",
  "McpTool",
  "NOT_ENTERED_MESSAGE",
  "StdioServer",
  "StreamableHttpServer",
  "mcpPrompts",
  "mcpResources",
  "mcpTools",
  "promptText",
  "resourceText",
  "toolResultText",
];

// Internal to the package: constants and renderers the MCP layer uses, not re-exported by arc-agentkit/mcp.
const INTERNAL = ["DEFAULT_HTTP_TIMEOUT_MS", "MCP_PROMPT_VERSION", "NOT_ENTERED_MESSAGE", "promptText", "resourceText"];

it("the client barrel exports exactly these names; arc-agentkit/mcp re-exports all but the internal ones", () => {
  expect(Object.keys(client).sort()).toEqual(CLIENT_EXPORTS);
  for (const name of CLIENT_EXPORTS) {
    if (INTERNAL.includes(name)) expect(name in mcp, name).toBe(false);
    else expect(mcp[name as keyof typeof mcp]).toBe(client[name as keyof typeof client]);
  }
  expect(client.DEFAULT_TTL_MS).toBe(30_000);
});
