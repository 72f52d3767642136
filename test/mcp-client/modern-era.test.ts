/**
 * @module test/mcp-client/modern-era.test
 * Both protocol eras with the default options (`protocol: "auto"`): servers
 * that speak only 2026-07-28 (SDK v2 `createMcpHandler` / `serveStdio` with
 * `legacy: "reject"`, Mastra 2.0's server; real processes, HTTP behind a
 * bearer) and 2025-only
 * servers (SDK v1 fixtures, server-everything, server-filesystem) each open,
 * list, call, read and render a prompt, `protocolVersion` asserted; a client
 * pinned to 2025-11-25 fails against a modern-only server naming both
 * versions.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { RunContext, type Asker, type Elicitation, McpConnectError } from "../../src/index.js";
import { MCPClient, StdioServer, StreamableHttpServer } from "../../src/mcp/index.js";
import type { ProtocolChoice } from "../../src/mcp/client/index.js";
import { EVERYTHING, FILESYSTEM, NODE, fixture, startModernHttpServer, type ServerProcess } from "./support.js";

const TOKEN = "modern-era-token";
const text = (r: { content: Array<{ type: string; text?: string }> }) => r.content.map((c) => c.text ?? "").join("");
const modernStdio = (protocol?: ProtocolChoice) =>
  new StdioServer({ command: NODE, args: [fixture("modern-stdio-server.mjs")], ...(protocol ? { protocol } : {}) });

let http: ServerProcess;
beforeAll(async () => {
  http = await startModernHttpServer(TOKEN);
});
afterAll(async () => {
  await http?.stop();
});
const modernHttp = (protocol?: ProtocolChoice) =>
  new StreamableHttpServer({ url: http.url, headers: { Authorization: `Bearer ${TOKEN}` }, ...(protocol ? { protocol } : {}) });

/** open, list, call, read, prompt with the default options; returns the negotiated version. */
async function roundTrip(server: StdioServer | StreamableHttpServer): Promise<string | undefined> {
  await using client = await MCPClient.start(server);
  expect((await client.listTools()).map((t) => t.name)).toContain("add");
  expect(text(await client.callTool("add", { a: 2, b: 3 }))).toBe("5");
  expect((await client.listResources()).map((r) => r.uri)).toEqual(["docs://guide"]);
  expect(await client.readResource("docs://guide")).toBe("# Guide\nBe brief.");
  expect((await client.listPrompts()).map((p) => p.name)).toEqual(["greet"]);
  expect(await client.getPrompt("greet", { name: "Ada" })).toBe("Hello, Ada!");
  return client.protocolVersion;
}

describe("modern-only servers (2026-07-28), default options", () => {
  it("SDK v2 serveStdio with legacy 'reject', spawned over stdio", async () => {
    expect(await roundTrip(modernStdio())).toBe("2026-07-28");
  });

  it("SDK v2 createMcpHandler with legacy 'reject' over HTTP, behind a bearer", async () => {
    expect(await roundTrip(modernHttp())).toBe("2026-07-28");
  });

  it("Mastra 2.0's MCPServer (@mastra/mcp 2.0.0, startStdio), spawned over stdio", async () => {
    expect(await roundTrip(new StdioServer({ command: NODE, args: [fixture("mastra-stdio-server.mjs")] }))).toBe("2026-07-28");
  });

  it.each([
    ["stdio", () => modernStdio("2025-11-25")],
    ["HTTP", () => modernHttp("2025-11-25")],
  ])("protocol '2025-11-25' against the modern-only %s server fails, naming both versions", async (_kind, server) => {
    const err = await MCPClient.start(server()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpConnectError);
    expect((err as Error).message).toContain(
      'the server speaks 2026-07-28 and this client was set to protocol "2025-11-25"; open it with protocol "auto" or "2026-07-28"',
    );
  });

  it("protocol '2026-07-28' opens them too", async () => {
    await using client = await MCPClient.start(modernStdio("2026-07-28"));
    expect(client.protocolVersion).toBe("2026-07-28");
  });
});

describe("2025-only servers, default options", () => {
  it("an SDK v1 server over stdio opens in the 2025 era", async () => {
    await using client = await MCPClient.start(new StdioServer({ command: NODE, args: [fixture("counting-stdio-server.mjs")] }));
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(await client.readResource("docs://guide")).toBe("# Guide\nBe brief.");
  });

  it("server-everything over stdio opens in the 2025 era, and lists, calls, reads, renders", async () => {
    await using client = await MCPClient.start(new StdioServer({ command: NODE, args: [EVERYTHING, "stdio"] }));
    expect(client.protocolVersion).toMatch(/^2025-/);
    expect((await client.listTools()).length).toBeGreaterThan(3);
    expect(text(await client.callTool("echo", { message: "hi" }))).toContain("hi");
    const [first] = await client.listResources();
    expect(typeof (await client.readResource(first!.uri))).toBe("string");
    expect((await client.listPrompts()).length).toBeGreaterThan(0);
  });

  it("server-filesystem over stdio opens in the 2025 era and reads a file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentkit-fs-"));
    try {
      writeFileSync(join(dir, "note.txt"), "hello from a file");
      await using client = await MCPClient.start(new StdioServer({ command: NODE, args: [FILESYSTEM, dir] }));
      expect(client.protocolVersion).toMatch(/^2025-/);
      expect(text(await client.callTool("read_text_file", { path: join(dir, "note.txt") }))).toContain("hello from a file");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("list caching follows the server's hint on 2026-07-28 (ttlMs), the client's 30 s otherwise", () => {
  const names = async (client: MCPClient) => (await client.listTools()).map((t) => t.name);

  it("ttlMs 0 (what an SDK v2 server sends without a hint): a tool added at run time is listed at once", async () => {
    await using client = await MCPClient.start(modernStdio());
    expect(await names(client)).not.toContain("extra_1");
    await client.callTool("grow", {});
    expect(await names(client)).toContain("extra_1");
  });

  /** How many tools/list requests the modern HTTP fixture answered. */
  const lists = async (client: MCPClient) =>
    (JSON.parse(text(await client.callTool("stats"))) as Record<string, number>)["tools/list"] ?? 0;

  /** A modern-only HTTP server of its own whose lists say `ttlMs`, and a client of it, with one listing made; disposing stops both. */
  async function hinted(ttlMs: number): Promise<{ client: MCPClient; asked: number } & AsyncDisposable> {
    const server = await startModernHttpServer(TOKEN, { MODERN_TTL_MS: String(ttlMs) });
    const client = await MCPClient.start(
      new StreamableHttpServer({ url: server.url, headers: { Authorization: `Bearer ${TOKEN}` } }),
    ).catch(async (e: unknown) => {
      await server.stop();
      throw e;
    });
    await names(client);
    return { client, asked: await lists(client), [Symbol.asyncDispose]: async () => (await client.stop(), await server.stop()) };
  }

  it("ttlMs 60 s: a second listing is served from the cache (for the client's 30 s at most), forceRefresh asks again", async () => {
    await using h = await hinted(60_000);
    const { client, asked } = h;
    await names(client);
    expect(await lists(client)).toBe(asked);
    await client.listTools({ forceRefresh: true });
    expect(await lists(client)).toBe(asked + 1);
  });

  it("ttlMs 100: the listing is cached for 100 ms, then asked for again", async () => {
    // The TTL is what this is about: a fake clock (only the clocks a cache reads; the server is a real
    // subprocess), on before the client is made, as the SDK's cache takes its clock then.
    vi.useFakeTimers({ toFake: ["Date", "performance"] });
    try {
      await using h = await hinted(100);
      const { client, asked } = h;
      vi.advanceTimersByTime(99);
      await names(client);
      expect(await lists(client)).toBe(asked);
      vi.advanceTimersByTime(2);
      await names(client);
      expect(await lists(client)).toBe(asked + 1);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("multi-round-trip input_required (2026-07-28) is answered by the run's Asker", () => {
  it.each([
    ["stdio", () => modernStdio()],
    ["HTTP", () => modernHttp()],
  ])("a tool on the modern-only %s server asks, the Asker answers, the call completes with the answer", async (_kind, server) => {
    const asked: Elicitation[] = [];
    const asker: Asker = {
      ask: async (q) => {
        asked.push(q);
        return { kind: "approve", value: { color: "teal" } };
      },
    };
    await using client = await MCPClient.start(server(), { ctx: new RunContext({ asker }) });
    expect(client.protocolVersion).toBe("2026-07-28");
    expect(text(await client.callTool("ask", {}))).toBe("color=teal");
    expect(asked.map((q) => q.question)).toEqual(["Pick a color"]);
  });
});
