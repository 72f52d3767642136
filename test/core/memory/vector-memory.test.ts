/**
 * @module test/core/memory/vector-memory.test
 * `VectorMemory` and `HashingEmbedder` (src/memory/vector-memory.ts): the
 * built-in local embedder ranks the relevant document first; embedders are
 * pluggable; a vector of the wrong length is refused.
 */
import { optionsError } from "../helpers.js";
import { describe, expect, it } from "vitest";
import { HashingEmbedder, VectorMemory, memoryItem, type Embedder } from "../../../src/index.js";

const DOCS = [
  "The deploy pipeline pushes containers to the staging cluster every night.",
  "Customer records live in the private Postgres database; access needs approval.",
  "Our cafeteria serves soup on Tuesdays and pasta on Fridays.",
  "Rotate the API keys for the billing service every ninety days.",
];

/** An embedder that returns `vector` for every text (to test the checks). */
function embedderReturning(dimensions: number, vector: number[] | undefined): Embedder {
  return { dimensions, embed: async (texts) => texts.map(() => vector as number[]) };
}

describe("HashingEmbedder", () => {
  it("is deterministic, L2-normalised, of the given dimension", async () => {
    const e = new HashingEmbedder(64);
    const [a, b] = await e.embed(["Hello world", "Hello world"]);
    expect(a).toHaveLength(64);
    expect(a).toEqual(b);
    expect(Math.hypot(...a!)).toBeCloseTo(1, 10);
    expect(new HashingEmbedder().dimensions).toBe(512);
  });

  it("an empty text is the zero vector (not NaN)", async () => {
    const [v] = await new HashingEmbedder(8).embed([""]);
    expect(v).toEqual(new Array(8).fill(0));
  });

  it.each([7, 0, 12.5])("refuses dimensions %s", (d) => {
    expect(() => new HashingEmbedder(d)).toThrow(optionsError(`HashingEmbedder: dimensions must be an integer >= 8, got ${d}`));
  });
});

describe("VectorMemory", () => {
  it("with the built-in embedder, ranks the relevant document first", async () => {
    const m = new VectorMemory();
    for (const d of DOCS) await m.write(memoryItem(d, { doc: DOCS.indexOf(d) }));
    expect(m.size).toBe(4);
    const cases: Array<[string, number]> = [
      ["which database holds customer records?", 1],
      ["how often do we rotate API keys", 3],
      ["deploy to staging", 0],
      ["what soup is served on tuesday", 2],
    ];
    for (const [q, expected] of cases) {
      const [top] = await m.query(q, { k: 1 });
      expect(top!.metadata.doc, q).toBe(expected);
    }
  });

  it("sets scores, best first, and returns at most k", async () => {
    const m = new VectorMemory();
    for (const d of DOCS) await m.write(memoryItem(d));
    const out = await m.query("customer database records", { k: 3 });
    expect(out).toHaveLength(3);
    const scores = out.map((i) => i.score!);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(scores[0]).toBeGreaterThan(scores[2]!);
    expect(await m.query("x", { k: 10 })).toHaveLength(4);
  });

  it("an empty store answers []", async () => {
    expect(await new VectorMemory().query("anything")).toEqual([]);
  });

  it("takes a pluggable embedder, and ties keep insertion order", async () => {
    const calls: string[][] = [];
    const axis: Embedder = {
      dimensions: 2,
      embed: async (texts) => {
        calls.push([...texts]);
        return texts.map((t) => (t.startsWith("x") ? [1, 0] : [0, 1]));
      },
    };
    const m = new VectorMemory({ name: "axes", embedder: axis });
    for (const c of ["y1", "x1", "x2", "y2"]) await m.write(memoryItem(c));
    const out = await m.query("x?", { k: 4 });
    expect(out.map((i) => [i.content, i.score])).toEqual([
      ["x1", 1],
      ["x2", 1],
      ["y1", 0],
      ["y2", 0],
    ]);
    expect(calls.at(-1)).toEqual(["x?"]);
    expect(m.embedder).toBe(axis);
    expect(m.name).toBe("axes");
  });

  it("refuses a vector of the wrong length on write and on query", async () => {
    const bad = new VectorMemory({ name: "vec", embedder: embedderReturning(3, [1, 0]) });
    await expect(bad.write(memoryItem("a"))).rejects.toThrow(
      optionsError("vec.write: the embedder returned a vector of length 2, expected 3"),
    );
    expect(bad.size).toBe(0);
    let short = false;
    const flaky: Embedder = { dimensions: 3, embed: async (texts) => texts.map(() => (short ? [1, 0] : [1, 0, 0])) };
    const m = new VectorMemory({ name: "vec", embedder: flaky });
    await m.write(memoryItem("a"));
    short = true;
    await expect(m.query("q")).rejects.toThrow(optionsError("vec.query: the embedder returned a vector of length 2, expected 3"));
  });

  it("refuses a missing vector or a non-finite entry", async () => {
    await expect(new VectorMemory({ name: "v", embedder: embedderReturning(2, undefined) }).write(memoryItem("a"))).rejects.toThrow(
      "v.write: the embedder returned a vector of length (none), expected 2",
    );
    await expect(new VectorMemory({ name: "v", embedder: embedderReturning(2, [Number.NaN, 1]) }).write(memoryItem("a"))).rejects.toThrow(
      "v.write: the embedder returned a vector with a non-finite entry",
    );
  });

  it("refuses an item without string content", async () => {
    await expect(new VectorMemory().write({ content: 5 } as never)).rejects.toThrow(
      optionsError("vector.write: item.content must be a string"),
    );
  });
});

describe("VectorMemory options", () => {
  it("refuses an unknown option by name, with the accepted ones", () => {
    expect(() => new VectorMemory({ name: "v", dimensions: 64 } as never)).toThrow(
      expect.objectContaining({
        code: "invalid_option",
        where: "VectorMemory",
        option: "dimensions",
        message: "VectorMemory: unknown option 'dimensions'. Accepted options: name, embedder",
      }),
    );
  });

  it.each([
    ["name", ""],
    ["embedder", { embed: () => [] }],
  ])("refuses a wrong %s, naming it", (key, value) => {
    expect(() => new VectorMemory({ [key]: value } as never)).toThrow(
      expect.objectContaining({ code: "invalid_option", where: "VectorMemory", option: key }),
    );
  });
});
