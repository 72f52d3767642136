/**
 * @module test/models/e2e-filesystem.test
 * End to end, per provider: `Agent` + `ReActCognition` + the provider (real
 * SDK, scripted fake API on 127.0.0.1:0) + `mcpTools` of the real
 * server-filesystem over stdio (spawned with node directly). The model's tool
 * call reads a file, the file's text is in the next request (the fake's
 * request log), the final text comes out, and the run streams its events.
 * Also: cancelling mid-stream ends the run `cancelled` at once, and the fake
 * sees the connection close; an image tool result (server-everything's
 * get-tiny-image, kept with `keepImages`) reaches the API as an image.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent, ReActCognition, RunContext, type LLM, type RunEvent } from "arc-agentkit";
import { MCPClient, StdioServer, mcpTools } from "arc-agentkit/mcp";
import { AnthropicLLM, OpenAILLM } from "arc-agentkit/models";
import { FakeAnthropic } from "../cli/kit/fake-anthropic.js";
import { FakeOpenAI } from "../cli/kit/fake-openai.js";
import { EVERYTHING, FILESYSTEM, NODE } from "../mcp-client/support.js";

const SECRET = "the secret word is tangerine";
let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "agentkit-models-e2e-")));
  writeFileSync(join(dir, "notes.txt"), SECRET);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function runAgent(
  llm: LLM,
  task: string,
  server = new StdioServer({ command: NODE, args: [FILESYSTEM, dir] }),
  onEvent?: (e: RunEvent, ctx: RunContext) => void,
  keepImages = false,
) {
  await using client = await MCPClient.start(server);
  const tools = await mcpTools(client, { prefix: "fs_", keepImages });
  const events: RunEvent[] = [];
  const ctx = new RunContext({ llm });
  ctx.on((e) => {
    events.push(e);
    onEvent?.(e, ctx);
  });
  const agent = new Agent({
    name: "reader",
    model: "test-model",
    prompt: "Answer from the files.",
    cognition: new ReActCognition({ tools }),
  });
  const started = performance.now();
  const result = await agent.run(task, ctx);
  return { result, events, elapsed: performance.now() - started, tools };
}

const kinds = (events: RunEvent[]) => events.map((e) => e.event).filter((e) => e.startsWith("llm.") || e.startsWith("tool."));

describe("e2e: AnthropicLLM + ReActCognition + server-filesystem", () => {
  it("reads the file through the real server, sends its text back, and ends with the model's answer", async () => {
    const path = join(dir, "notes.txt");
    await using api = await FakeAnthropic.start([
      { text: "Reading.", toolUses: [{ id: "toolu_e2e", name: "fs_read_text_file", input: { path } }] },
      { text: ["It says: ", "tangerine."] },
    ]);
    const { result, events } = await runAgent(
      new AnthropicLLM({ apiKey: "k", baseURL: api.url, maxRetries: 0 }),
      "What is the secret word?",
    );
    expect(result).toMatchObject({ stopReason: "complete", output: "It says: tangerine.", steps: 2 });
    expect(result.toolCalls).toEqual([expect.objectContaining({ name: "fs_read_text_file", ok: true, result: SECRET })]);
    expect(api.toolResults()).toEqual([{ type: "tool_result", tool_use_id: "toolu_e2e", content: SECRET }]);
    const second = api.messageRequests[1]!;
    expect(second.system).toEqual([{ type: "text", text: "Answer from the files.", cache_control: { type: "ephemeral" } }]);
    expect(second.tools!.map((t) => t.name)).toContain("fs_read_text_file");
    expect(result.usage).toEqual({ inputTokens: 20, outputTokens: 10 });
    expect(kinds(events)).toEqual([
      "llm.request",
      "llm.delta",
      "llm.tool_call",
      "llm.turn",
      "tool.call",
      "tool.result",
      "llm.request",
      "llm.delta",
      "llm.delta",
      "llm.turn",
    ]);
    expect(events.find((e) => e.event === "llm.tool_call")!.data).toEqual({ step: 1, id: "toolu_e2e", tool: "fs_read_text_file" });
  });

  it("cancelling on the first streamed delta ends the run cancelled at once (no wait on the stalled stream); the fake sees the connection close", async () => {
    await using api = await FakeAnthropic.start([{ text: ["Thinking ", "forever"], stallAfterFirstDelta: true }]);
    let cancelledAt = 0;
    const { result } = await runAgent(new AnthropicLLM({ apiKey: "k", baseURL: api.url, maxRetries: 0 }), "Go.", undefined, (e, ctx) => {
      if (e.event !== "llm.delta") return;
      cancelledAt = performance.now();
      ctx.cancel();
    });
    expect(performance.now() - cancelledAt).toBeLessThan(1000); // no wait on the stalled stream (a few ms when quiet; the bound is generous for a loaded 2-core CI, not a timing goal)
    expect(result).toMatchObject({ stopReason: "cancelled", steps: 1 });
    await expect.poll(() => api.hungUp.length).toBe(1);
  });

  it("keepImages: server-everything's tiny image reaches the API as an image block", async () => {
    await using api = await FakeAnthropic.start([
      { toolUses: [{ id: "toolu_img", name: "fs_get-tiny-image", input: {} }] },
      { text: "A tiny image." },
    ]);
    const { result } = await runAgent(
      new AnthropicLLM({ apiKey: "k", baseURL: api.url, maxRetries: 0 }),
      "Show me.",
      new StdioServer({ command: NODE, args: [EVERYTHING, "stdio"] }),
      undefined,
      true,
    );
    expect(result.stopReason).toBe("complete");
    const content = api.toolResults()[0]!.content as Record<string, unknown>[];
    expect(content.map((b) => b.type)).toContain("image");
    expect(content.find((b) => b.type === "image")).toMatchObject({
      source: { type: "base64", media_type: "image/png", data: expect.any(String) },
    });
  });
});

describe.each(["responses", "chat"] as const)("e2e: OpenAILLM (%s) + ReActCognition + server-filesystem", (api) => {
  it("reads the file through the real server, sends its text back, and ends with the model's answer", async () => {
    const path = join(dir, "notes.txt");
    await using fake = await FakeOpenAI.start([
      { functionCalls: [{ callId: "call_e2e", name: "fs_read_text_file", arguments: { path } }] },
      { text: ["It says: ", "tangerine."] },
    ]);
    const { result, events } = await runAgent(
      new OpenAILLM({ apiKey: "k", baseURL: `${fake.url}/v1`, api, maxRetries: 0 }),
      "What is the secret word?",
    );
    expect(result).toMatchObject({ stopReason: "complete", output: "It says: tangerine.", steps: 2 });
    expect(result.toolCalls).toEqual([expect.objectContaining({ name: "fs_read_text_file", ok: true, result: SECRET })]);
    if (api === "responses") {
      expect(fake.functionOutputs()).toEqual([{ callId: "call_e2e", text: SECRET }]);
      expect(fake.responseRequests[1]!.instructions).toBe("Answer from the files.");
    } else {
      expect(fake.chatRequests[1]!.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_e2e", content: SECRET });
    }
    expect(result.usage).toEqual({ inputTokens: 20, outputTokens: 10, cacheReadInputTokens: 0 });
    expect(kinds(events)).toEqual([
      "llm.request",
      "llm.tool_call",
      "llm.turn",
      "tool.call",
      "tool.result",
      "llm.request",
      "llm.delta",
      "llm.delta",
      "llm.turn",
    ]);
  });
});
