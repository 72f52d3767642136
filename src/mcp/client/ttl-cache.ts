/**
 * @module mcp/client/ttl-cache
 * One cached value with a time-to-live: `mcpResources()`' own list cache, a
 * layer over the client's (whose lists live in the SDK `Client`'s cache, see
 * list-cache.ts).
 */
import { OptionsError } from "../../errors/options.error.js";

/**
 * Caches one value for `ttlMs`. Concurrent misses share one load. A load that
 * fails drops the cached value and rejects: an expired or refreshed list is
 * never served as fresh after its refresh failed. `clear()` drops the value,
 * and a load that was in flight when it ran does not repopulate the cache.
 */
export class TtlCache<T> {
  private entry?: { readonly value: T; readonly at: number };
  private inflight?: Promise<T>;
  private generation = 0;

  constructor(
    /** How long a loaded value is served, in ms. */
    readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!Number.isFinite(ttlMs) || ttlMs < 0)
      throw new OptionsError("TtlCache", "ttlMs", `TtlCache: ttlMs must be a non-negative number, got ${ttlMs}`);
  }

  /** The cached value if still fresh, else the result of `load()` (shared with concurrent callers unless `forceRefresh`). */
  get(load: () => Promise<T>, forceRefresh = false): Promise<T> {
    if (!forceRefresh) {
      if (this.entry && this.now() - this.entry.at < this.ttlMs) return Promise.resolve(this.entry.value);
      if (this.inflight) return this.inflight;
    }
    const gen = this.generation;
    const p = load().then(
      (value) => {
        if (gen === this.generation) this.entry = { value, at: this.now() };
        return value;
      },
      (err: unknown) => {
        if (gen === this.generation) this.entry = undefined;
        throw err;
      },
    );
    this.inflight = p;
    const done = () => {
      if (this.inflight === p) this.inflight = undefined;
    };
    p.then(done, done);
    return p;
  }

  /** Drop the cached value; a load in flight will not store its result. */
  clear(): void {
    this.generation++;
    this.entry = undefined;
    this.inflight = undefined;
  }
}
