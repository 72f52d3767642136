/** @module test/mcp-client/http-client.test */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Cancelled, McpConnectError } from "../../src/index.js";
import { MCPClient, StreamableHttpServer, mcpTools } from "../../src/mcp/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { captureWarnings, httpStats, startBearerHttpServer, type ServerProcess } from "./support.js";
import { untilValue } from "../helpers/wait.js";

/**
 * How long a refused client is watched for traffic it should not send (no SSE
 * GET, no reconnect, no DELETE). A real wait, kept: it proves something does
 * NOT happen within a window, on the client's real timers and a real server.
 */
const QUIET_MS = 1500;

const TOKEN = "tok-7f3a";

function textOf(r: { content: unknown[] }): string {
  return (r.content[0] as { text: string }).text;
}

describe("MCPClient over streamable HTTP (SDK McpServer, bearer token, 127.0.0.1)", () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startBearerHttpServer(TOKEN);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const config = (headers: Record<string, string> = { Authorization: `Bearer ${TOKEN}` }, timeoutMs?: number) =>
    new StreamableHttpServer({ url: server.url, headers, ...(timeoutMs ? { timeoutMs } : {}) });

  it("sends the headers on every request, calls tools, and ends the session on close", async () => {
    const before = await httpStats(server);
    const client = await MCPClient.start(config());
    try {
      expect(client.session.getServerVersion()).toMatchObject({ name: "bearer-http" });
      expect(textOf(await client.callTool("add", { a: 2, b: 3 }))).toBe("5");
      const tools = await mcpTools(client, { prefix: "h_" });
      expect(tools.map((t) => t.name)).toEqual(["h_add", "h_slow", "h_stats"]);
      expect(await tools[0]!.run({ a: 20, b: 22 }, makeTestCtx())).toBe("42");
      await client.listTools();
      expect((await httpStats(server)).rpc["tools/list"] ?? 0).toBe((before.rpc["tools/list"] ?? 0) + 1);
      expect(client.pid).toBeUndefined();
      expect(client.stderrTail).toBe("");
    } finally {
      await client.stop();
    }
    const after = await httpStats(server);
    expect(after.seenAuth).toEqual([`Bearer ${TOKEN}`]);
    expect(after.http["DELETE /mcp"]).toBe((before.http["DELETE /mcp"] ?? 0) + 1);
    expect(after.sessions).toBe(0);
    expect(after.openRequests).toBe(0);
    expect(() => client.session).toThrow("MCPClient not entered — use await using c = await MCPClient.start(...)");
  });

  it("an endpoint answering 401: McpConnectError with the server's reason, and nothing of ours is left talking to the server", async () => {
    const before = await httpStats(server);
    const err = await MCPClient.start(config({ Authorization: "Bearer wrong" })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpConnectError);
    expect((err as Error).message).toBe(
      `MCPClient could not open streamable HTTP server ${server.url}: the server refused the credentials with HTTP 401, saying "invalid_token" (check the Authorization header). Check the command/URL and credentials, then retry.`,
    );
    expect((err as Error).message).not.toContain("Version negotiation");
    const after = await httpStats(server);
    expect(after.openRequests).toBe(0);
    expect(after.sessions).toBe(before.sessions);
    expect(after.http["POST /mcp"]).toBe((before.http["POST /mcp"] ?? 0) + 1); // one server/discover probe, no retry
    // Nothing keeps going in the background: no SSE GET, no reconnect, no DELETE.
    await new Promise((r) => setTimeout(r, QUIET_MS));
    const mcpTraffic = (h: Record<string, number>) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== "GET /stats"));
    expect(mcpTraffic((await httpStats(server)).http)).toEqual(mcpTraffic(after.http));
  });

  it("an endpoint that never answers: the open times out and its request is torn down", async () => {
    const hang = new StreamableHttpServer({ url: new URL("/mcp-hang", server.url), timeoutMs: 300 });
    const err = await MCPClient.start(hang).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpConnectError);
    expect((err as Error).message).toMatch(
      /^MCPClient could not open streamable HTTP server http:\/\/127\.0\.0\.1:\d+\/mcp-hang: Version negotiation probe timed out after 300ms\./,
    );
    expect(
      (
        await untilValue(
          () => httpStats(server),
          (s) => s.openRequests === 0,
          "no open request on the server",
        )
      ).openRequests,
    ).toBe(0);
  });

  it("aborting the run mid-call cancels the request over HTTP and the session stays usable", async () => {
    await using client = await MCPClient.start(config());
    const base = await httpStats(server);
    const ctx = makeTestCtx();
    const call = client.callTool("slow", {}, { ctx }).catch((e: unknown) => e);
    await untilValue(
      () => httpStats(server),
      (s) => s.slowStarted === base.slowStarted + 1,
      "the slow tool to start",
    );
    ctx.cancel();
    expect(await call).toBeInstanceOf(Cancelled);
    const s = await untilValue(
      () => httpStats(server),
      (v) => v.slowCancelled === base.slowCancelled + 1,
      "the server to cancel the slow call",
    );
    expect(s.rpc["notifications/cancelled"]).toBe((base.rpc["notifications/cancelled"] ?? 0) + 1);
    expect(textOf(await client.callTool("add", { a: 1, b: 2 }, { ctx: makeTestCtx() }))).toBe("3");
  });

  it("2,000 calls through one client and one run raise no MaxListenersExceededWarning", { timeout: 180_000 }, async () => {
    const captured = captureWarnings();
    try {
      await using client = await MCPClient.start(config());
      const [add] = await mcpTools(client);
      const ctx = makeTestCtx();
      for (let i = 0; i < 2000; i++) {
        expect(await add!.run({ a: i, b: 1 }, ctx)).toBe(String(i + 1));
      }
    } finally {
      captured.stop();
    }
    expect(captured.warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
  });
});
