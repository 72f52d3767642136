/**
 * @module test/core/memory/cached-memory.test
 * `CachedMemory` (src/memory/cached-memory.ts): TTL per (text, k), controlled
 * here through the `now` option; writes go through and clear the cache;
 * concurrent identical queries share one call; failures are not cached.
 */
import { optionsError } from "../helpers.js";
import { describe, expect, it } from "vitest";
import { CachedMemory, memoryItem, type MemorySource } from "../../../src/index.js";
import { items, sourceReturning } from "./sources.js";

/** A clock the test moves by hand. */
function manualClock(start = 1_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe("CachedMemory", () => {
  it("serves a repeated query from cache until the TTL passes", async () => {
    const clock = manualClock();
    const src = sourceReturning("wiki", items("a"));
    const m = new CachedMemory(src, { ttlMs: 100, now: clock.now });
    await m.query("q");
    clock.advance(99);
    await m.query("q");
    expect(src.queries).toHaveLength(1);
    clock.advance(1);
    await m.query("q");
    expect(src.queries).toHaveLength(2);
  });

  it("keys on text and k", async () => {
    const src = sourceReturning("wiki", items("a", "b"));
    const m = new CachedMemory(src, { now: manualClock().now });
    await m.query("q");
    await m.query("q", { k: 5 });
    await m.query("q", { k: 1 });
    await m.query("other");
    expect(src.queries.map(([t, o]) => [t, o?.k])).toEqual([
      ["q", 5],
      ["q", 1],
      ["other", 5],
    ]);
  });

  it("returns the cached answer itself", async () => {
    const m = new CachedMemory(sourceReturning("wiki", items("a")), { now: manualClock().now });
    expect(await m.query("q")).toBe(await m.query("q"));
  });

  it("a write goes through and clears the cache", async () => {
    const src = sourceReturning("wiki", items("a"));
    const m = new CachedMemory(src, { now: manualClock().now });
    expect((await m.query("q")).map((i) => i.content)).toEqual(["a"]);
    await m.write(memoryItem("b"));
    expect(src.written.map((i) => i.content)).toEqual(["b"]);
    expect((await m.query("q")).map((i) => i.content)).toEqual(["a", "b"]);
    expect(src.queries).toHaveLength(2);
  });

  it("clear() drops everything", async () => {
    const src = sourceReturning("wiki", items("a"));
    const m = new CachedMemory(src, { now: manualClock().now });
    await m.query("q");
    m.clear();
    await m.query("q");
    expect(src.queries).toHaveLength(2);
  });

  it("concurrent identical queries share one underlying call", async () => {
    const src = sourceReturning("wiki", items("a"));
    const m = new CachedMemory(src, { now: manualClock().now });
    const [x, y] = await Promise.all([m.query("q"), m.query("q")]);
    expect(x).toBe(y);
    expect(src.queries).toHaveLength(1);
  });

  it("a failed query is not cached", async () => {
    let fail = true;
    const src: MemorySource = {
      name: "flaky",
      query: async () => {
        if (fail) throw new Error("timeout");
        return items("ok");
      },
      write: async () => {},
    };
    const m = new CachedMemory(src, { now: manualClock().now });
    await expect(m.query("q")).rejects.toThrow("timeout");
    fail = false;
    expect((await m.query("q")).map((i) => i.content)).toEqual(["ok"]);
  });

  it("ttlMs 0 caches nothing; the default is 30 s; a negative TTL is refused", async () => {
    const src = sourceReturning("wiki", items("a"));
    const m = new CachedMemory(src, { ttlMs: 0, now: manualClock().now });
    await m.query("q");
    await m.query("q");
    expect(src.queries).toHaveLength(2);
    expect(new CachedMemory(src).ttlMs).toBe(30_000);
    expect(() => new CachedMemory(src, { ttlMs: -1 })).toThrow(
      optionsError("CachedMemory: ttlMs must be a non-negative number of milliseconds, got -1"),
    );
    expect(() => new CachedMemory(src, { ttlMs: Number.NaN })).toThrow(optionsError());
  });

  it("takes its source's name unless named", () => {
    const src = sourceReturning("wiki", []);
    expect(new CachedMemory(src).name).toBe("wiki");
    expect(new CachedMemory(src, { name: "cached-wiki" }).name).toBe("cached-wiki");
  });

  it("the default clock works (real time, long TTL)", async () => {
    const src = sourceReturning("wiki", items("a"));
    const m = new CachedMemory(src);
    await m.query("q");
    await m.query("q");
    expect(src.queries).toHaveLength(1);
  });
});

describe("CachedMemory options", () => {
  it("refuses an unknown option by name, with the accepted ones", () => {
    expect(() => new CachedMemory(sourceReturning("s", []), { ttl: 10 } as never)).toThrow(
      expect.objectContaining({
        code: "invalid_option",
        where: "CachedMemory",
        option: "ttl",
        message: "CachedMemory: unknown option 'ttl'. Accepted options: ttlMs, name, now",
      }),
    );
  });

  it("refuses a now that is not a function", () => {
    expect(() => new CachedMemory(sourceReturning("s", []), { now: 5 } as never)).toThrow(
      expect.objectContaining({ code: "invalid_option", where: "CachedMemory", option: "now" }),
    );
  });
});
