/**
 * @module test/express/rate-limiter.test
 * The per-key fixed window, as pure bookkeeping: the limit, the wait it
 * names, the window reopening, keys apart, and the sweep that keeps a stream
 * of one-off keys from growing the table.
 */
import { describe, expect, it } from "vitest";
import { RateLimiter } from "../../src/express/rate-limiter.js";

describe("RateLimiter", () => {
  it("allows `requests` per window per key, names the wait, and reopens when the window ends", () => {
    const limiter = new RateLimiter({ requests: 2, windowMs: 1000 });
    expect(limiter.take("a", 0)).toEqual({ ok: true });
    expect(limiter.take("a", 100)).toEqual({ ok: true });
    expect(limiter.take("a", 400)).toEqual({ ok: false, retryAfterMs: 600 });
    expect(limiter.take("b", 400)).toEqual({ ok: true });
    expect(limiter.take("a", 1000)).toEqual({ ok: true });
  });

  it("sweeps ended windows once the table is large, so one-off keys do not pile up", () => {
    const limiter = new RateLimiter({ requests: 1, windowMs: 10 });
    for (let i = 0; i < 10_000; i++) limiter.take(`k${i}`, 0);
    expect(limiter.size).toBe(10_000);
    limiter.take("late", 50);
    expect(limiter.size).toBe(1);
  });

  it("counts n at once (a batch), refusing without counting when they do not all fit; held() asks without counting", () => {
    const limiter = new RateLimiter({ requests: 3, windowMs: 1000 });
    expect(limiter.take("a", 0, 5)).toEqual({ ok: false, retryAfterMs: 1000 });
    expect(limiter.held("a", 0)).toEqual({ ok: true });
    expect(limiter.take("a", 0, 2)).toEqual({ ok: true });
    expect(limiter.take("a", 10, 2)).toEqual({ ok: false, retryAfterMs: 990 });
    expect(limiter.take("a", 10)).toEqual({ ok: true });
    expect(limiter.held("a", 20)).toEqual({ ok: false, retryAfterMs: 980 });
    expect(limiter.held("a", 1000)).toEqual({ ok: true });
  });
});
