/**
 * @module test/mcp-client/result-budget.test
 * Consumed results within a budget: `MCPClient.start(server, { maxResultChars })`
 * is the default of the client's `mcpTools` adapters, `mcpTools(client, {
 * maxResultChars })` wins, `callTool()` returns what the server sent. Over
 * budget, the model reads head and tail around a line naming what was cut
 * and the id; `client.spilledResult(id)` is the whole text. A `resource_link`
 * result is a line naming the URI, read only when asked. A ReAct run over a
 * real served tool shows the model at most the budget, and its tool span
 * carries the sizes and the id, never the content.
 */
import { afterEach, describe, expect, it } from "vitest";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { Agent, OptionsError, ReActCognition, RunContext, tool } from "../../src/index.js";
import { FakeLLM, makeTestCtx, Turn } from "../../src/testing/index.js";
import { instrument } from "../../src/otel/index.js";
import { MCPClient, mcpTools, serveRegistry, StreamableHttpServer, type McpServerSpec } from "../../src/mcp/index.js";

const BIG = `head-${"x".repeat(9_990)}-tail`;
const reads = { report: 0 };
const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

const big = tool({ name: "big", description: "A big answer.", sideEffecting: false }, () => BIG);
const small = tool({ name: "small", description: "A small answer.", sideEffecting: false }, () => "pong");
const linker = tool({ name: "linker", description: "Links to the report.", sideEffecting: false }, () => ({
  content: [{ type: "resource_link", uri: "notes://report", name: "report", mimeType: "text/plain" }],
}));

async function served(): Promise<McpServerSpec> {
  const spec = await serveRegistry([big, small, linker], {
    name: "bulky",
    ctx: makeTestCtx(),
    resources: [{ uri: "notes://report", name: "report", read: () => `report read ${++reads.report}` }],
  });
  await spec.start();
  open.push(() => spec.stop());
  return spec;
}

async function clientOf(spec: McpServerSpec, options: { maxResultChars?: number } = {}): Promise<MCPClient> {
  const client = await MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: spec.authHeaders }), options);
  open.push(() => client.stop());
  return client;
}

const CUT_LINE =
  /\n\[agentkit: (\d+) of 10000 characters cut here; the whole result is spilled result "(r-[0-9a-f]{12})" \(MCPClient\.spilledResult\("r-[0-9a-f]{12}"\)\)\]\n/;

describe("consumed results within a budget", () => {
  it("the client's budget cuts an adapter's result head and tail; the whole stays readable by id; callTool is untouched", async () => {
    const client = await clientOf(await served(), { maxResultChars: 1_000 });
    const [bigTool, smallTool] = await mcpTools(client);
    const seen = (await bigTool!.run({}, makeTestCtx())) as string;
    expect(seen.length).toBeLessThanOrEqual(1_000);
    expect(seen.startsWith("head-xxx")).toBe(true);
    expect(seen.endsWith("xxx-tail")).toBe(true);
    const [line, cut, id] = CUT_LINE.exec(seen)!;
    expect(Number(cut)).toBe(10_000 - (seen.length - line.length));
    expect(client.spilledResult(id!)).toBe(BIG);
    expect(await smallTool!.run({}, makeTestCtx())).toBe("pong");
    const whole = await client.callTool("big");
    expect((whole.content[0] as { text: string }).text).toBe(BIG);
  });

  it("mcpTools' own budget wins over the client's", async () => {
    const client = await clientOf(await served(), { maxResultChars: 1_000 });
    const [bigTool] = await mcpTools(client, { maxResultChars: 5_000 });
    const seen = (await bigTool!.run({}, makeTestCtx())) as string;
    expect(seen.length).toBeLessThanOrEqual(5_000);
    expect(seen.length).toBeGreaterThan(4_000);
    expect(seen).toMatch(CUT_LINE);
  });

  it("an unknown id and a budget that is not a positive whole number are refused, naming them", async () => {
    const spec = await served();
    const client = await clientOf(spec);
    expect(() => client.spilledResult("r-nope")).toThrow(OptionsError);
    expect(() => client.spilledResult("r-nope")).toThrow(
      'MCPClient.spilledResult: no spilled result "r-nope"; this client keeps the last 64: []',
    );
    await expect(
      MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: spec.authHeaders }), { maxResultChars: 0 }),
    ).rejects.toThrow("MCPClient.start: maxResultChars must be a positive whole number of characters, got number 0");
    await expect(mcpTools(client, { maxResultChars: 1.5 })).rejects.toThrow(
      "mcpTools: maxResultChars must be a positive whole number of characters, got number 1.5",
    );
  });

  it("a resource_link result is a line naming the URI; the resource is read only on demand", async () => {
    const client = await clientOf(await served(), { maxResultChars: 1_000 });
    const linkTool = (await mcpTools(client)).find((t) => t.name === "linker")!;
    const before = reads.report;
    expect(await linkTool.run({}, makeTestCtx())).toBe("[Resource link: report] notes://report (text/plain)");
    expect(reads.report).toBe(before);
    expect(await client.readResource("notes://report")).toBe(`report read ${before + 1}`);
  });

  it("a ReAct run shows the model at most the budget; the tool span records sizes, cut and id, never the content", async () => {
    const client = await clientOf(await served(), { maxResultChars: 2_000 });
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const llm = FakeLLM.script([new Turn({ toolCalls: [{ id: "c1", name: "big", arguments: {} }] }), new Turn({ content: "read it" })]);
    const ctx = new RunContext({ llm });
    instrument(ctx, { tracerProvider: provider });
    const result = await new Agent({ name: "reader", cognition: new ReActCognition({ tools: await mcpTools(client) }) }).run(
      "read the big answer",
      ctx,
    );
    expect(result.stopReason).toBe("complete");
    const shown = JSON.stringify(llm.requests[1]!.messages);
    expect(shown).not.toContain("x".repeat(2_000));
    expect(shown).toContain("characters cut here");
    const span = exporter.getFinishedSpans().find((s) => s.name === "execute_tool big")!;
    const event = span.events.find((e) => e.name === "mcp.result.cut")!;
    expect(event.attributes).toMatchObject({
      "mcp.tool.name": "big",
      "mcp.result.chars": 10_000,
      "mcp.result.cut_chars": expect.any(Number),
      "mcp.result.spill_id": expect.stringMatching(/^r-[0-9a-f]{12}$/),
    });
    expect(event.attributes!["mcp.result.kept_chars"]).toBeLessThanOrEqual(2_000);
    expect(JSON.stringify(exporter.getFinishedSpans().map((s) => [s.attributes, s.events]))).not.toContain("xxxxxxxx");
  });
});
