/**
 * @module test/core/memory/memory.test
 * The MemorySource contract helpers (src/memory/memory.ts).
 */
import { optionsError } from "../helpers.js";
import { describe, expect, it } from "vitest";
import { memoryItem } from "../../../src/index.js";
import { checkK } from "../../../src/memory/memory.js";

describe("memoryItem()", () => {
  it("builds a frozen item with a frozen copy of its metadata", () => {
    const meta = { source: "wiki" };
    const item = memoryItem("text", meta, 0.5);
    meta.source = "changed";
    expect(item).toEqual({ content: "text", metadata: { source: "wiki" }, score: 0.5 });
    expect(Object.isFrozen(item)).toBe(true);
    expect(Object.isFrozen(item.metadata)).toBe(true);
  });

  it("metadata defaults to {}, and an absent score is no key at all", () => {
    const item = memoryItem("text");
    expect(item).toEqual({ content: "text", metadata: {} });
    expect("score" in item).toBe(false);
  });
});

describe("checkK()", () => {
  it("defaults to 5 and accepts positive integers", () => {
    expect(checkK(undefined, "q")).toBe(5);
    expect(checkK(1, "q")).toBe(1);
  });

  it.each([0, -2, 1.5, Number.NaN])("refuses %s, naming where", (k) => {
    expect(() => checkK(k, "wiki.query")).toThrow(optionsError(`wiki.query: k must be a positive integer, got ${k}`));
  });
});
