/**
 * @module records/memory-result-store
 * The in-process `ResultStore`: a map with an expiry per result and a cap on
 * how many are kept (the oldest go first). Nothing survives the process.
 */
import type { ResultStore, SpilledResult } from "../contracts/result-store.js";
import { checkPositiveInt } from "../options/option-checks.js";

/** Options of `MemoryResultStore`. */
export interface MemoryResultStoreOptions {
  /** How long a result is kept (ms). Default one hour. */
  readonly ttlMs?: number;
  /** Most results kept at once; past it the oldest is dropped. Default 1,000. */
  readonly maxResults?: number;
}

/** Defaults of `MemoryResultStore`: an hour, a thousand results. */
export const RESULT_STORE_DEFAULTS = Object.freeze({ ttlMs: 3_600_000, maxResults: 1_000 });

/**
 * Spilled results in this process (the default `results.store`). Expiry is
 * read from `Date.now()` on each `getResult` (a fake clock moves it); expired
 * results are swept on each `putResult`. Throws `OptionsError` for a
 * `ttlMs` or `maxResults` that is not a positive integer.
 */
export class MemoryResultStore implements ResultStore {
  readonly ttlMs: number;
  private readonly maxResults: number;
  private readonly results = new Map<string, SpilledResult>();

  constructor(options: MemoryResultStoreOptions = {}) {
    this.ttlMs = checkPositiveInt(options.ttlMs, "MemoryResultStore", "ttlMs", RESULT_STORE_DEFAULTS.ttlMs);
    this.maxResults = checkPositiveInt(options.maxResults, "MemoryResultStore", "maxResults", RESULT_STORE_DEFAULTS.maxResults);
  }

  /** Keep `result`; rejects when its id is already kept. */
  putResult(result: SpilledResult): Promise<void> {
    if (this.results.has(result.id)) return Promise.reject(new Error(`MemoryResultStore: result '${result.id}' already exists`));
    const now = Date.now();
    for (const [id, r] of this.results) if (Date.parse(r.expiresAt) <= now) this.results.delete(id);
    while (this.results.size >= this.maxResults) this.results.delete(this.results.keys().next().value!);
    this.results.set(result.id, Object.freeze({ ...result }));
    return Promise.resolve();
  }

  /** The result when it is `owner`'s and not expired. */
  getResult(id: string, owner: string): Promise<SpilledResult | undefined> {
    const r = this.results.get(id);
    if (!r || r.owner !== owner || Date.parse(r.expiresAt) <= Date.now()) return Promise.resolve(undefined);
    return Promise.resolve(r);
  }
}
