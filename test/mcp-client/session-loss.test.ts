/**
 * @module test/mcp-client/session-loss.test
 * Surviving a lost session. Over HTTP, a fault-injecting server answers 404
 * for sessions it dropped: list calls re-initialize once and are retried; a
 * tools/call is not retried and says the session was lost. Over stdio, the
 * opt-in respawn restarts a server that died, re-lists its tools and reports
 * each restart on ctx.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MCPClient, StdioServer, StreamableHttpServer } from "../../src/mcp/index.js";
import { RunContext, type RunEvent, McpRequestError } from "../../src/index.js";
import { NODE, fixture, startSessionLossServer, type ServerProcess } from "./support.js";
import { untilValue } from "../helpers/wait.js";

describe("HTTP: the server answers 404 for the session", () => {
  let server: ServerProcess;
  beforeEach(async () => {
    server = await startSessionLossServer();
  });
  afterEach(() => server.stop());
  const hook = async (path: string, method = "POST") =>
    (await fetch(new URL(path, server.url), { method })).json() as Promise<Record<string, number>>;

  it("a list call re-initializes once and is retried: the caller sees the list", async () => {
    await using client = await MCPClient.start(new StreamableHttpServer({ url: server.url }));
    expect((await client.listTools()).map((t) => t.name)).toEqual(["bump"]);
    await hook("/test/forget");
    expect((await client.listTools({ forceRefresh: true })).map((t) => t.name)).toEqual(["bump"]);
    expect(await hook("/test/stats", "GET")).toMatchObject({ initializes: 2, notFound: 1 });
    expect((await client.callTool("bump")).content).toEqual([{ type: "text", text: "1" }]);
  });

  it("a tools/call is not retried: it fails saying the session was lost, and the next call works on the new session", async () => {
    await using client = await MCPClient.start(new StreamableHttpServer({ url: server.url }));
    await hook("/test/forget");
    const err = await client.callTool("bump").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpRequestError);
    expect((err as McpRequestError).code).toBe("mcp_session_lost");
    expect((err as McpRequestError).renewed).toBe(true);
    expect((err as Error).message).toMatch(
      /^MCP tools\/call 'bump' on streamable HTTP server http:\/\/127\.0\.0\.1:\d+\/mcp failed: .*\. the server lost the session \(HTTP 404\)\. The call was not retried: it may have run and had side effects/,
    );
    expect((await hook("/test/stats", "GET")).bumps).toBe(0);
    expect((await client.callTool("bump")).content).toEqual([{ type: "text", text: "1" }]);
  });

  it("re-initializes only once: a server that loses every session right after initialize makes the list fail, naming why", async () => {
    await using client = await MCPClient.start(new StreamableHttpServer({ url: server.url }));
    await hook("/test/amnesia");
    const err = await client.listTools({ forceRefresh: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpRequestError);
    expect((err as McpRequestError).code).toBe("mcp_session_lost");
    expect((err as McpRequestError).renewed).toBe(false);
    expect((err as Error).message).toMatch(
      /failed: .*Session not found.*\. the server lost the session \(HTTP 404\) and re-initializing failed: MCPClient could not open/,
    );
    // One re-initialization, no loop.
    expect((await hook("/test/stats", "GET")).initializes).toBe(2);
  });
});

describe("stdio: the opt-in respawn", () => {
  const crashy = () => new StdioServer({ command: NODE, args: [fixture("crash-on-call-stdio-server.mjs")] });

  it("a server that dies is spawned again, its tools re-listed, and each restart reported on ctx; past maxRestarts it stays down", async () => {
    const events: RunEvent[] = [];
    const ctx = new RunContext({ sink: (e) => e.event === "mcp.restart" && events.push(e) });
    await using client = await MCPClient.start(crashy(), { ctx, restart: { maxRestarts: 1, backoffMs: 50 } });
    const firstPid = client.pid;
    await expect(client.callTool("crash")).rejects.toThrow(McpRequestError); // the call in flight is not retried
    await untilValue(
      () => events.length,
      (n) => n === 1,
      "one restart event",
    );
    expect(events[0]!.data).toMatchObject({
      attempt: 1,
      maxRestarts: 1,
      reason: "the server process exited with code 3",
      ok: true,
      tools: 2,
    });
    expect(client.pid).not.toBe(firstPid);
    expect((await client.callTool("pid")).content).toEqual([{ type: "text", text: String(client.pid) }]);

    await expect(client.callTool("crash")).rejects.toThrow(McpRequestError);
    const err = await client.callTool("pid").catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/The connection is gone \(the server process exited with code 3\); open a new MCPClient/);
    expect(events).toHaveLength(1);
  });

  it("without restart a dead server stays dead (the default), and restart is refused for HTTP", async () => {
    await using client = await MCPClient.start(crashy());
    await expect(client.callTool("crash")).rejects.toThrow(McpRequestError);
    await expect(client.callTool("pid")).rejects.toThrow(/open a new MCPClient/);
    await expect(
      MCPClient.start(new StreamableHttpServer({ url: "http://127.0.0.1:9/mcp" }), { restart: { maxRestarts: 1 } }),
    ).rejects.toThrow(/'restart' is for stdio servers only/);
    await expect(MCPClient.start(crashy(), { restart: { maxRestarts: -1 } })).rejects.toThrow(
      /'restart.maxRestarts' must be a non-negative integer, got -1/,
    );
  });
});
