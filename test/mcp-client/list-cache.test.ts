/**
 * @module test/mcp-client/list-cache.test
 * `MCPClient`'s lists live in the SDK `Client`'s response cache
 * (src/mcp/client/list-cache.ts). What the package keeps on top of it, with
 * a fake clock (only `Date`, which the SDK's cache reads, faked before the
 * client opens; the servers are real processes): the client's TTL (30 s by default) for a list
 * without a server `ttlMs`, and as the most a server's longer `ttlMs` keeps
 * one. And why the package refuses a repeated cursor: the SDK's own walk,
 * against the same real server, returns a list cut short without a word.
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_TTL_MS, MCPClient, StdioServer, StreamableHttpServer } from "../../src/mcp/index.js";
import { NODE, fixture, startModernHttpServer } from "./support.js";

const text = (r: { content: Array<{ type: string; text?: string }> }) => r.content.map((c) => c.text ?? "").join("");
const toolLists = async (client: MCPClient) => (JSON.parse(text(await client.callTool("stats"))) as Record<string, number>)["tools/list"];

afterEach(() => {
  vi.useRealTimers();
});

/** Move the faked `Date` on by `ms`. */
const later = (ms: number) => vi.setSystemTime(Date.now() + ms);

describe("the client's TTL over the SDK's cache", () => {
  it("a list without a server ttlMs (2025) is kept for the 30 s default, then asked for again", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    await using client = await MCPClient.start(new StdioServer({ command: NODE, args: [fixture("counting-stdio-server.mjs")] }));
    await client.listTools();
    later(DEFAULT_TTL_MS - 1_000);
    await client.listTools();
    expect(await toolLists(client)).toBe(1);
    later(2_000);
    await client.listTools();
    expect(await toolLists(client)).toBe(2);
  });

  it("a server's longer ttlMs (60 s, 2026-07-28) is cut to the client's ttlMs", async () => {
    await using server = await startModernHttpServer("list-cache-token", { MODERN_TTL_MS: "60000" });
    vi.useFakeTimers({ toFake: ["Date"] });
    await using client = await MCPClient.start(
      new StreamableHttpServer({ url: server.url, headers: { Authorization: "Bearer list-cache-token" } }),
      { ttlMs: 5_000 },
    );
    expect(client.protocolVersion).toBe("2026-07-28");
    await client.listTools();
    later(4_000);
    await client.listTools();
    expect(await toolLists(client)).toBe(1);
    later(2_000);
    await client.listTools();
    expect(await toolLists(client)).toBe(2);
  });
});

describe("why MCPClient refuses a repeated cursor", () => {
  it("the SDK's own walk ends quietly where a page repeats its cursor, and returns the list cut short (typescript-sdk#2735)", async () => {
    const sdk = new Client({ name: "walk", version: "0" });
    await sdk.connect(
      new StdioClientTransport({
        command: NODE,
        args: [fixture("paginated-lists-server.mjs")],
        env: { ...process.env, REPEAT_CURSOR: "1" } as Record<string, string>,
      }),
    );
    try {
      // The server answers every page with tools t0, t1 and nextCursor "again": the SDK takes the second page for the end.
      const { tools } = await sdk.listTools();
      expect(
        tools.map((t) => t.name),
        "the SDK no longer cuts the walk short: drop refuseRepeatedCursor (src/mcp/client/list-cache.ts)",
      ).toEqual(["t0", "t1"]);
    } finally {
      await sdk.close();
    }
  });
});
