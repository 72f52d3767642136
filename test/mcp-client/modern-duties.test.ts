/**
 * @module test/mcp-client/modern-duties.test
 * The 2026-07-28 revision's client duties, against SDK v2 servers with
 * `legacy: "reject"` (real processes): `server/discover` (what
 * `serverCapabilities` / `serverInfo` report, and `discover()` asking again),
 * the per-request `_meta` envelope as the server read it, and
 * `subscriptions/listen` evicting the list caches long before their TTL —
 * with the same eviction on a 2025 server through its unsolicited
 * `list_changed`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRequire } from "node:module";
import { RunContext, McpRequestError } from "../../src/index.js";
import { MCPClient, StdioServer, StreamableHttpServer } from "../../src/mcp/index.js";
import { NODE, fixture, startModernHttpServer, type ServerProcess } from "./support.js";
import { untilValue } from "../helpers/wait.js";

const pkg = createRequire(import.meta.url)("../../package.json") as { name: string; version: string };
const TOKEN = "modern-duties-token";
const text = (r: { content: Array<{ type: string; text?: string }> }) => r.content.map((c) => c.text ?? "").join("");

let http: ServerProcess;
beforeAll(async () => {
  http = await startModernHttpServer(TOKEN, { MODERN_TTL_MS: "60000" });
});
afterAll(async () => {
  await http?.stop();
});
const modernHttp = () => new StreamableHttpServer({ url: http.url, headers: { Authorization: `Bearer ${TOKEN}` } });
/** The modern-only stdio fixture, its lists hinted to live 60 s (longer than the client's 30 s TTL). */
const modernStdio = () => new StdioServer({ command: NODE, args: [fixture("modern-stdio-server.mjs")], env: { MODERN_TTL_MS: "60000" } });
const stats = async (client: MCPClient) => JSON.parse(text(await client.callTool("stats"))) as Record<string, number>;

describe("server/discover on 2026-07-28", () => {
  it("serverInfo and serverCapabilities are what the modern-only server's discover answer said; discover() sends it again", async () => {
    await using client = await MCPClient.start(modernHttp());
    expect(client.protocolVersion).toBe("2026-07-28");
    expect(client.serverInfo).toEqual({ name: "modern-only", version: "1.0.0" });
    expect(Object.keys(client.serverCapabilities ?? {}).sort()).toEqual(["prompts", "resources", "tools"]);
    expect(client.serverCapabilities?.tools?.listChanged).toBe(true);
    const before = (await stats(client))["server/discover"]!;
    expect(before).toBeGreaterThanOrEqual(1); // the open's own probe
    const answer = await client.discover();
    expect(answer.supportedVersions).toEqual(["2026-07-28"]);
    expect(answer.capabilities.tools).toBeDefined();
    expect((await stats(client))["server/discover"]).toBe(before + 1);
  });

  it("on a 2025 session discover() refuses, naming the version; serverInfo and serverCapabilities come from initialize", async () => {
    await using client = await MCPClient.start(new StdioServer({ command: NODE, args: [fixture("tools-stdio-server.mjs")] }));
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.serverInfo?.name).toBe("tools-fixture");
    expect(client.serverCapabilities?.tools).toBeDefined();
    const err = await client.discover().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpRequestError);
    expect((err as Error).message).toContain("the session speaks 2025-11-25, which has no server/discover");
  });
});

describe("the request _meta envelope on 2026-07-28, as the server read it", () => {
  it("every request names the protocol version, this client and its capabilities", async () => {
    await using client = await MCPClient.start(modernStdio());
    const envelope = JSON.parse(text(await client.callTool("envelope"))) as Record<string, unknown>;
    expect(envelope["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
    expect(envelope["io.modelcontextprotocol/clientInfo"]).toEqual({ name: pkg.name, version: pkg.version });
    // A tools/call declares the tasks extension (the server may answer it with a task); with tasks: false it declares none.
    expect(envelope["io.modelcontextprotocol/clientCapabilities"]).toEqual({ extensions: { "io.modelcontextprotocol/tasks": {} } });
    await using plain = await MCPClient.start(modernStdio(), { tasks: false });
    const bare = JSON.parse(text(await plain.callTool("envelope"))) as Record<string, unknown>;
    expect(bare["io.modelcontextprotocol/clientCapabilities"]).toEqual({});
  });

  it("a client opened with a run declares elicitation (and the rest) in every request's envelope", async () => {
    await using client = await MCPClient.start(modernStdio(), { ctx: new RunContext(), clientInfo: { name: "my-app", version: "2.0.0" } });
    const envelope = JSON.parse(text(await client.callTool("envelope"))) as Record<string, Record<string, unknown>>;
    expect(envelope["io.modelcontextprotocol/clientInfo"]).toEqual({ name: "my-app", version: "2.0.0" });
    expect(Object.keys(envelope["io.modelcontextprotocol/clientCapabilities"]!)).toEqual(
      expect.arrayContaining(["elicitation", "sampling", "roots"]),
    );
  });
});

describe("list_changed evicts the list cache before its TTL, in both eras", () => {
  const names = async (client: MCPClient) => (await client.listTools()).map((t) => t.name);

  it.each([
    ["2026-07-28 stdio (subscriptions/listen)", modernStdio, "2026-07-28"],
    ["2026-07-28 HTTP (subscriptions/listen)", modernHttp, "2026-07-28"],
    [
      "2025-11-25 stdio (unsolicited notification)",
      () => new StdioServer({ command: NODE, args: [fixture("tools-stdio-server.mjs")], env: { TOOLS_GROW: "1" } }),
      "2025-11-25",
    ],
  ] as const)("%s: a tool the server adds is listed next time, the 30 s TTL notwithstanding", async (_name, server, era) => {
    await using client = await MCPClient.start(server());
    expect(client.protocolVersion).toBe(era);
    const first = await names(client);
    const grown = Number(text(await client.callTool("grow")));
    const added = `extra_${grown}`;
    expect(first).not.toContain(added);
    expect(
      await untilValue(
        () => names(client),
        (n) => n.includes(added),
        "the added tool in the list",
        3000,
      ),
    ).toContain(added);
  });
});
