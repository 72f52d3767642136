/**
 * @module test/mcp-client/resource-cache-and-dispose.test
 * `mcpResources()`' own list cache expires after its `ttlMs` (counted as
 * `resources/list` requests at the counting fixture server, with the client's
 * cache turned off so only the adapter's cache stands between), and keeps its
 * 30 s default otherwise; `await using` of an `MCPClient` really closes it:
 * after the block the stdio server process is gone.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { MCPClient, StdioServer, mcpResources } from "../../src/mcp/index.js";
import { NODE, fixture, newTag, taggedProcesses } from "./support.js";
import { untilValue } from "../helpers/wait.js";

/** The counting fixture server, tagged so the test can find its process. */
function countingServer(tag?: string): StdioServer {
  return new StdioServer({
    command: NODE,
    args: [fixture("counting-stdio-server.mjs")],
    ...(tag ? { env: { AGENTKIT_TREE_TAG: tag } } : {}),
  });
}

/** `resources/list` requests the server has received so far. */
async function resourceLists(client: MCPClient): Promise<number> {
  const r = await client.callTool("stats", {});
  return (JSON.parse((r.content[0] as { text: string }).text) as Record<string, number>)["resources/list"]!;
}

describe("mcpResources list cache TTL (a fake clock: only performance.now, the cache's clock, is faked; the stdio server and its pipes run for real)", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("serves its own cached list within ttlMs and lists again once it has expired", async () => {
    // ttlMs: 0 on the client: every client.listResources() reaches the server, so what the count shows is the adapter's cache.
    await using client = await MCPClient.start(countingServer(), { ttlMs: 0 });
    vi.useFakeTimers({ toFake: ["performance"] });
    const memory = mcpResources(client, { ttlMs: 1_000 });
    expect((await memory.query("runbook"))[0]!.metadata.uri).toBe("docs://runbook");
    expect((await memory.query("guide"))[0]!.metadata.uri).toBe("docs://guide");
    expect(await resourceLists(client)).toBe(1);
    vi.advanceTimersByTime(999);
    await memory.query("runbook");
    expect(await resourceLists(client)).toBe(1);
    vi.advanceTimersByTime(2);
    expect((await memory.query("runbook"))[0]!.metadata.uri).toBe("docs://runbook");
    expect(await resourceLists(client)).toBe(2);
    await memory.query("guide");
    expect(await resourceLists(client)).toBe(2);
    vi.advanceTimersByTime(1_001);
    await memory.query("logo");
    expect(await resourceLists(client)).toBe(3);
  });

  it("without ttlMs the list is kept for the 30 s default, and listed again after it", async () => {
    await using client = await MCPClient.start(countingServer(), { ttlMs: 0 });
    vi.useFakeTimers({ toFake: ["performance"] });
    const memory = mcpResources(client);
    await memory.query("runbook");
    vi.advanceTimersByTime(29_999);
    await memory.query("runbook");
    expect(await resourceLists(client)).toBe(1);
    vi.advanceTimersByTime(2);
    await memory.query("runbook");
    expect(await resourceLists(client)).toBe(2);
    // The client itself does not cache here: a direct listing reaches the server.
    await client.listResources();
    expect(await resourceLists(client)).toBe(3);
  });
});

describe("mcpResources list cache and the server's list_changed", () => {
  it("a resource the server adds is found by the next query, well inside the 30 s TTL", async () => {
    await using client = await MCPClient.start(
      new StdioServer({ command: NODE, args: [fixture("tools-stdio-server.mjs")], env: { TOOLS_GROW: "1" } }),
    );
    const memory = mcpResources(client); // the 30 s default TTL
    expect(await memory.query("extra")).toEqual([]);
    await client.callTool("grow", { q: "" }); // registers docs://extra_1; the server sends resources/list_changed
    const found = await untilValue(
      () => memory.query("extra"),
      (items) => items.length > 0,
      "the extra resource in memory",
      3000,
    );
    expect(found.map((i) => i.metadata.uri)).toEqual(["docs://extra_1"]);
    expect(found[0]!.content).toBe("extra resource 1");
  });
});

describe("await using MCPClient", () => {
  it("closes the client at the end of the block: the stdio server process is gone", async () => {
    const tag = newTag();
    let pid: number | undefined;
    let outside: MCPClient | undefined;
    {
      await using client = await MCPClient.start(countingServer(tag));
      outside = client;
      pid = client.pid;
      expect(pid).toBeGreaterThan(0);
      expect(taggedProcesses(tag)).toEqual([pid]);
      expect((await client.callTool("add", { a: 1, b: 2 })).content).toEqual([{ type: "text", text: "3" }]);
    }
    // Disposal awaited close(): the process is gone now, not eventually.
    expect(taggedProcesses(tag)).toEqual([]);
    expect(() => process.kill(pid!, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
    expect(outside.isOpen).toBe(false);
  });

  it("closes it when the block throws, too", async () => {
    const tag = newTag();
    const boom = new Error("leaving the block by a throw");
    const thrown = await (async () => {
      await using client = await MCPClient.start(countingServer(tag));
      expect(taggedProcesses(tag)).toEqual([client.pid]);
      throw boom;
    })().catch((e: unknown) => e);
    expect(thrown).toBe(boom);
    expect(taggedProcesses(tag)).toEqual([]);
  });
});
