/**
 * @module test/core/testing/fake-llm.test
 * `FakeLLM` and `Turn` (src/testing/fake-llm.ts): scripted turns in order,
 * every request recorded, a clear message past the script, signals honoured.
 */
import { describe, expect, it } from "vitest";
import type { LLMRequest } from "../../../src/index.js";
import { FakeLLM, Turn } from "../../../src/testing/index.js";
import { optionsError } from "../helpers.js";

/** A minimal request. */
function request(content: string, signal?: AbortSignal): LLMRequest {
  return { model: "m", messages: [{ role: "user", content }], tools: [], signal };
}

describe("Turn", () => {
  it("is frozen, and holds frozen copies of its tool calls", () => {
    const calls = [{ id: "1", name: "a", arguments: { x: 1 } }];
    const t = new Turn({ content: "hi", toolCalls: calls, usage: { input: 3 } });
    calls[0]!.name = "changed";
    expect(t).toMatchObject({ content: "hi", toolCalls: [{ id: "1", name: "a", arguments: { x: 1 } }], usage: { input: 3 } });
    expect(Object.isFrozen(t)).toBe(true);
    expect(Object.isFrozen(t.toolCalls)).toBe(true);
    expect(Object.isFrozen(t.toolCalls![0])).toBe(true);
    expect(new Turn().toolCalls).toBeUndefined();
  });
});

describe("Turn checks its options by one declared spec", () => {
  it("refuses an unknown key (with the right name), a wrong-kind value and null options, as OptionsError", () => {
    expect(() => new Turn({ text: "hi" } as never)).toThrow(
      optionsError("Turn: unknown option 'text' (a turn's text is 'content'). Accepted options: content, toolCalls, usage"),
    );
    expect(() => new Turn({ toolCalls: { id: "1", name: "a", arguments: {} } } as never)).toThrow(
      optionsError(
        `Turn: 'toolCalls' must be an array of tool calls { id, name, arguments }, got object {"id":"1","name":"a","arguments":{}}`,
      ),
    );
    expect(() => new Turn({ toolCalls: [{ name: "a" }] } as never)).toThrow(optionsError());
    expect(() => new Turn({ content: 5 } as never)).toThrow(optionsError("Turn: 'content' must be a string, got number 5"));
    expect(() => new Turn({ usage: { input: "3" } } as never)).toThrow(
      optionsError(`Turn: 'usage' must be an object of token counts ({ input: 3 }), got object {"input":"3"}`),
    );
    expect(() => new Turn(null as never)).toThrow(optionsError("Turn: options must be an object { content, toolCalls, usage }, got null"));
  });
});

describe("FakeLLM", () => {
  it("answers its script in order and records every request", async () => {
    const llm = FakeLLM.script([new Turn({ content: "one" }), { content: "two" }]);
    expect(llm.remaining).toBe(2);
    expect(await llm.complete(request("a"))).toMatchObject({ content: "one" });
    expect(await llm.complete(request("b"))).toEqual({ content: "two" });
    expect(llm.remaining).toBe(0);
    expect(llm.requests.map((r) => r.messages[0]!.content)).toEqual(["a", "b"]);
  });

  it("past the script, rejects saying so (and still records the request)", async () => {
    const llm = FakeLLM.script([new Turn({ content: "only" })]);
    await llm.complete(request("a"));
    await expect(llm.complete(request("b"))).rejects.toThrow("FakeLLM: script exhausted after 1 turn(s); request 2 has no scripted answer");
    expect(llm.requests).toHaveLength(2);
  });

  it("rejects with the abort reason when the request's signal is aborted, without using a turn", async () => {
    const llm = FakeLLM.script([new Turn({ content: "x" })]);
    const why = new Error("cancelled");
    await expect(llm.complete(request("a", AbortSignal.abort(why)))).rejects.toBe(why);
    expect(llm.remaining).toBe(1);
  });

  it("the script is copied: changing the array later changes nothing", async () => {
    const turns = [new Turn({ content: "x" })];
    const llm = FakeLLM.script(turns);
    turns.push(new Turn({ content: "y" }));
    expect(llm.remaining).toBe(1);
  });
});
