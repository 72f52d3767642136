/**
 * @module test/core/agents/react-streaming.test
 * The widened `LLM` contract in the ReAct loop: a provider's stream events
 * become `llm.delta` / `llm.tool_call` on ctx before the turn's `llm.turn`;
 * the last stop reason lands in `details.modelStopReason`; a tool's
 * `ToolContent` reaches the next request as parts with its text form as
 * content; a plain `FakeLLM` still emits only `llm.turn`.
 */
import "reflect-metadata";
import { describe, expect, it } from "vitest";
import { Agent, ReActCognition, ToolContent, tool, type LLM, type LLMRequest, type LLMTurn } from "../../../src/index.js";
import { isToolContent } from "../../../src/tools/tool-content.js";
import { resultText } from "../../../src/tools/result-text.js";
import { FakeLLM, Turn, makeTestCtx } from "../../../src/testing/index.js";

/** A structural LLM that streams each scripted turn through onEvent (text in `chunks`, then tool-call starts) before resolving. */
function streamingLLM(turns: (LLMTurn & { chunks?: string[] })[]): LLM & { requests: LLMRequest[] } {
  const requests: LLMRequest[] = [];
  return {
    requests,
    async complete(request) {
      requests.push(request);
      const t = turns[requests.length - 1]!;
      for (const text of t.chunks ?? []) request.onEvent?.({ type: "text", text });
      for (const c of t.toolCalls ?? []) request.onEvent?.({ type: "tool_call", id: c.id, name: c.name });
      return { ...t, content: (t.chunks ?? []).join("") };
    },
  };
}

const look = tool(
  { name: "look", description: "Look.", input: { type: "object", properties: {} }, sideEffecting: false },
  () =>
    new ToolContent("a dot\n[image content omitted]", [
      { type: "text", text: "a dot" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ]),
);

describe("streaming through ReActCognition", () => {
  it("llm.delta and llm.tool_call arrive before the step's llm.turn, with step numbers", async () => {
    const llm = streamingLLM([
      { chunks: ["Let me ", "look."], toolCalls: [{ id: "c1", name: "look", arguments: {} }], stopReason: "tool_use" },
      { chunks: ["A dot."], stopReason: "max_tokens" },
    ]);
    const ctx = makeTestCtx({ llm });
    const result = await new Agent({ name: "a", cognition: new ReActCognition({ tools: [look] }) }).run("what is it?", ctx);
    expect(ctx.events.filter((e) => e.event.startsWith("llm.")).map((e) => [e.event, e.data])).toEqual([
      ["llm.request", { step: 1, model: expect.any(String) }],
      ["llm.delta", { step: 1, text: "Let me " }],
      ["llm.delta", { step: 1, text: "look." }],
      ["llm.tool_call", { step: 1, id: "c1", tool: "look" }],
      ["llm.turn", { step: 1, content: "Let me look.", toolCalls: ["look"], stopReason: "tool_use" }],
      ["llm.request", { step: 2, model: expect.any(String) }],
      ["llm.delta", { step: 2, text: "A dot." }],
      ["llm.turn", { step: 2, content: "A dot.", toolCalls: [], stopReason: "max_tokens" }],
    ]);
    expect(result).toMatchObject({ stopReason: "complete", output: "A dot.", details: { modelStopReason: "max_tokens" } });
  });

  it("a ToolContent result goes back as parts, with its text as content and as the record's result", async () => {
    const llm = streamingLLM([{ toolCalls: [{ id: "c1", name: "look", arguments: {} }] }, { chunks: ["ok"] }]);
    const result = await new Agent({ name: "a", cognition: new ReActCognition({ tools: [look] }) }).run("go", makeTestCtx({ llm }));
    const toolMessage = llm.requests[1]!.messages.at(-1)!;
    expect(toolMessage).toMatchObject({ role: "tool", toolCallId: "c1", content: "a dot\n[image content omitted]" });
    expect(toolMessage.parts).toEqual([
      { type: "text", text: "a dot" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ]);
    expect(result.toolCalls[0]).toMatchObject({ result: "a dot\n[image content omitted]", ok: true, parts: toolMessage.parts });
  });

  it("FakeLLM (no streaming) emits only llm.request and llm.turn, without stopReason or details", async () => {
    const ctx = makeTestCtx({ llm: FakeLLM.script([new Turn({ content: "hi" })]) });
    const result = await new Agent({ name: "a", cognition: new ReActCognition({ tools: [] }) }).run("x", ctx);
    expect(ctx.events.filter((e) => e.event.startsWith("llm.")).map((e) => e.event)).toEqual(["llm.request", "llm.turn"]);
    expect(result.details).toBeUndefined();
  });

  it("ToolContent: frozen, branded across copies, rendered as its text", () => {
    const c = new ToolContent("t", [{ type: "text", text: "t" }]);
    expect(Object.isFrozen(c) && Object.isFrozen(c.parts[0])).toBe(true);
    expect(isToolContent(c)).toBe(true);
    expect(isToolContent({ text: "t", parts: [] })).toBe(false);
    expect(isToolContent({ [Symbol.for("agentkit:tool-content")]: true })).toBe(true);
    expect(resultText(c)).toBe("t");
  });
});
