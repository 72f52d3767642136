/**
 * @module test/models/tool-list-memo.test
 * A loop sends the same tool list on every turn: each provider converts it
 * (name map, schemas, OpenAI's strict form, Anthropic's cache breakpoint)
 * once per list, not once per turn, and converts afresh when the list
 * changes. Counted by how often each schema is read, through the real SDKs
 * against the fakes.
 */
import { describe, expect, it } from "vitest";
import type { ToolSchema } from "arc-agentkit";
import { AnthropicLLM, OpenAILLM } from "arc-agentkit/models";
import { FakeAnthropic } from "../cli/kit/fake-anthropic.js";
import { FakeOpenAI } from "../cli/kit/fake-openai.js";
import { ask } from "./support.js";

/** A tool whose schema counts its reads. */
function counted(name: string): { tool: ToolSchema; reads: () => number } {
  let reads = 0;
  const parameters = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
  const tool = {
    name,
    description: `tool ${name}`,
    get parameters() {
      reads++;
      return parameters;
    },
  };
  return { tool, reads: () => reads };
}

describe("the tool list is converted once per list", () => {
  it("OpenAILLM (strict): three turns with the same tools read each schema in one conversion; a changed list is converted again and sent as it is", async () => {
    await using api = await FakeOpenAI.start([{ text: "1" }, { text: "2" }, { text: "3" }, { text: "4" }]);
    const llm = new OpenAILLM({ apiKey: "sk-test", baseURL: `${api.url}/v1`, maxRetries: 0, strict: true });
    const a = counted("fs.read"),
      b = counted("fs.write"),
      c = counted("fs.list");
    await llm.complete(ask("x", { tools: [a.tool, b.tool] }));
    const once = a.reads();
    expect(once).toBeGreaterThan(0);
    for (let i = 0; i < 2; i++) await llm.complete(ask("x", { tools: [a.tool, b.tool] })); // a new array each turn, as a caller may make
    expect([a.reads(), b.reads()]).toEqual([once, once]);
    await llm.complete(ask("x", { tools: [a.tool, c.tool] }));
    expect([a.reads(), c.reads()]).toEqual([once * 2, once]);
    const names = (i: number) =>
      (api.responseRequests[i] as unknown as { tools: { name: string; strict: boolean }[] }).tools.map((t) => [t.name, t.strict]);
    expect([0, 1, 2].map(names)).toEqual(
      Array(3).fill([
        ["fs_read", true],
        ["fs_write", true],
      ]),
    );
    expect(names(3)).toEqual([
      ["fs_read", true],
      ["fs_list", true],
    ]);
  });

  it("AnthropicLLM: the same tools are read once over three turns; a changed list moves the cache breakpoint to its own last tool", async () => {
    await using api = await FakeAnthropic.start([{ text: "1" }, { text: "2" }, { text: "3" }, { text: "4" }]);
    const llm = new AnthropicLLM({ apiKey: "sk-test", baseURL: api.url, maxRetries: 0 });
    const a = counted("read"),
      b = counted("write"),
      c = counted("list");
    await llm.complete(ask("x", { tools: [a.tool, b.tool] }));
    const once = a.reads();
    expect(once).toBeGreaterThan(0);
    for (let i = 0; i < 2; i++) await llm.complete(ask("x", { tools: [a.tool, b.tool] }));
    expect([a.reads(), b.reads()]).toEqual([once, once]);
    await llm.complete(ask("x", { tools: [c.tool, a.tool] }));
    expect(a.reads()).toBe(once * 2);
    const tools = (i: number) =>
      (api.messageRequests[i] as unknown as { tools: { name: string; cache_control?: unknown }[] }).tools.map((t) => [
        t.name,
        t.cache_control !== undefined,
      ]);
    expect([0, 1, 2].map(tools)).toEqual(
      Array(3).fill([
        ["read", false],
        ["write", true],
      ]),
    );
    expect(tools(3)).toEqual([
      ["list", false],
      ["read", true],
    ]);
  });
});
