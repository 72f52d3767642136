/**
 * @module memory/compacted-memory
 * Bounds how much text a source hands to a model, with a visible marker.
 */
import { checkOptions, opt } from "../options/option-checks.js";
import { memoryItem, memoryNameRule, type MemoryItem, type MemorySource, type QueryOptions } from "./memory.js";
import type { RunContext } from "../context/run-context.js";

/** The options a `CompactedMemory` accepts, declared once. */
const COMPACTED_MEMORY_OPTIONS = {
  maxItemChars: opt.positiveInt(2_000),
  maxTotalChars: opt.positiveInt(8_000),
  name: memoryNameRule(),
} as const;

/**
 * Bounds each item to `maxItemChars` and the whole answer to `maxTotalChars`.
 * Cut content ends with a visible marker `[truncated: N more chars]` so the
 * model knows text is missing; items past the total budget are dropped and
 * the last kept item says how many were (`[+N more items omitted]`).
 */
export class CompactedMemory implements MemorySource {
  readonly name: string;
  readonly maxItemChars: number;
  readonly maxTotalChars: number;

  /**
   * @throws OptionsError for an unknown option, a missing required one or a
   *   value of the wrong kind (or `null` options), naming what is accepted.
   */
  constructor(
    readonly source: MemorySource,
    options: { maxItemChars?: number; maxTotalChars?: number; name?: string } = {},
  ) {
    const o = checkOptions(options, "CompactedMemory", COMPACTED_MEMORY_OPTIONS);
    this.maxItemChars = o.maxItemChars;
    this.maxTotalChars = o.maxTotalChars;
    this.name = o.name ?? source.name;
  }

  async query(text: string, options: QueryOptions = {}): Promise<MemoryItem[]> {
    const items = await this.source.query(text, options);
    const out: MemoryItem[] = [];
    let used = 0;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const budget = Math.min(this.maxItemChars, this.maxTotalChars - used);
      if (budget <= 0) {
        const last = out.pop();
        const omitted = items.length - i;
        if (last)
          out.push(memoryItem(`${last.content}\n[+${omitted} more items omitted]`, { ...last.metadata, truncated: true }, last.score));
        break;
      }
      let content = item.content;
      if (content.length > budget) {
        // Never cut a surrogate pair in half.
        const keep = /[\uD800-\uDBFF]/.test(content[budget - 1]!) ? budget - 1 : budget;
        content = `${content.slice(0, keep)}\n[truncated: ${item.content.length - keep} more chars]`;
        out.push(memoryItem(content, { ...item.metadata, truncated: true }, item.score));
      } else out.push(item);
      used += Math.min(item.content.length, budget);
    }
    return out;
  }

  write(item: MemoryItem, ctx?: RunContext): Promise<void> {
    return this.source.write(item, ctx);
  }
}
