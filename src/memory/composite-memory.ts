/**
 * @module memory/composite-memory
 * Several sources queried as one, merged and ranked.
 */
import { checkK, type MemoryItem, type MemorySource, type QueryOptions } from "./memory.js";
import { NotImplementedError } from "../errors/not-implemented.error.js";
import type { RunContext } from "../context/run-context.js";

/**
 * Queries every source (concurrently), merges the results and ranks them:
 * by `score` (descending) where items have one, otherwise by each source's own
 * order, interleaved round-robin; duplicate content is kept once. A source that
 * fails is skipped and reported on `ctx` as `memory.error`. Writes go to the
 * `writeTo` source (by name), or are refused.
 */
export class CompositeMemory implements MemorySource {
  readonly name: string;
  readonly sources: readonly MemorySource[];
  private readonly writeTo?: string;

  constructor(sources: readonly MemorySource[], options: { name?: string; writeTo?: string } = {}) {
    if (!sources.length) throw new TypeError("CompositeMemory: give at least one source");
    this.sources = Object.freeze([...sources]);
    this.name = options.name ?? `composite(${sources.map((s) => s.name).join(",")})`;
    if (options.writeTo !== undefined && !sources.some((s) => s.name === options.writeTo)) {
      throw new TypeError(`CompositeMemory: writeTo '${options.writeTo}' names no source; sources: ${sources.map((s) => s.name).join(", ")}`);
    }
    this.writeTo = options.writeTo;
  }

  async query(text: string, options: QueryOptions = {}): Promise<MemoryItem[]> {
    const k = checkK(options.k, `${this.name}.query`);
    const settled = await Promise.allSettled(this.sources.map((s) => s.query(text, { ...options, k })));
    const lists: MemoryItem[][] = [];
    settled.forEach((r, i) => {
      if (r.status === "fulfilled") lists.push(r.value);
      else options.ctx?.emit("memory.error", { source: this.sources[i]!.name, error: String(r.reason) });
    });
    const merged: Array<{ item: MemoryItem; rank: number; order: number }> = [];
    let order = 0;
    const longest = Math.max(0, ...lists.map((l) => l.length));
    for (let rank = 0; rank < longest; rank++) for (const l of lists) if (l[rank]) merged.push({ item: l[rank]!, rank, order: order++ });
    merged.sort((a, b) => {
      const sa = a.item.score, sb = b.item.score;
      if (sa !== undefined && sb !== undefined && sa !== sb) return sb - sa;
      return a.order - b.order;
    });
    const seen = new Set<string>();
    const out: MemoryItem[] = [];
    for (const { item } of merged) {
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
