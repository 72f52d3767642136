/**
 * @module test/models/anthropic-llm.test
 * `AnthropicLLM` against the scripted fake of the Messages API on
 * 127.0.0.1:0, through the real `@anthropic-ai/sdk` (nothing mocks the SDK):
 * the request it sends, streaming, usage, stop reasons, retries, abort and the
 * typed errors.
 */
import { describe, expect, it } from "vitest";
import { AnthropicLLM } from "arc-agentkit/models";
import { OptionsError, ModelError, ModelRateLimitError } from "arc-agentkit";
import { FakeAnthropic } from "../cli/kit/fake-anthropic.js";
import { ask, expectAbortedBeforeStart, expectAbortMidStream, expectTurnsReadToEnd, pathTool, recorder, stalledTurn } from "./support.js";

const llm = (api: FakeAnthropic, o: { maxRetries?: number; maxTokens?: number; promptCaching?: boolean } = {}) =>
  new AnthropicLLM({ apiKey: "sk-test", baseURL: api.url, maxRetries: 0, ...o });

describe("AnthropicLLM: the request", () => {
  it("sends model, max_tokens, the system prompt and tools with cache breakpoints on the last tool and the system prompt", async () => {
    await using api = await FakeAnthropic.start([{ text: "hi" }]);
    await llm(api, { maxTokens: 321 }).complete(ask("hello", { system: "Be brief.", tools: [pathTool("a"), pathTool("b")] }));
    const body = api.messageRequests[0]! as unknown as Record<string, unknown>;
    expect(body).toMatchObject({ model: "test-model", max_tokens: 321, stream: true, messages: [{ role: "user", content: "hello" }] });
    expect(body.system).toEqual([{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }]);
    const tools = body.tools as Record<string, unknown>[];
    expect(tools.map((t) => t.name)).toEqual(["a", "b"]);
    expect(tools[0]).not.toHaveProperty("cache_control");
    expect(tools[1]).toMatchObject({ cache_control: { type: "ephemeral" }, input_schema: pathTool().parameters });
    const headers = api.requests[0]!.headers;
    // SDK 1.14 sends an apiKey as a bearer token.
    expect(headers.authorization).toBe("Bearer sk-test");
  });

  it("promptCaching: false sends no cache_control", async () => {
    await using api = await FakeAnthropic.start([{ text: "hi" }]);
    await llm(api, { promptCaching: false }).complete(ask("hello", { system: "S", tools: [pathTool()] }));
    expect(JSON.stringify(api.messageRequests[0])).not.toContain("cache_control");
  });

  it("a tool round trip: tool_use then tool_result in one user turn, names mapped back and forth", async () => {
    await using api = await FakeAnthropic.start([
      { toolUses: [{ id: "toolu_1", name: "fs_read_file", input: { path: "/x" } }] },
      { text: "done" },
    ]);
    const model = llm(api);
    const tools = [pathTool("fs.read file")];
    const first = await model.complete(ask("read", { tools }));
    expect(api.messageRequests[0]!.tools![0]!.name).toBe("fs_read_file");
    expect(first.toolCalls).toEqual([{ id: "toolu_1", name: "fs.read file", arguments: { path: "/x" } }]);
    expect(first.stopReason).toBe("tool_use");
    const messages = [
      ...ask("read").messages,
      { role: "assistant" as const, content: "", toolCalls: first.toolCalls },
      { role: "tool" as const, content: "contents", toolCallId: "toolu_1", name: "fs.read file" },
    ];
    await model.complete({ model: "m", messages, tools });
    expect(api.messageRequests[1]!.messages.slice(1)).toEqual([
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "fs_read_file", input: { path: "/x" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "contents" }] },
    ]);
  });

  it("image parts of a tool result go out as image blocks", async () => {
    await using api = await FakeAnthropic.start([{ text: "a red dot" }]);
    const parts = [
      { type: "text" as const, text: "here" },
      { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" },
    ];
    const messages = [
      { role: "user" as const, content: "look" },
      { role: "assistant" as const, content: "", toolCalls: [{ id: "t1", name: "img", arguments: {} }] },
      { role: "tool" as const, content: "here\n[image content omitted]", toolCallId: "t1", parts },
    ];
    await llm(api).complete({ model: "m", messages, tools: [] });
    expect(api.messageRequests[0]!.messages[2]!.content).toEqual([
      {
        type: "tool_result",
        tool_use_id: "t1",
        content: [
          { type: "text", text: "here" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
        ],
      },
    ]);
  });

  it("rejects bad options by name", () => {
    expect(() => new AnthropicLLM({ maxTokens: 0 })).toThrow(OptionsError);
    expect(() => new AnthropicLLM({ maxRetries: -1 })).toThrow("AnthropicLLM: 'maxRetries' must be an integer >= 0, got number -1");
  });
});

describe("AnthropicLLM: streaming, usage, stop reasons", () => {
  it("text deltas and tool-call starts arrive through onEvent, in order, before complete() resolves", async () => {
    await using api = await FakeAnthropic.start([
      { text: ["Let me ", "look."], toolUses: [{ id: "toolu_9", name: "read_file", input: { path: "a" } }] },
    ]);
    const { events, onEvent } = recorder();
    const turn = await llm(api).complete(ask("x", { tools: [pathTool()], onEvent }));
    const resolvedAt = performance.now();
    expect(events.map(({ at: _at, ...e }) => e)).toEqual([
      { type: "text", text: "Let me " },
      { type: "text", text: "look." },
      { type: "tool_call", id: "toolu_9", name: "read_file" },
    ]);
    expect(events.every((e) => e.at <= resolvedAt)).toBe(true);
    expect(turn.content).toBe("Let me look.");
  });

  it("usage with cache read/write, and max_tokens as a stop reason", async () => {
    await using api = await FakeAnthropic.start([
      {
        text: "cut",
        stopReason: "max_tokens",
        usage: { input_tokens: 7, output_tokens: 42, cache_read_input_tokens: 100, cache_creation_input_tokens: 30 },
      },
    ]);
    const turn = await llm(api).complete(ask("x"));
    expect(turn.usage).toEqual({ inputTokens: 7, outputTokens: 42, cacheReadInputTokens: 100, cacheCreationInputTokens: 30 });
    expect(turn.stopReason).toBe("max_tokens");
  });

  it("stop_reason refusal is a ModelError (model_refused) with the request id", async () => {
    await using api = await FakeAnthropic.start([{ text: "I can't help with that.", stopReason: "refusal" }]);
    const err = await llm(api)
      .complete(ask("x"))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ code: "model_refused", provider: "anthropic", providerMessage: "I can't help with that." });
    expect((err as ModelError).requestId).toMatch(/^req_fake_/);
  });
});

describe("AnthropicLLM: failures", () => {
  it("a 429 with retry-after then a 200: one retry, and it succeeds", async () => {
    await using api = await FakeAnthropic.start([
      { error: { status: 429, type: "rate_limit_error", message: "slow down", headers: { "retry-after": "0" } } },
      { text: "ok" },
    ]);
    const turn = await llm(api, { maxRetries: 2 }).complete(ask("x"));
    expect(turn.content).toBe("ok");
    expect(api.messageRequests).toHaveLength(2);
  });

  it("429 past the retries: ModelRateLimitError with the provider's message, request id and retry-after", async () => {
    const limited = {
      error: {
        status: 429,
        type: "rate_limit_error",
        message: "Number of request tokens has exceeded your per-minute rate limit",
        headers: { "retry-after": "0" },
      },
    };
    await using api = await FakeAnthropic.start([limited, limited]);
    const err = (await llm(api, { maxRetries: 1 })
      .complete(ask("x"))
      .catch((e: unknown) => e)) as ModelRateLimitError;
    expect(err).toBeInstanceOf(ModelRateLimitError);
    expect(err).toMatchObject({ code: "model_rate_limit", status: 429, retryAfterSeconds: 0, providerMessage: limited.error.message });
    expect(err.requestId).toMatch(/^req_fake_/);
    expect(err.message).toContain(`HTTP 429, request id ${err.requestId}`);
    expect(api.messageRequests).toHaveLength(2);
  });

  it("401: ModelError model_auth; a too-long prompt: model_context_too_long; another 400: model_request", async () => {
    await using api = await FakeAnthropic.start([
      { error: { status: 401, type: "authentication_error", message: "invalid x-api-key" } },
      { error: { status: 400, type: "invalid_request_error", message: "prompt is too long: 210000 tokens > 200000 maximum" } },
      { error: { status: 400, type: "invalid_request_error", message: "messages.0.content: Field required" } },
    ]);
    const model = llm(api);
    const errs = [];
    for (let i = 0; i < 3; i++) errs.push(await model.complete(ask("x")).catch((e: unknown) => e));
    expect(errs[0]).toBeInstanceOf(ModelError);
    expect(errs[0]).toMatchObject({ code: "model_auth", status: 401, providerMessage: "invalid x-api-key" });
    expect(errs[1]).toBeInstanceOf(ModelError);
    expect(errs[1]).toMatchObject({
      code: "model_context_too_long",
      providerMessage: "prompt is too long: 210000 tokens > 200000 maximum",
    });
    expect(errs[2]).toBeInstanceOf(ModelError);
    expect(errs[2]).not.toBeInstanceOf(ModelRateLimitError);
    expect((errs[2] as ModelError).code).toBe("model_request");
    expect(errs.every((e) => (e as ModelError).requestId?.startsWith("req_fake_"))).toBe(true);
  });

  it("a finished turn reads its stream to the end: the SDK's request is not aborted after message_stop", async () => {
    await using api = await FakeAnthropic.start([
      { text: "one" },
      { toolUses: [{ id: "toolu_1", name: "read_file", input: { path: "/x" } }] },
    ]);
    await expectTurnsReadToEnd(llm(api));
  });

  it("aborting mid-stream rejects with Cancelled at once and the fake sees the connection close", async () => {
    await using api = await FakeAnthropic.start([stalledTurn()]);
    await expectAbortMidStream(llm(api), api);
  });

  it("a signal aborted before the turn rejects with Cancelled and sends nothing", async () => {
    await using api = await FakeAnthropic.start([{ text: "never" }]);
    await expectAbortedBeforeStart(llm(api), api);
  });
});
