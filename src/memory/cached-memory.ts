/**
 * @module memory/cached-memory
 * A TTL cache in front of a source.
 */
import { OptionsError } from "../errors/options.error.js";
import { checkK, type MemoryItem, type MemorySource, type QueryOptions } from "./memory.js";
import type { RunContext } from "../context/run-context.js";

/**
 * Caches `query` results per `(text, k)` for `ttlMs` (default 30 000). A write
 * goes through to the source and clears the cache. Concurrent identical
 * queries share one underlying call; a failed call is not cached.
 */
export class CachedMemory implements MemorySource {
  readonly name: string;
  readonly ttlMs: number;
  private readonly cache = new Map<string, { at: number; value: Promise<MemoryItem[]> }>();

  constructor(
    readonly source: MemorySource,
    options: { ttlMs?: number; name?: string; now?: () => number } = {},
  ) {
    this.ttlMs = options.ttlMs ?? 30_000;
    if (!(this.ttlMs >= 0)) throw new OptionsError("CachedMemory", "ttlMs", `CachedMemory: ttlMs must be >= 0, got ${options.ttlMs}`);
    this.name = options.name ?? source.name;
    this.now = options.now ?? (() => performance.now());
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
