/**
 * @module express/rate-limiter
 * A per-key fixed-window rate limit (the key: a digest of the access token,
 * never the token). Pure bookkeeping: `take(key, now)` says whether one
 * more request fits, and when the window reopens if not. Windows past their
 * end are swept once the table grows, so a stream of one-off tokens cannot
 * grow it without bound.
 */
import type { RateLimit } from "./router-options.js";

/** `take()`'s answer: allowed, or refused until `retryAfterMs` has passed. */
export type RateVerdict = { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number };

/** The one "allowed" answer (frozen): an allowed request allocates no verdict. */
const ALLOWED: RateVerdict = Object.freeze({ ok: true });

/** Sweep windows that ended once the table holds this many keys. */
const SWEEP_AT = 10_000;

/** Fixed windows of `limit.windowMs`, `limit.requests` requests each, per key. */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly limit: RateLimit) {}

  /** Count one request for `key` at `now` (ms); refused past the limit. */
  take(key: string, now: number = Date.now()): RateVerdict {
    const { requests, windowMs } = this.limit;
    let w = this.windows.get(key);
    if (!w || now - w.start >= windowMs) {
      if (!w && this.windows.size >= SWEEP_AT) this.sweep(now);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    if (w.count >= requests) return { ok: false, retryAfterMs: w.start + windowMs - now };
    w.count++;
    return ALLOWED;
  }

  /** How many keys are tracked (for tests). */
  get size(): number {
    return this.windows.size;
  }

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (now - w.start >= this.limit.windowMs) this.windows.delete(k);
  }
}
