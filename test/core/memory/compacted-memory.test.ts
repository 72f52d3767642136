/**
 * @module test/core/memory/compacted-memory.test
 * `CompactedMemory` (src/memory/compacted-memory.ts): bounds what a source
 * hands a model — per item and in total — with visible markers.
 */
import { optionsError } from "../helpers.js";
import { describe, expect, it } from "vitest";
import { CompactedMemory, memoryItem } from "../../../src/index.js";
import { items, sourceReturning } from "./sources.js";

const MARKER = /\n\[truncated: \d+ more chars\]$/;

/** The source text an answer holds, markers removed. */
function sourceText(content: string): string {
  return content.replace(/\n\[\+\d+ more items omitted\]$/, "").replace(MARKER, "");
}

describe("CompactedMemory", () => {
  it("passes small answers through untouched", async () => {
    const src = sourceReturning("wiki", items(["short", 0.5]));
    const out = await new CompactedMemory(src).query("q");
    expect(out).toEqual([{ content: "short", metadata: {}, score: 0.5 }]);
  });

  it("cuts a long item to maxItemChars with a visible marker saying how much is missing", async () => {
    const src = sourceReturning("wiki", [memoryItem("x".repeat(25), { id: 7 }, 0.9)]);
    const [item] = await new CompactedMemory(src, { maxItemChars: 10 }).query("q");
    expect(item).toEqual({ content: `${"x".repeat(10)}\n[truncated: 15 more chars]`, metadata: { id: 7, truncated: true }, score: 0.9 });
  });

  it("bounds the total and says how many items were dropped", async () => {
    const src = sourceReturning("wiki", items("aaaa", "bbbb", "cccc", "dddd"));
    const out = await new CompactedMemory(src, { maxItemChars: 10, maxTotalChars: 6 }).query("q");
    expect(out.map((i) => i.content)).toEqual(["aaaa", "bb\n[truncated: 2 more chars]\n[+2 more items omitted]"]);
    expect(out[1]!.metadata).toEqual({ truncated: true });
  });

  it("an exactly-full budget drops the rest with a marker on the last kept item", async () => {
    const src = sourceReturning("wiki", items("aaaa", "bbbb"));
    const out = await new CompactedMemory(src, { maxTotalChars: 4 }).query("q");
    expect(out.map((i) => i.content)).toEqual(["aaaa\n[+1 more items omitted]"]);
  });

  it("never hands over more source text than the bounds allow", async () => {
    const src = sourceReturning("wiki", items("a".repeat(50), "b".repeat(3), "c".repeat(40), "d".repeat(7), "e".repeat(9)));
    for (const [maxItemChars, maxTotalChars] of [
      [5, 12],
      [20, 30],
      [1, 1],
      [100, 100],
      [8, 9],
    ]) {
      const out = await new CompactedMemory(src, { maxItemChars, maxTotalChars }).query("q");
      const texts = out.map((i) => sourceText(i.content));
      expect(texts.every((t) => t.length <= maxItemChars!)).toBe(true);
      expect(texts.reduce((n, t) => n + t.length, 0)).toBeLessThanOrEqual(maxTotalChars!);
    }
  });

  it("does not split a surrogate pair", async () => {
    const src = sourceReturning("wiki", items("ab😀cd"));
    const [item] = await new CompactedMemory(src, { maxItemChars: 3 }).query("q");
    expect(item!.content).toBe("ab\n[truncated: 4 more chars]");
  });

  it("defaults 2000 / 8000; refuses non-positive bounds; writes go through", async () => {
    const src = sourceReturning("wiki", []);
    const m = new CompactedMemory(src);
    expect([m.maxItemChars, m.maxTotalChars, m.name]).toEqual([2_000, 8_000, "wiki"]);
    expect(() => new CompactedMemory(src, { maxItemChars: 0 })).toThrow(
      optionsError("CompactedMemory: maxItemChars must be a positive integer, got number 0"),
    );
    expect(() => new CompactedMemory(src, { maxTotalChars: 2.5 })).toThrow(
      optionsError("CompactedMemory: maxTotalChars must be a positive integer, got number 2.5"),
    );
    await m.write(memoryItem("n"));
    expect(src.written.map((i) => i.content)).toEqual(["n"]);
  });
});

describe("CompactedMemory options", () => {
  it("refuses an unknown option by name, with the accepted ones", () => {
    expect(() => new CompactedMemory(sourceReturning("s", []), { maxChars: 10 } as never)).toThrow(
      expect.objectContaining({
        code: "invalid_option",
        where: "CompactedMemory",
        option: "maxChars",
        message: "CompactedMemory: unknown option 'maxChars'. Accepted options: maxItemChars, maxTotalChars, name",
      }),
    );
  });
});
