/**
 * @module test/models/openai-llm.test
 * `OpenAILLM` against the scripted fake of the Responses and Chat Completions
 * APIs on 127.0.0.1:0, through the real `openai` SDK: the request, streaming,
 * usage, stop reasons, strict schemas, retries, abort and the typed errors.
 */
import { describe, expect, it } from "vitest";
import { OpenAILLM, type OpenAILLMOptions } from "arc-agentkit/models";
import { OptionsError, ModelError, ModelRateLimitError } from "arc-agentkit";
import { FakeOpenAI } from "../cli/kit/fake-openai.js";
import { ask, expectAbortedBeforeStart, expectAbortMidStream, expectTurnsReadToEnd, pathTool, recorder, stalledTurn } from "./support.js";

const llm = (api: FakeOpenAI, o: OpenAILLMOptions = {}) =>
  new OpenAILLM({ apiKey: "sk-test", baseURL: `${api.url}/v1`, maxRetries: 0, ...o });
const APIS = ["responses", "chat"] as const;
const sent = (api: FakeOpenAI, kind: "responses" | "chat", i = 0) =>
  (kind === "chat" ? api.chatRequests[i] : api.responseRequests[i]) as unknown as Record<string, unknown>;

describe("OpenAILLM: the Responses request", () => {
  it("instructions, input, function tools (strict: false, properties added), max_output_tokens, bearer key", async () => {
    await using api = await FakeOpenAI.start([{ text: "hi" }]);
    const empty = { name: "ping", description: "", parameters: { type: "object" } };
    await llm(api, { maxTokens: 99 }).complete(ask("hello", { system: "Be brief.", tools: [pathTool(), empty] }));
    expect(sent(api, "responses")).toMatchObject({
      model: "test-model",
      stream: true,
      instructions: "Be brief.",
      input: [{ role: "user", content: "hello" }],
      max_output_tokens: 99,
      tools: [
        { type: "function", name: "read_file", parameters: pathTool().parameters, strict: false },
        { type: "function", name: "ping", parameters: { type: "object", properties: {} }, strict: false },
      ],
    });
    expect(api.requests[0]!.headers.authorization).toBe("Bearer sk-test");
    expect(api.requests[0]!.path).toBe("/v1/responses");
  });

  it("a function call round trip: function_call and function_call_output items, names mapped back and forth", async () => {
    await using api = await FakeOpenAI.start([
      { functionCalls: [{ callId: "call_1", name: "fs_read_file", arguments: { path: "/x" } }] },
      { text: "done" },
    ]);
    const model = llm(api);
    const tools = [pathTool("fs.read file")];
    const first = await model.complete(ask("read", { tools }));
    expect(first).toMatchObject({ toolCalls: [{ id: "call_1", name: "fs.read file", arguments: { path: "/x" } }], stopReason: "tool_use" });
    const messages = [
      ...ask("read").messages,
      { role: "assistant" as const, content: "", toolCalls: first.toolCalls },
      { role: "tool" as const, content: "contents", toolCallId: "call_1" },
    ];
    await model.complete({ model: "m", messages, tools });
    expect(api.responseRequests[1]!.input.slice(1)).toEqual([
      { type: "function_call", call_id: "call_1", name: "fs_read_file", arguments: '{"path":"/x"}' },
      { type: "function_call_output", call_id: "call_1", output: "contents" },
    ]);
  });
});

describe("OpenAILLM: the chat request (api: 'chat')", () => {
  it("system first, tool_calls and tool messages, usage requested, images after the tool message", async () => {
    await using api = await FakeOpenAI.start([{ text: "ok" }]);
    const parts = [{ type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" }];
    const messages = [
      { role: "system" as const, content: "S" },
      { role: "user" as const, content: "look" },
      { role: "assistant" as const, content: "", toolCalls: [{ id: "c1", name: "img", arguments: {} }] },
      { role: "tool" as const, content: "[image content omitted]", toolCallId: "c1", parts },
    ];
    await llm(api, { api: "chat" }).complete({ model: "m", messages, tools: [pathTool()] });
    expect(api.requests[0]!.path).toBe("/v1/chat/completions");
    expect(sent(api, "chat")).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: "function", function: { name: "read_file", parameters: pathTool().parameters, strict: false } }],
      messages: [
        { role: "system", content: "S" },
        { role: "user", content: "look" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "img", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "c1", content: "[image content omitted]" },
        { role: "user", content: [{ type: "text" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }] },
      ],
    });
  });
});

describe.each(APIS)("OpenAILLM (%s): streaming, usage, stop reasons, errors", (kind) => {
  it("a finished turn reads its stream to the end: the SDK's request is not aborted after the last event", async () => {
    await using api = await FakeOpenAI.start([
      { text: "one" },
      { functionCalls: [{ callId: "c1", name: "read_file", arguments: { path: "a" } }] },
    ]);
    await expectTurnsReadToEnd(llm(api, { api: kind }));
  });

  it("deltas and tool-call starts arrive through onEvent before complete() resolves; usage and stop reason", async () => {
    await using api = await FakeOpenAI.start([
      {
        text: ["Let me ", "look."],
        functionCalls: [{ callId: "call_9", name: "read_file", arguments: { path: "a" } }],
        usage: { input_tokens: 12, output_tokens: 3, cached_tokens: 8 },
      },
    ]);
    const { events, onEvent } = recorder();
    const turn = await llm(api, { api: kind }).complete(ask("x", { tools: [pathTool()], onEvent }));
    const resolvedAt = performance.now();
    const seen = events.map(({ at: _at, ...e }) => e);
    expect(seen.filter((e) => e.type === "text")).toEqual([
      { type: "text", text: "Let me " },
      { type: "text", text: "look." },
    ]);
    expect(seen.filter((e) => e.type === "tool_call")).toEqual([{ type: "tool_call", id: "call_9", name: "read_file" }]);
    expect(events.every((e) => e.at <= resolvedAt)).toBe(true);
    expect(turn).toMatchObject({
      content: "Let me look.",
      stopReason: "tool_use",
      toolCalls: [{ id: "call_9", name: "read_file", arguments: { path: "a" } }],
    });
    expect(turn.usage).toEqual({ inputTokens: 12, outputTokens: 3, cacheReadInputTokens: 8 });
  });

  it("an output cut at the token limit is stopReason max_tokens; a refusal is ModelError model_refused", async () => {
    await using api = await FakeOpenAI.start([{ text: "cut", incomplete: "max_output_tokens" }, { refusal: "I can't help with that." }]);
    const model = llm(api, { api: kind });
    expect((await model.complete(ask("x"))).stopReason).toBe("max_tokens");
    const err = await model.complete(ask("y")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ code: "model_refused", provider: "openai", providerMessage: "I can't help with that." });
    expect((err as ModelError).requestId).toMatch(/^req_fake_/);
  });

  it("a 429 with retry-after then a 200: one retry, and it succeeds", async () => {
    await using api = await FakeOpenAI.start([
      {
        error: {
          status: 429,
          message: "Rate limit reached",
          type: "requests",
          code: "rate_limit_exceeded",
          headers: { "retry-after": "0" },
        },
      },
      { text: "ok" },
    ]);
    expect((await llm(api, { api: kind, maxRetries: 2 }).complete(ask("x"))).content).toBe("ok");
    expect(api.requests).toHaveLength(2);
  });

  it("typed errors with the provider's message and request id: 401, 429 exhausted, context too long", async () => {
    await using api = await FakeOpenAI.start([
      { error: { status: 401, message: "Incorrect API key provided: sk-test", code: "invalid_api_key" } },
      { error: { status: 429, message: "Rate limit reached", code: "rate_limit_exceeded", headers: { "retry-after": "7" } } },
      { error: { status: 400, message: "This model's maximum context length is 128000 tokens.", code: "context_length_exceeded" } },
    ]);
    const model = llm(api, { api: kind });
    const errs = [];
    for (let i = 0; i < 3; i++) errs.push(await model.complete(ask("x")).catch((e: unknown) => e));
    expect(errs[0]).toBeInstanceOf(ModelError);
    expect(errs[0]).toMatchObject({ code: "model_auth", status: 401, providerMessage: "Incorrect API key provided: sk-test" });
    expect(errs[1]).toBeInstanceOf(ModelRateLimitError);
    expect(errs[1]).toMatchObject({ retryAfterSeconds: 7, providerMessage: "Rate limit reached" });
    expect(errs[2]).toBeInstanceOf(ModelError);
    expect(errs[2]).toMatchObject({ code: "model_context_too_long" });
    for (const e of errs) expect((e as ModelError).requestId).toMatch(/^req_fake_/);
  });

  it("aborting mid-stream rejects with Cancelled at once and the fake sees the connection close", async () => {
    await using api = await FakeOpenAI.start([stalledTurn()]);
    await expectAbortMidStream(llm(api, { api: kind }), api);
  });

  it("a signal aborted before the turn rejects with Cancelled and sends nothing", async () => {
    await using api = await FakeOpenAI.start([{ text: "never" }]);
    await expectAbortedBeforeStart(llm(api, { api: kind }), api);
  });
});

describe("OpenAILLM: strict mode", () => {
  it("sends strict schemas and drops the nulls standing for absent optional arguments", async () => {
    const tool = {
      name: "search",
      description: "",
      parameters: { type: "object", properties: { q: { type: "string" }, limit: { type: "integer" } }, required: ["q"] },
    };
    await using api = await FakeOpenAI.start([{ functionCalls: [{ callId: "c", name: "search", arguments: { q: "x", limit: null } }] }]);
    const turn = await llm(api, { strict: true }).complete(ask("x", { tools: [tool] }));
    expect(api.responseRequests[0]!.tools![0]).toMatchObject({
      strict: true,
      parameters: {
        type: "object",
        properties: { q: { type: "string" }, limit: { type: ["integer", "null"] } },
        required: ["q", "limit"],
        additionalProperties: false,
      },
    });
    expect(turn.toolCalls![0]!.arguments).toEqual({ q: "x" });
  });

  it("bad options and a missing key are OptionsError naming what to do", () => {
    expect(() => new OpenAILLM({ api: "completions" as never, apiKey: "k" })).toThrow(
      'OpenAILLM: api must be one of "responses", "chat" (default "responses"), got string "completions"',
    );
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      expect(() => new OpenAILLM()).toThrow(OptionsError);
      expect(() => new OpenAILLM()).toThrow(/pass apiKey or set OPENAI_API_KEY/);
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });
});
