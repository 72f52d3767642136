/**
 * @module test/core/testing/test-ctx.test
 * `makeTestCtx` / `TestRunContext` (src/testing/test-ctx.ts).
 */
import { describe, expect, it } from "vitest";
import { RunContext } from "../../../src/index.js";
import { FakeLLM, TestRunContext, makeTestCtx } from "../../../src/testing/index.js";

describe("makeTestCtx", () => {
  it("is a RunContext recording { event, data } on ctx.events, in order", () => {
    const ctx = makeTestCtx();
    expect(ctx).toBeInstanceOf(RunContext);
    expect(ctx).toBeInstanceOf(TestRunContext);
    ctx.emit("a", { n: 1 });
    ctx.emit("b");
    ctx.emit("a", { n: 2 });
    expect(ctx.events).toEqual([
      { event: "a", data: { n: 1 } },
      { event: "b", data: {} },
      { event: "a", data: { n: 2 } },
    ]);
    expect(ctx.eventsNamed("a").map((e) => e.data.n)).toEqual([1, 2]);
  });

  it("takes llm, asker, autonomy, signal and caller", () => {
    const llm = FakeLLM.script([]);
    const asker = { ask: async () => ({ kind: "approve" }) };
    const parent = new AbortController();
    const ctx = makeTestCtx({
      llm,
      asker,
      autonomy: "gated",
      signal: parent.signal,
      caller: { kind: "stdio", server: "engine", requestId: 1 },
    });
    expect([ctx.llm, ctx.asker, ctx.autonomy, ctx.caller]).toEqual([
      llm,
      asker,
      "gated",
      { kind: "stdio", server: "engine", requestId: 1 },
    ]);
    parent.abort();
    expect(ctx.cancelled).toBe(true);
  });

  it("defaults to autonomy auto", () => {
    expect(makeTestCtx().autonomy).toBe("auto");
  });

  it("records events from child contexts too", () => {
    const ctx = makeTestCtx();
    ctx.child().emit("from.child");
    expect(ctx.events).toEqual([{ event: "from.child", data: {} }]);
  });
});
