/** @module test/mcp-client/process-tree.test */
import { describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { MCPClient, StdioServer } from "../../src/mcp/index.js";
import { EVERYTHING, NODE, eventually, fixture, killTagged, newTag, taggedProcesses } from "./support.js";

// The launcher starts server-everything as a grandchild that keeps running
// after stdin closes (a watcher, a pool, a thread): the npx/uvx shape where
// ending only the direct child orphans the real server.
function launched(tag: string): { command: string; args: string[]; env: Record<string, string> } {
  return { command: NODE, args: [fixture("launcher-spawns-grandchild.mjs"), EVERYTHING, "stdio"], env: { AGENTKIT_TREE_TAG: tag } };
}

describe("closing a stdio client ends the server's whole process tree", () => {
  it("a launcher and the real server it spawned are both gone after close()", async () => {
    const tag = newTag();
    const client = await MCPClient.open(new StdioServer(launched(tag)));
    try {
      const names = (await client.listTools()).map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["echo", "get-sum"]));
      const tree = taggedProcesses(tag);
      expect(tree).toHaveLength(2); // launcher + server
      expect(tree).toContain(client.pid);
      expect(client.stderrTail).toMatch(/^launcher \d+ started server \d+$/m);
    } finally {
      await client.close();
    }
    expect(taggedProcesses(tag)).toEqual([]);
  });

  it("control: the SDK's own StdioClientTransport leaves that grandchild running", async () => {
    const tag = newTag();
    const { command, args, env } = launched(tag);
    const session = new Client({ name: "control", version: "0" });
    await session.connect(new StdioClientTransport({ command, args, env: { ...(process.env as Record<string, string>), ...env }, stderr: "pipe" }));
    try {
      expect(taggedProcesses(tag)).toHaveLength(2);
      await session.close(); // ends stdin, waits, SIGTERMs the launcher only
      const left = await eventually(() => taggedProcesses(tag), (p) => p.length <= 1, 3000);
      expect(left).toHaveLength(1); // the orphaned server
    } finally {
      killTagged(tag);
      await eventually(() => taggedProcesses(tag), (p) => p.length === 0);
    }
  });
});
