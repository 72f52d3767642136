/**
 * @module memory/cached-memory
 * A TTL cache in front of a source.
 */
import { checkOptions, opt } from "../options/option-checks.js";
import { checkK, memoryNameRule, type MemoryItem, type MemorySource, type QueryOptions } from "./memory.js";
import type { RunContext } from "../context/run-context.js";

/** The options a `CachedMemory` accepts, declared once. */
const CACHED_MEMORY_OPTIONS = {
  ttlMs: opt.nonNegativeMs(30_000),
  name: memoryNameRule(),
  now: opt.fn<() => number>("() => milliseconds (a monotonic clock, e.g. performance.now)"),
} as const;

/**
 * Caches `query` results per `(text, k)` for `ttlMs` (default 30 000). A write
 * goes through to the source and clears the cache. Concurrent identical
 * queries share one underlying call; a failed call is not cached.
 */
export class CachedMemory implements MemorySource {
  readonly name: string;
  readonly ttlMs: number;
  private readonly cache = new Map<string, { at: number; value: Promise<MemoryItem[]> }>();

  /**
   * @throws OptionsError for an unknown option, a missing required one or a
   *   value of the wrong kind (or `null` options), naming what is accepted.
   */
  constructor(
    readonly source: MemorySource,
    options: { ttlMs?: number; name?: string; now?: () => number } = {},
  ) {
    const o = checkOptions(options, "CachedMemory", CACHED_MEMORY_OPTIONS);
    this.ttlMs = o.ttlMs;
    this.name = o.name ?? source.name;
    this.now = o.now ?? (() => performance.now());
  }

  private readonly now: () => number;

  query(text: string, options: QueryOptions = {}): Promise<MemoryItem[]> {
    const k = checkK(options.k, `${this.name}.query`);
    const key = `${k}\u0000${text}`;
    const hit = this.cache.get(key);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const value = this.source.query(text, { ...options, k });
    this.cache.set(key, { at: this.now(), value });
    value.catch(() => {
      if (this.cache.get(key)?.value === value) this.cache.delete(key);
    });
    return value;
  }

  /** Drop every cached result. */
  clear(): void {
    this.cache.clear();
  }

  async write(item: MemoryItem, ctx?: RunContext): Promise<void> {
    await this.source.write(item, ctx);
    this.cache.clear();
  }
}
