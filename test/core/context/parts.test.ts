/**
 * @module test/core/context/parts.test
 * The parts a `RunContext` is composed of, each on its own: the cancellation
 * tree (`CancelScope`) and the event receivers (`RunEvents`).
 */
import { describe, expect, it } from "vitest";
import { CancelScope } from "../../../src/context/cancel-scope.js";
import { RunEvents, type RunEvent } from "../../../src/context/run-events.js";
import { Cancelled } from "../../../src/index.js";

describe("CancelScope: one node of the cancellation tree", () => {
  it("cancelling a parent cancels its live children, once, with the parent's reason; a released child is left alone", () => {
    const root = new CancelScope();
    const [kept, released] = [new CancelScope(), new CancelScope()];
    root.adopt(kept);
    root.adopt(released);
    released.release();
    const heard: unknown[] = [];
    kept.onCancel((why) => heard.push(why));
    root.cancel("stop");
    root.cancel("again");
    expect([kept.cancelled, kept.why, released.cancelled, heard]).toEqual([true, "stop", false, ["stop"]]);
    expect(kept.signal.aborted).toBe(true);
  });

  it("a given signal cancels the scope and its children; an extra signal cancels only the child it came with", () => {
    const given = new AbortController();
    const root = new CancelScope(given.signal);
    const extra = new AbortController();
    const [a, b] = [new CancelScope(), new CancelScope()];
    root.adopt(a, extra.signal);
    root.adopt(b);
    extra.abort("call gave up");
    expect([a.cancelled, a.why, b.cancelled, root.cancelled]).toEqual([true, "call gave up", false, false]);
    given.abort("run gave up");
    expect([root.cancelled, b.cancelled, b.why]).toEqual([true, true, "run gave up"]);
  });

  it("a child adopted by a cancelled scope is cancelled at once; checkCancelled throws a Cancelled", () => {
    const root = new CancelScope();
    root.cancel();
    const late = new CancelScope();
    root.adopt(late);
    expect(late.cancelled).toBe(true);
    expect(() => late.checkCancelled()).toThrow(Cancelled);
    expect(() => new CancelScope().checkCancelled()).not.toThrow();
  });
});

describe("RunEvents: a context's sink and listeners", () => {
  it("delivers to the sink then each listener, ignores a throwing receiver, and is unheard with neither", () => {
    const got: string[] = [];
    const events = new RunEvents((e) => got.push(`sink:${e.event}`));
    const off = events.on((e) => got.push(`l1:${e.event}`));
    events.on(() => {
      throw new Error("a broken listener");
    });
    const e: RunEvent = { event: "x", data: {} };
    events.deliver(e);
    off();
    events.deliver(e);
    expect(got).toEqual(["sink:x", "l1:x", "sink:x"]);
    const bare = new RunEvents();
    expect(bare.heard).toBe(false);
    bare.on(() => {});
    expect(bare.heard).toBe(true);
  });
});
