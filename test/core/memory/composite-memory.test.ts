/**
 * @module test/core/memory/composite-memory.test
 * `CompositeMemory` (src/memory/composite-memory.ts): several sources queried
 * as one — merged, ranked, deduplicated; a failing source skipped and
 * reported; writes routed to `writeTo`.
 */
import { optionsError } from "../helpers.js";
import { describe, expect, it } from "vitest";
import { CompositeMemory, NotImplementedError, memoryItem } from "../../../src/index.js";
import { makeTestCtx } from "../../../src/testing/index.js";
import { items, sourceFailing, sourceReturning } from "./sources.js";

const contents = (xs: Array<{ content: string }>) => xs.map((x) => x.content);

describe("CompositeMemory.query", () => {
  it("interleaves unscored sources round-robin, in source order", async () => {
    const m = new CompositeMemory([sourceReturning("a", items("a1", "a2", "a3")), sourceReturning("b", items("b1"))]);
    expect(contents(await m.query("q"))).toEqual(["a1", "b1", "a2", "a3"]);
  });

  it("ranks scored items by score, descending", async () => {
    const m = new CompositeMemory([
      sourceReturning("a", items(["a1", 0.2], ["a2", 0.1])),
      sourceReturning("b", items(["b1", 0.9], ["b2", 0.15])),
    ]);
    const out = await m.query("q");
    expect(contents(out)).toEqual(["b1", "a1", "b2", "a2"]);
    expect(out.map((i) => i.score)).toEqual([0.9, 0.2, 0.15, 0.1]);
  });

  it("mixed: scored items are ranked among themselves, unscored ones keep their places (deterministic)", async () => {
    const m = new CompositeMemory([
      sourceReturning("a", items(["a", 0.1])),
      sourceReturning("b", items("b")),
      sourceReturning("c", items(["c", 0.9])),
    ]);
    expect(contents(await m.query("q"))).toEqual(["c", "b", "a"]);
  });

  it("equal scores keep the interleaved order", async () => {
    const m = new CompositeMemory([sourceReturning("a", items(["a1", 0.5], ["a2", 0.5])), sourceReturning("b", items(["b1", 0.5]))]);
    expect(contents(await m.query("q"))).toEqual(["a1", "b1", "a2"]);
  });

  it("keeps duplicate content once, at its best place", async () => {
    const m = new CompositeMemory([sourceReturning("a", items(["same", 0.3], ["a2", 0.2])), sourceReturning("b", items(["same", 0.8]))]);
    const out = await m.query("q");
    expect(contents(out)).toEqual(["same", "a2"]);
    expect(out[0]!.score).toBe(0.8);
  });

  it("returns at most k, and asks each source for k", async () => {
    const a = sourceReturning("a", items("a1", "a2", "a3"));
    const b = sourceReturning("b", items("b1", "b2", "b3"));
    const m = new CompositeMemory([a, b]);
    expect(contents(await m.query("q", { k: 3 }))).toEqual(["a1", "b1", "a2"]);
    expect(a.queries[0]![1]).toMatchObject({ k: 3 });
    expect(b.queries[0]![0]).toBe("q");
  });

  it("skips a failing source (async or sync) and reports it as memory.error", async () => {
    const ctx = makeTestCtx();
    const m = new CompositeMemory([
      sourceFailing("down", new Error("index offline")),
      sourceReturning("ok", items("x")),
      sourceFailing("broken", new TypeError("bad"), true),
    ]);
    expect(contents(await m.query("q", { ctx }))).toEqual(["x"]);
    expect(ctx.eventsNamed("memory.error")).toEqual([
      { event: "memory.error", data: { source: "down", error: "Error: index offline" } },
      { event: "memory.error", data: { source: "broken", error: "TypeError: bad" } },
    ]);
  });

  it("all sources failing gives an empty answer, not an error", async () => {
    const m = new CompositeMemory([sourceFailing("down", new Error("x"))]);
    expect(await m.query("q")).toEqual([]);
  });

  it("refuses a bad k", async () => {
    const m = new CompositeMemory([sourceReturning("a", [])], { name: "ctx" });
    await expect(m.query("q", { k: 0 })).rejects.toThrow(optionsError("ctx.query: k must be a positive integer, got 0"));
  });
});

describe("CompositeMemory construction and writes", () => {
  it("is named after its sources unless named", () => {
    expect(new CompositeMemory([sourceReturning("a", []), sourceReturning("b", [])]).name).toBe("composite(a,b)");
    expect(new CompositeMemory([sourceReturning("a", [])], { name: "ctx" }).name).toBe("ctx");
  });

  it("needs a source", () => {
    expect(() => new CompositeMemory([])).toThrow(optionsError("CompositeMemory: give at least one source"));
  });

  it("writes go to writeTo", async () => {
    const a = sourceReturning("a", []);
    const b = sourceReturning("b", []);
    const m = new CompositeMemory([a, b], { writeTo: "b" });
    await m.write(memoryItem("note"));
    expect(b.written.map((i) => i.content)).toEqual(["note"]);
    expect(a.written).toEqual([]);
    expect(contents(await m.query("q"))).toEqual(["note"]);
  });

  it("refuses writes without writeTo, with NotImplementedError", async () => {
    const m = new CompositeMemory([sourceReturning("a", [])]);
    const err = await m.write(memoryItem("x")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotImplementedError);
    expect(err).toMatchObject({
      code: "not_implemented",
      operation: "write",
      message: "composite(a): no writable source; pass { writeTo: <source name> }",
    });
  });

  it("refuses a writeTo that names no source", () => {
    expect(() => new CompositeMemory([sourceReturning("a", [])], { writeTo: "z" })).toThrow(
      optionsError("CompositeMemory: writeTo 'z' names no source; sources: a"),
    );
  });
});

describe("CompositeMemory options", () => {
  it("refuses an unknown option by name, with the accepted ones", () => {
    expect(() => new CompositeMemory([sourceReturning("a", [])], { write: "a" } as never)).toThrow(
      expect.objectContaining({
        code: "invalid_option",
        where: "CompositeMemory",
        option: "write",
        message: "CompositeMemory: unknown option 'write'. Accepted options: name, writeTo",
      }),
    );
  });
});
