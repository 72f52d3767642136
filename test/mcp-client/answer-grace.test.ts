/**
 * @module test/mcp-client/answer-grace.test
 * The signal a tools/call that may be answered with a task hands the SDK: the
 * caller's abort, heard `ANSWER_GRACE_MS` later (on vitest's fake clock), and
 * never once the request settled.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ANSWER_GRACE_MS, graceSignal } from "../../src/mcp/client/answer-grace.js";

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe("graceSignal", () => {
  it("follows the caller's abort ANSWER_GRACE_MS later, with its reason", () => {
    const caller = new AbortController();
    const grace = graceSignal(caller.signal);
    const reason = new Error("gave up");
    caller.abort(reason);
    vi.advanceTimersByTime(ANSWER_GRACE_MS - 1);
    expect(grace.signal!.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(grace.signal!.aborted).toBe(true);
    expect(grace.signal!.reason).toBe(reason);
  });

  it("never aborts once released (the answer came), before or after the caller's abort", () => {
    const [before, after] = [new AbortController(), new AbortController()];
    const early = graceSignal(before.signal);
    early.release();
    before.abort();
    const late = graceSignal(after.signal);
    after.abort();
    late.release();
    vi.advanceTimersByTime(ANSWER_GRACE_MS * 10);
    expect([early.signal!.aborted, late.signal!.aborted]).toEqual([false, false]);
  });

  it("no signal stays none, and an already aborted one is handed back as it is", () => {
    expect(graceSignal(undefined).signal).toBeUndefined();
    const done = AbortSignal.abort();
    expect(graceSignal(done).signal).toBe(done);
  });
});
