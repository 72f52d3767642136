/**
 * @module memory/composite-memory
 * Several sources queried as one, merged and ranked.
 */
import { OptionsError } from "../errors/options.error.js";
import { checkOptions } from "../options/option-checks.js";
import { checkK, memoryNameRule, type MemoryItem, type MemorySource, type QueryOptions } from "./memory.js";
import { NotImplementedError } from "../errors/not-implemented.error.js";
import type { RunContext } from "../context/run-context.js";

/** The options a `CompositeMemory` accepts, declared once (the `writeTo` source is checked against `sources` after). */
const COMPOSITE_MEMORY_OPTIONS = {
  name: memoryNameRule(),
  writeTo: memoryNameRule(),
} as const;

/**
 * Queries every source (concurrently), merges the results and ranks them:
 * the lists are first interleaved round-robin (each source's best, then each
 * source's second, ... in source order); items that carry a `score` are then
 * re-ordered among themselves by score (descending, ties keep the interleaved
 * order), while unscored items keep their interleaved places. Duplicate
 * content is kept once, at its best place. A source that fails is skipped and
 * reported on `ctx` as `memory.error`. Writes go to the `writeTo` source (by
 * name), or are refused with `NotImplementedError`.
 */
export class CompositeMemory implements MemorySource {
  readonly name: string;
  readonly sources: readonly MemorySource[];
  private readonly writeTo?: string;

  /**
   * @throws OptionsError for an unknown option, a missing required one or a
   *   value of the wrong kind (or `null` options), naming what is accepted.
   */
  constructor(sources: readonly MemorySource[], options: { name?: string; writeTo?: string } = {}) {
    if (!sources.length) throw new OptionsError("CompositeMemory", "sources", "CompositeMemory: give at least one source");
    this.sources = Object.freeze([...sources]);
    const o = checkOptions(options, "CompositeMemory", COMPOSITE_MEMORY_OPTIONS);
    this.name = o.name ?? `composite(${sources.map((s) => s.name).join(",")})`;
    if (o.writeTo !== undefined && !sources.some((s) => s.name === o.writeTo)) {
      throw new OptionsError(
        "CompositeMemory",
        "writeTo",
        `CompositeMemory: writeTo '${o.writeTo}' names no source; sources: ${sources.map((s) => s.name).join(", ")}`,
      );
    }
    this.writeTo = o.writeTo;
  }

  async query(text: string, options: QueryOptions = {}): Promise<MemoryItem[]> {
    const k = checkK(options.k, `${this.name}.query`);
    // Through a promise, so a source that throws synchronously is skipped like one that rejects.
    const settled = await Promise.allSettled(this.sources.map(async (s) => s.query(text, { ...options, k })));
    const lists: MemoryItem[][] = [];
    settled.forEach((r, i) => {
      if (r.status === "fulfilled") lists.push(r.value);
      else options.ctx?.emit("memory.error", { source: this.sources[i]!.name, error: String(r.reason) });
    });
    const merged: MemoryItem[] = [];
    const longest = Math.max(0, ...lists.map((l) => l.length));
    for (let rank = 0; rank < longest; rank++) for (const l of lists) if (l[rank]) merged.push(l[rank]!);
    // One comparator over mixed scored/unscored items is not a total order;
    // sort the scored items into the scored slots instead (Array#sort is stable).
    const slots = merged.flatMap((item, i) => (typeof item.score === "number" && !Number.isNaN(item.score) ? [i] : []));
    const scored = slots.map((i) => merged[i]!).sort((a, b) => b.score! - a.score!);
    slots.forEach((slot, j) => (merged[slot] = scored[j]!));
    const seen = new Set<string>();
    const out: MemoryItem[] = [];
    for (const item of merged) {
      if (seen.has(item.content)) continue;
      seen.add(item.content);
      out.push(item);
      if (out.length === k) break;
    }
    return out;
  }

  async write(item: MemoryItem, ctx?: RunContext): Promise<void> {
    const target = this.sources.find((s) => s.name === this.writeTo);
    if (!target) throw new NotImplementedError(`${this.name}: no writable source; pass { writeTo: <source name> }`, "write");
    await target.write(item, ctx);
  }
}
