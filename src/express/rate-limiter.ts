/**
 * @module express/rate-limiter
 * A per-key fixed-window rate limit. Pure bookkeeping: `take(key, now, n)`
 * says whether `n` more requests fit, and when the window reopens if not;
 * `held(key, now)` asks the same without counting. The keys are the router's
 * (a verified principal, a peer address), never a token. Windows past their
 * end are swept once the table grows, so a stream of one-off keys cannot
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

  /** @param limit the window and how many requests each key may make in it. */
  constructor(readonly limit: RateLimit) {}

  /**
   * Count `n` requests (default 1; a JSON-RPC batch counts each message) for
   * `key` at `now` (ms). Refused, and nothing counted, when they do not all
   * fit in what is left of the window.
   */
  take(key: string, now: number = Date.now(), n = 1): RateVerdict {
    const { requests, windowMs } = this.limit;
    let w = this.windows.get(key);
    if (!w || now - w.start >= windowMs) {
      if (!w && this.windows.size >= SWEEP_AT) this.sweep(now);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    if (w.count + n > requests) return { ok: false, retryAfterMs: w.start + windowMs - now };
    w.count += n;
    return ALLOWED;
  }

  /** Whether `key`'s window at `now` is full (then until when), without counting anything. */
  held(key: string, now: number = Date.now()): RateVerdict {
    const w = this.windows.get(key);
    if (!w || now - w.start >= this.limit.windowMs || w.count < this.limit.requests) return ALLOWED;
    return { ok: false, retryAfterMs: w.start + this.limit.windowMs - now };
  }

  /** How many keys are tracked (for tests, and so a router skips the lookup while none is). */
  get size(): number {
    return this.windows.size;
  }

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (now - w.start >= this.limit.windowMs) this.windows.delete(k);
  }
}
