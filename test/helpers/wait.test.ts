/**
 * @module test/helpers/wait.test
 * `until` resolves once its check holds, and otherwise fails naming what it
 * waited for (read when it fails) and the scaled deadline; a deadline is never
 * shorter than written.
 */
import { describe, expect, it, vi } from "vitest";
import { scaledMs, until, untilValue } from "./wait.js";

describe("until", () => {
  it("resolves once the check holds", async () => {
    let polls = 0;
    await until(() => ++polls >= 3, "three polls");
    expect(polls).toBe(3);
  });

  it("fails naming what it waited for, as it is when it fails, and the deadline", async () => {
    const seen: string[] = [];
    const waiting = until(
      () => false,
      () => `the answer (seen: ${seen.join(", ")})`,
      40,
    );
    seen.push("something else");
    await expect(waiting).rejects.toThrow(/^the answer \(seen: something else\): not within \d+ ms$/);
  });

  it("fails at once, with the check's own error, when the check throws", async () => {
    const started = Date.now();
    await expect(
      until(() => {
        throw new Error("no such row");
      }, "the row"),
    ).rejects.toThrow(/^the row: the check failed: Error: no such row$/);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("fails at the deadline when a check never settles", async () => {
    await expect(until(() => new Promise<boolean>(() => {}), "a check that hangs", 40)).rejects.toThrow(
      /^a check that hangs: not within \d+ ms$/,
    );
  });

  it("polls on the real clock and leaves a test's fake clock alone", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"] });
    try {
      let fired = false;
      setTimeout(() => (fired = true), 10);
      let polls = 0;
      await until(() => ++polls >= 5, "five polls");
      expect(fired).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it("scales a deadline up with the machine's load, never down", () => {
    expect(scaledMs(1000)).toBeGreaterThanOrEqual(1000);
    expect(scaledMs(1000)).toBeLessThanOrEqual(10_000);
  });
});

describe("untilValue", () => {
  it("resolves with the first value read that holds", async () => {
    let reads = 0;
    expect(
      await untilValue(
        () => ++reads,
        (n) => n >= 3,
        "three reads",
      ),
    ).toBe(3);
  });

  it("fails naming what it waited for and the last value read", async () => {
    await expect(
      untilValue(
        () => ({ status: "working" }),
        (t) => t.status === "completed",
        "the task to complete",
        40,
      ),
    ).rejects.toThrow(/^the task to complete \(last read: \{"status":"working"\}\): not within \d+ ms$/);
  });
});
