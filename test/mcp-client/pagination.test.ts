/** @module test/mcp-client/pagination.test */
import { describe, expect, it } from "vitest";
import { MCPClient, StdioServer } from "../../src/mcp/index.js";
import { NODE, fixture } from "./support.js";
import { McpRequestError } from "../../src/index.js";

const paginated = (env: Record<string, string> = {}) =>
  new StdioServer({ command: NODE, args: [fixture("paginated-lists-server.mjs")], env });

describe("lists are joined across pages", () => {
  it("listTools, listResources and listPrompts return every page, in order", async () => {
    await using client = await MCPClient.start(paginated());
    expect((await client.listTools()).map((t) => t.name)).toEqual(["t0", "t1", "t2", "t3", "t4"]);
    expect((await client.listResources()).map((r) => r.uri)).toEqual(["page://r0", "page://r1", "page://r2", "page://r3", "page://r4"]);
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(["p0", "p1", "p2"]);
  });

  it("output schemas of tools on every page are enforced, not only the last page's", async () => {
    await using client = await MCPClient.start(paginated());
    await client.listTools();
    expect(await client.callTool("t4", {})).toEqual({ content: [{ type: "text", text: "t4" }] });
    const err = await client.callTool("t0", {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpRequestError);
    expect((err as Error).message).toContain("Structured content does not match the tool's output schema");
  });

  it("a server that repeats its cursor is refused instead of looping", async () => {
    await using client = await MCPClient.start(paginated({ REPEAT_CURSOR: "1" }));
    await expect(client.listTools()).rejects.toThrow(/^MCP tools\/list on stdio server .* failed: the server repeated cursor "again"/);
  });
});
