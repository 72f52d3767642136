/**
 * @module test/mcp-client/both-eras.test
 * The client's behaviours that hold in both protocol eras, each run against
 * a 2025-only SDK 1.x server and a 2026-07-28-only SDK v2 server
 * (`legacy: "reject"`) serving the same tools (test/helpers/era-servers.ts),
 * with the default options: the list cache, errors, cancellation,
 * elicitation to the run's Asker, sampling to the run's LLM, and roots. On
 * 2025 the server asks with real requests; on 2026-07-28 it answers
 * `input_required` and the client retries with the answer.
 */
import { describe, expect, it } from "vitest";
import { RunContext, type Asker, type Elicitation, McpRequestError } from "../../src/index.js";
import { Cancelled } from "../../src/index.js";
import { MCPClient } from "../../src/mcp/index.js";
import { FakeLLM, Turn } from "../../src/testing/index.js";
import { ERAS, eraServer } from "../helpers/era-servers.js";
import { untilValue } from "../helpers/wait.js";

const text = (r: { content: Array<{ type: string; text?: string }> }) => r.content.map((c) => c.text ?? "").join("");
const seen = async (client: MCPClient) =>
  JSON.parse(text(await client.callTool("stats"))) as { "tools/list": number; started: number; cancelled: number };

describe.each(ERAS)("$era ($server)", ({ era }) => {
  it("opens in its era with the default options and calls a tool", async () => {
    await using client = await MCPClient.start(eraServer(era));
    expect(client.protocolVersion).toBe(era);
    expect(text(await client.callTool("add", { a: 2, b: 3 }))).toBe("5");
  });

  it("caches listTools (one request for concurrent and repeated listings), forceRefresh asks again", async () => {
    await using client = await MCPClient.start(eraServer(era));
    const [a, b] = await Promise.all([client.listTools(), client.listTools()]);
    expect(a.map((t) => t.name)).toEqual(["add", "slow", "ask", "sample", "roots", "stats"]);
    expect(b).toEqual(a);
    await client.listTools();
    // 2026-07-28: an SDK v2 server without a hint sends ttlMs 0, which the client honours: each listing asks.
    expect((await seen(client))["tools/list"]).toBe(era === "2026-07-28" ? 2 : 1);
    await client.listTools({ forceRefresh: true });
    expect((await seen(client))["tools/list"]).toBe(era === "2026-07-28" ? 3 : 2);
  });

  it("a JSON-RPC error is an McpRequestError with the code; the session stays usable", async () => {
    await using client = await MCPClient.start(eraServer(era));
    const err = await client.callTool("nope").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpRequestError);
    expect((err as McpRequestError).rpcCode).toBe(-32602);
    expect((err as Error).message).toContain("unknown tool 'nope'");
    expect(text(await client.callTool("add", { a: 1, b: 1 }))).toBe("2");
  });

  it("aborting a call mid-flight rejects with Cancelled, the server hears of it, the session stays usable", async () => {
    await using client = await MCPClient.start(eraServer(era));
    const abort = new AbortController();
    const call = client.callTool("slow", {}, { signal: abort.signal });
    await untilValue(
      () => seen(client),
      (s) => s.started === 1,
      "the server to start the slow call",
    );
    abort.abort("enough");
    await expect(call).rejects.toBeInstanceOf(Cancelled);
    expect(
      (
        await untilValue(
          () => seen(client),
          (s) => s.cancelled === 1,
          "the server to see the cancellation",
        )
      ).cancelled,
    ).toBe(1);
    expect(text(await client.callTool("add", { a: 1, b: 2 }))).toBe("3");
  });

  it("an elicitation reaches the run's Asker and the tool gets its answer", async () => {
    const asked: Elicitation[] = [];
    const asker: Asker = { ask: async (q) => (asked.push(q), { kind: "approve", value: { color: "teal" } }) };
    await using client = await MCPClient.start(eraServer(era), { ctx: new RunContext({ asker }) });
    expect(text(await client.callTool("ask"))).toBe("color=teal");
    expect(asked.map((q) => [q.source, q.question])).toEqual([["mcp_elicitation", "Pick a color"]]);
  });

  it("a declined elicitation reaches the tool as a decline", async () => {
    const asker: Asker = { ask: async () => ({ kind: "reject" }) };
    await using client = await MCPClient.start(eraServer(era), { ctx: new RunContext({ asker }) });
    expect(text(await client.callTool("ask"))).toBe("decline");
  });

  it("a sampling request reaches the run's LLM (allowSampling) and the tool gets its text", async () => {
    const llm = FakeLLM.script([new Turn({ content: "hello from the model" })]);
    await using client = await MCPClient.start(eraServer(era), { ctx: new RunContext({ llm, autonomy: "auto" }), allowSampling: true });
    expect(text(await client.callTool("sample"))).toBe("model said: hello from the model");
  });

  it("roots/list is answered with the client's roots", async () => {
    await using client = await MCPClient.start(eraServer(era), {
      roots: [{ uri: "file:///work/a", name: "a" }, { uri: "file:///work/b" }],
    });
    expect(text(await client.callTool("roots"))).toBe("file:///work/a,file:///work/b");
  });
});
