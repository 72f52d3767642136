/**
 * @module test/express/hosted-module.test
 * An `@McpServer` module hosted by `mcpRouter`, built by bootstrap's own scan
 * and build: its `@Tool` classes, a remote MCP server (a real stdio
 * subprocess) as a provider a `@Tool` class calls, and a `@Resource`; the
 * router's `stop()` stops the remote. Also: the tool deadline, and the
 * package's `MCPClient` pinned to each era.
 */
import "reflect-metadata";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Tool, tool, type RunContext } from "../../src/index.js";
import { InjectMcpTools, McpServer, MCPClient, Resource, StdioServer, StreamableHttpServer, remote } from "../../src/mcp/index.js";
import { hostedCaller } from "../../src/express/index.js";
import { pidsMatching, waitGone } from "../helpers/procs.js";
import express from "express";
import type { AddressInfo } from "node:net";
import { mcpRouter } from "../../src/express/index.js";
import { closeAll, grant, hosted, post, sayYes } from "./kit.js";
import { v2Client } from "../helpers/v2-client.js";

afterEach(closeAll);

const FIXTURE = fileURLToPath(new URL("../fixtures/servers/tools-stdio-server.mjs", import.meta.url));

@Tool({ description: "Who asks, as the tool sees it.", sideEffecting: false, scopes: ["profile"] })
class Me {
  run(_input: unknown, ctx: RunContext): string {
    return hostedCaller(ctx)?.subject ?? "nobody";
  }
}

type RemoteTool = { name: string; run(a: Record<string, unknown>, c: RunContext): Promise<unknown> };

@Tool({
  description: "Search the knowledge base through the injected remote.",
  sideEffecting: false,
  input: { type: "object", properties: { q: { type: "string" } }, required: ["q"], additionalProperties: false },
})
class KbSearch {
  constructor(@InjectMcpTools("kb") private readonly kb: RemoteTool[]) {}
  run(input: { q: string }, ctx: RunContext): Promise<unknown> {
    return this.kb.find((t) => t.name === "kb_search")!.run({ q: input.q }, ctx);
  }
}

@Resource({ uri: "notes://motd", description: "The message of the day.", mimeType: "text/plain" })
class Motd {
  read(): string {
    return "ship small";
  }
}

@McpServer({
  name: "front",
  tools: [Me, KbSearch],
  resources: [Motd],
  remotes: [remote("kb", new StdioServer({ command: process.execPath, args: [FIXTURE, "search"] }), { prefix: "kb_" })],
})
class FrontModule {}

const textOf = (r: unknown): string => (r as { content: Array<{ text?: string }> }).content[0]?.text ?? "";

describe("a hosted @McpServer module", () => {
  it("serves its @Tool classes, its remote's tools and its resources; scopes filter the list; stop() stops the remote", async () => {
    const h = await hosted(FrontModule);
    expect(pidsMatching(FIXTURE).length).toBeGreaterThan(0);
    await using full = await v2Client(h.url, {
      token: grant(h, "t-profile", ["profile"], { subject: "dana" }),
      version: "2026-07-28",
      elicit: sayYes,
    });
    // read_result (result budgets are on by default) is listed to every token: it reads only the caller's own results.
    expect((await full.listTools()).tools.map((t) => t.name).sort()).toEqual(["kb_search", "me", "read_result"]);
    expect(textOf(await full.callTool({ name: "me", arguments: {} }))).toBe("dana");
    expect(textOf(await full.callTool({ name: "kb_search", arguments: { q: "eggs" } }))).toBe("search:eggs");
    const read = await full.readResource({ uri: "notes://motd" });
    expect(read.contents[0]).toMatchObject({ uri: "notes://motd", text: "ship small" });
    await using narrow = await v2Client(h.url, { token: grant(h, "t-none", []), version: "2026-07-28", elicit: sayYes });
    expect((await narrow.listTools()).tools.map((t) => t.name)).toEqual(["kb_search", "read_result"]);
    await h.router.stop();
    expect(await waitGone(FIXTURE)).toEqual([]);
  });
});

describe("a module that cannot start", () => {
  @McpServer({
    name: "dead",
    tools: [],
    remotes: [remote("ghost", new StdioServer({ command: process.execPath, args: ["-e", "process.exit(3)"] }))],
  })
  class DeadModule {}

  it("ready rejects with the BootstrapError naming the remote, and each request is answered 503 saying why (the app keeps serving)", async () => {
    const app = express();
    const server = await new Promise<import("node:http").Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      const router = mcpRouter(DeadModule, {
        resource: url,
        authorizationServers: ["http://127.0.0.1:9/issuer"],
        verifyAccessToken: () => ({ clientId: "c", scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 60, resource: url }),
      });
      app.use("/mcp", router);
      await expect(router.ready).rejects.toMatchObject({ name: "BootstrapError", message: expect.stringContaining("remote 'ghost'") });
      const res = await post(
        url,
        { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
        { authorization: "Bearer any", "mcp-protocol-version": "2025-11-25" },
      );
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: { message: expect.stringContaining("the hosted MCP server could not start: ") } });
      await router.stop();
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe("limits and clients", () => {
  it("a tool past timeoutMs is abandoned with an isError result naming the deadline", async () => {
    const slow = tool(
      { name: "slow", description: "Never returns in time.", sideEffecting: false },
      (_i, ctx) => new Promise((resolve) => ctx.onCancel(() => resolve("late"))),
    );
    const h = await hosted([slow], { timeoutMs: 300 });
    await using client = await v2Client(h.url, { token: grant(h, "t-slow", []), version: "2026-07-28", elicit: sayYes });
    const result = await client.callTool({ name: "slow", arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("tool 'slow' did not return within 0.3s and was abandoned");
  });

  it.each(["2026-07-28", "2025-11-25"] as const)("the package's MCPClient pinned to %s lists and calls", async (protocol) => {
    const echo = tool(
      { name: "echo", description: "Echo.", sideEffecting: false, input: { type: "object", properties: { text: { type: "string" } } } },
      ({ text }: { text?: string }) => `echo:${text}`,
    );
    const h = await hosted([echo]);
    const client = await MCPClient.start(
      new StreamableHttpServer({ url: h.url, protocol, headers: { authorization: `Bearer ${grant(h, `t-${protocol}`, [])}` } }),
    );
    try {
      expect(client.protocolVersion).toBe(protocol);
      expect((await client.listTools()).map((t) => t.name)).toEqual(["echo", "read_result"]);
      expect(textOf(await client.callTool("echo", { text: "hi" }))).toBe("echo:hi");
    } finally {
      await client.stop();
    }
  });
});
