/**
 * @module test/models/sampling.test
 * A server's `sampling/createMessage` answered by a real provider: the real
 * server-everything over stdio asks the client (whose run has an
 * `AnthropicLLM` / `OpenAILLM` on the fake API) to sample. The request the
 * API gets names the provider's `model` (a sampling request carries only
 * hints), caps the output at the server's `maxTokens`, and carries its system
 * prompt; the server is told which model answered.
 */
import { describe, expect, it } from "vitest";
import { OptionsError, RunContext, type LLM } from "arc-agentkit";
import { MCPClient, StdioServer } from "arc-agentkit/mcp";
import { AnthropicLLM, OpenAILLM } from "arc-agentkit/models";
import { FakeAnthropic } from "../cli/kit/fake-anthropic.js";
import { FakeOpenAI } from "../cli/kit/fake-openai.js";
import { EVERYTHING, NODE } from "../mcp-client/support.js";
import { ask } from "./support.js";

const everything = () => new StdioServer({ command: NODE, args: [EVERYTHING, "stdio"] });

/** The sampling tool's text: "LLM sampling result: {json}". */
async function sample(llm: LLM, maxTokens: number): Promise<string> {
  await using client = await MCPClient.start(everything(), { ctx: new RunContext({ llm }), allowSampling: true });
  const r = await client.callTool("trigger-sampling-request", { prompt: "What is 6 x 7?", maxTokens });
  return JSON.stringify(r.content);
}

describe("sampling through a real provider", () => {
  it("AnthropicLLM: the provider's model, max_tokens capped at the server's maxTokens (and at the provider's own), the server's system prompt; the answering model reported", async () => {
    await using api = await FakeAnthropic.start([{ text: "42" }, { text: "42 again" }]);
    const text = await sample(new AnthropicLLM({ apiKey: "sk-test", baseURL: api.url, maxRetries: 0, model: "claude-test" }), 42);
    expect(text).toContain("42");
    expect(text).toContain('\\"model\\": \\"claude-test\\"');
    expect(api.messageRequests[0]).toMatchObject({
      model: "claude-test",
      max_tokens: 42,
      system: [{ type: "text", text: "You are a helpful test server." }],
    });
    await sample(new AnthropicLLM({ apiKey: "sk-test", baseURL: api.url, maxRetries: 0, model: "claude-test", maxTokens: 20 }), 42);
    expect(api.messageRequests[1]).toMatchObject({ max_tokens: 20 });
  });

  for (const kind of ["responses", "chat"] as const) {
    it(`OpenAILLM (${kind}): the provider's model and the server's maxTokens`, async () => {
      await using api = await FakeOpenAI.start([{ text: "42" }]);
      const text = await sample(
        new OpenAILLM({ apiKey: "sk-test", baseURL: `${api.url}/v1`, maxRetries: 0, api: kind, model: "gpt-test" }),
        42,
      );
      expect(text).toContain('\\"model\\": \\"gpt-test\\"');
      const body = (kind === "chat" ? api.chatRequests[0] : api.responseRequests[0]) as unknown as Record<string, unknown>;
      expect(body).toMatchObject(
        kind === "chat"
          ? { model: "gpt-test", max_tokens: 42 }
          : { model: "gpt-test", max_output_tokens: 42, instructions: "You are a helpful test server." },
      );
    });
  }

  it("no model to use (the provider has none and the request names none): the server gets an error naming the option; no request is sent", async () => {
    await using api = await FakeAnthropic.start([{ text: "never" }]);
    await using client = await MCPClient.start(everything(), {
      ctx: new RunContext({ llm: new AnthropicLLM({ apiKey: "sk-test", baseURL: api.url, maxRetries: 0 }) }),
      allowSampling: true,
    });
    const failed = await client.callTool("trigger-sampling-request", { prompt: "hi", maxTokens: 10 }).then(
      (r) => JSON.stringify(r.content),
      (e: Error) => e.message,
    );
    expect(failed).toMatch(/no model.*'model'/i);
    expect(api.messageRequests).toHaveLength(0);
  });

  it("a request naming no model, to a provider without one, rejects with OptionsError naming the option and the hints, before any request", async () => {
    await using api = await FakeOpenAI.start([{ text: "never" }]);
    for (const llm of [
      new AnthropicLLM({ apiKey: "sk-test", baseURL: api.url, maxRetries: 0 }),
      new OpenAILLM({ apiKey: "sk-test", baseURL: `${api.url}/v1`, maxRetries: 0 }),
    ]) {
      const err = await llm.complete(ask("x", { model: "", modelHints: ["claude-3-sonnet"] })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OptionsError);
      expect((err as Error).message).toMatch(/no model to use.*"claude-3-sonnet".*pass 'model'/);
    }
    expect(api.requests).toHaveLength(0);
  });
});
