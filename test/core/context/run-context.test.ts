/**
 * @module test/core/context/run-context.test
 * `RunContext` (src/context/run-context.ts): events in emission order to the
 * sink then the listeners, best-effort; cooperative cancellation through
 * `cancel()` / `checkCancelled()` / `signal`; parent signals; `child()`.
 */
import { optionsError } from "../helpers.js";
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { AgentkitError, Cancelled, OptionsError, RunContext, type RunEvent } from "../../../src/index.js";
import { makeTestCtx } from "../../../src/testing/index.js";
import { thrown } from "../helpers.js";

/** A sink that records into `into`. */
function recorder(into: RunEvent[]): (e: RunEvent) => void {
  return (e) => into.push(e);
}

describe("RunContext options", () => {
  it("defaults: autonomy auto, no llm, no asker, no caller, a run id", () => {
    const ctx = new RunContext();
    expect(ctx.autonomy).toBe("auto");
    expect(ctx.llm).toBeUndefined();
    expect(ctx.asker).toBeUndefined();
    expect(ctx.caller).toBeUndefined();
    expect(ctx.runId).toMatch(/^run-\d+-\d+$/);
    expect(new RunContext().runId).not.toBe(ctx.runId);
  });

  it("carries what it is given; caller is a frozen copy", () => {
    const llm = { complete: async () => ({ content: "x" }) };
    const asker = { ask: async () => ({ kind: "approve" }) };
    const caller = { kind: "stdio" as const, server: "engine", requestId: 1 };
    const ctx = new RunContext({ llm, asker, autonomy: "gated", caller, runId: "r1" });
    caller.requestId = 2;
    expect([ctx.llm, ctx.asker, ctx.autonomy, ctx.caller, ctx.runId]).toEqual([
      llm,
      asker,
      "gated",
      { kind: "stdio", server: "engine", requestId: 1 },
      "r1",
    ]);
    expect(Object.isFrozen(ctx.caller)).toBe(true);
  });

  it("refuses a caller that is not a Caller (a free-form record), naming the accepted kinds", () => {
    const err = thrown(() => new RunContext({ caller: { user: "ada" } as never }), OptionsError);
    expect(err).toMatchObject({ option: "caller" });
    expect(err.message).toContain(
      'a Caller, an object whose kind is one of "loopback", "stdio", "hosted", "task" (set by the serving layer)',
    );
  });

  it("refuses an unknown autonomy tier", () => {
    expect(() => new RunContext({ autonomy: "yolo" as never })).toThrow(
      optionsError('RunContext: autonomy must be one of "auto", "gated" (default "auto"), got string "yolo"'),
    );
  });

  it("refuses an unknown option by name, listing the accepted ones", () => {
    const err = thrown(() => new RunContext({ autonomyTier: "gated" } as never), OptionsError);
    expect(err).toMatchObject({ name: "OptionsError", where: "RunContext", option: "autonomyTier" });
    expect((err as Error).message).toContain("autonomy");
  });

  it("refuses each option of the wrong type, naming it", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ llm: "claude" }, "llm"],
      [{ asker: {} }, "asker"],
      [{ sink: "stdout" }, "sink"],
      [{ signal: true }, "signal"],
      [{ caller: "ada" }, "caller"],
      [{ runId: 7 }, "runId"],
      [{ runId: "" }, "runId"],
      [{ channel: {} }, "channel"],
    ];
    for (const [options, option] of cases) {
      expect(
        thrown(() => new RunContext(options as never), OptionsError),
        option,
      ).toMatchObject({ name: "OptionsError", where: "RunContext", option });
    }
    expect(thrown(() => new RunContext("gated" as never), OptionsError)).toMatchObject({ name: "OptionsError", where: "RunContext" });
  });

  it("a context made after a child is checked again (child()'s skip is for its own object only)", () => {
    const parent = new RunContext();
    using _child = parent.child();
    expect(thrown(() => new RunContext({ bogus: 1 } as never), OptionsError)).toMatchObject({ option: "bogus" });
  });

  it("a child is built from its parent's checked values (no re-check, same run id and tier)", () => {
    const parent = new RunContext({ autonomy: "gated", runId: "r7", caller: { kind: "stdio", server: "engine", requestId: 1 } });
    using child = parent.child({ caller: { kind: "task", server: "engine", task: "t1" } });
    expect([child.autonomy, child.runId, child.caller]).toEqual(["gated", "r7", { kind: "task", server: "engine", task: "t1" }]);
  });
});

describe("emit", () => {
  it("delivers { event, data } in emission order, to the sink first, then listeners in subscription order", () => {
    const order: string[] = [];
    const ctx = new RunContext({ sink: (e) => order.push(`sink:${e.event}`) });
    ctx.on((e) => order.push(`a:${e.event}`));
    ctx.on((e) => order.push(`b:${e.event}`));
    ctx.emit("one", { n: 1 });
    ctx.emit("two");
    expect(order).toEqual(["sink:one", "a:one", "b:one", "sink:two", "a:two", "b:two"]);
  });

  it("data defaults to {} and is a frozen copy", () => {
    const seen: RunEvent[] = [];
    const ctx = new RunContext({ sink: recorder(seen) });
    const data = { n: 1 };
    ctx.emit("x", data);
    ctx.emit("y");
    data.n = 2;
    expect(seen).toEqual([
      { event: "x", data: { n: 1 } },
      { event: "y", data: {} },
    ]);
    expect(Object.isFrozen(seen[0])).toBe(true);
    expect(Object.isFrozen(seen[0]!.data)).toBe(true);
  });

  it("is best-effort: a throwing sink or listener neither breaks emit nor silences the others", () => {
    const seen: string[] = [];
    const ctx = new RunContext({
      sink: () => {
        throw new Error("sink down");
      },
    });
    ctx.on(() => {
      throw new Error("listener down");
    });
    ctx.on((e) => seen.push(e.event));
    expect(() => ctx.emit("still.delivered")).not.toThrow();
    expect(seen).toEqual(["still.delivered"]);
  });

  it("on() returns an unsubscribe function", () => {
    const seen: string[] = [];
    const ctx = new RunContext();
    const off = ctx.on((e) => seen.push(e.event));
    ctx.emit("a");
    off();
    ctx.emit("b");
    expect(seen).toEqual(["a"]);
  });

  it("makeTestCtx records every { event, data } on ctx.events, in order", () => {
    const ctx = makeTestCtx();
    ctx.emit("first", { a: 1 });
    ctx.emit("second");
    expect(ctx.events).toEqual([
      { event: "first", data: { a: 1 } },
      { event: "second", data: {} },
    ]);
  });
});

describe("cancellation", () => {
  it("cancel() aborts the signal; checkCancelled() then throws Cancelled", () => {
    const ctx = new RunContext();
    expect(ctx.cancelled).toBe(false);
    expect(ctx.signal.aborted).toBe(false);
    expect(() => ctx.checkCancelled()).not.toThrow();
    ctx.cancel();
    expect(ctx.cancelled).toBe(true);
    expect(ctx.signal.aborted).toBe(true);
    expect(ctx.signal.reason).toBeInstanceOf(Cancelled);
    const err = thrown(() => ctx.checkCancelled(), Cancelled);
    expect(err).toBeInstanceOf(AgentkitError);
    expect(err.code).toBe("cancelled");
    expect(err.message).toBe("the run was cancelled");
  });

  it("a reason given to cancel() is kept on the Cancelled (and chained as cause when it is an Error)", () => {
    const ctx = new RunContext();
    const why = new Error("user pressed stop");
    ctx.cancel(why);
    const err = thrown(() => ctx.checkCancelled(), Cancelled);
    expect(err.reason).toBe(why);
    expect(err.cause).toBe(why);
    const other = new RunContext();
    other.cancel("deadline");
    expect(thrown(() => other.checkCancelled(), Cancelled).reason).toBe("deadline");
  });

  it("cancel() is idempotent: the first reason stands, abort fires once", () => {
    const ctx = new RunContext();
    let aborts = 0;
    ctx.signal.addEventListener("abort", () => aborts++);
    ctx.cancel("first");
    ctx.cancel("second");
    expect(aborts).toBe(1);
    expect(thrown(() => ctx.checkCancelled(), Cancelled).reason).toBe("first");
  });

  it("a parent signal cancels the context, later or already", () => {
    const parent = new AbortController();
    const ctx = new RunContext({ signal: parent.signal });
    expect(ctx.cancelled).toBe(false);
    parent.abort(new Error("shutdown"));
    expect(ctx.cancelled).toBe(true);
    expect((thrown(() => ctx.checkCancelled(), Cancelled).reason as Error).message).toBe("shutdown");
    const early = new RunContext({ signal: AbortSignal.abort("gone") });
    expect(early.cancelled).toBe(true);
  });

  it("cancelling the context does not abort the parent signal", () => {
    const parent = new AbortController();
    const ctx = new RunContext({ signal: parent.signal });
    ctx.cancel();
    expect(ctx.cancelled).toBe(true);
    expect(parent.signal.aborted).toBe(false);
  });

  it("many contexts on one parent signal add no listeners to it (no leak, no MaxListeners warning)", async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      const parent = new AbortController();
      const root = new RunContext();
      const kids = Array.from({ length: 50 }, () => new RunContext({ signal: parent.signal }));
      const children = Array.from({ length: 50 }, () => root.child());
      await new Promise((r) => setImmediate(r));
      expect(warnings.map((w) => w.message)).toEqual([]);
      parent.abort();
      root.cancel();
      expect(kids.every((k) => k.cancelled)).toBe(true);
      expect(children.every((c) => c.cancelled)).toBe(true);
    } finally {
      process.off("warning", onWarning);
    }
  });
});

describe("child()", () => {
  it("shares llm, asker, tier and run id; its own caller replaces the parent's, which it keeps otherwise", () => {
    const llm = { complete: async () => ({}) };
    const asker = { ask: async () => ({ kind: "approve" }) };
    const parent = new RunContext({
      llm,
      asker,
      autonomy: "gated",
      caller: { kind: "stdio", server: "engine", requestId: 1 },
      runId: "r9",
    });
    const c = parent.child({ caller: { kind: "loopback", server: "engine", sessionId: "s1", requestId: 2 } });
    expect([c.llm, c.asker, c.autonomy, c.runId]).toEqual([llm, asker, "gated", "r9"]);
    expect(c.caller).toEqual({ kind: "loopback", server: "engine", sessionId: "s1", requestId: 2 });
    expect(parent.child().caller).toBe(parent.caller);
  });

  it("its events reach the parent's sink and listeners, in order", () => {
    const parent = makeTestCtx();
    const heard: string[] = [];
    parent.on((e) => heard.push(e.event));
    const c = parent.child();
    const own: string[] = [];
    c.on((e) => own.push(e.event));
    c.emit("child.one", { k: 1 });
    parent.emit("parent.two");
    c.emit("child.three");
    expect(parent.events.map((e) => e.event)).toEqual(["child.one", "parent.two", "child.three"]);
    expect(parent.events[0]!.data).toEqual({ k: 1 });
    expect(heard).toEqual(["child.one", "parent.two", "child.three"]);
    expect(own).toEqual(["child.one", "child.three"]);
  });

  it("is cancelled when the parent is; cancelling it leaves the parent running", () => {
    const parent = new RunContext();
    const a = parent.child();
    const b = parent.child();
    a.cancel();
    expect(a.cancelled).toBe(true);
    expect(parent.cancelled).toBe(false);
    expect(b.cancelled).toBe(false);
    parent.cancel();
    expect(b.cancelled).toBe(true);
    expect(thrown(() => b.checkCancelled(), Cancelled)).toBeInstanceOf(Cancelled);
  });

  it("an extra signal also cancels it", () => {
    const parent = new RunContext();
    const extra = new AbortController();
    const c = parent.child({ signal: extra.signal });
    extra.abort();
    expect(c.cancelled).toBe(true);
    expect(parent.cancelled).toBe(false);
  });
});

describe("child() lifecycle", () => {
  it("a live child is cancelled with its parent; a released one is not, and release() is idempotent", () => {
    const parent = new RunContext();
    const live = parent.child();
    const released = parent.child();
    released.release();
    released.release();
    parent.cancel("stop");
    expect(live.cancelled).toBe(true);
    expect(live.signal.reason).toBe("stop");
    expect(released.cancelled).toBe(false);
  });

  it("the extra signal cancels the child until release() unhooks it", () => {
    const parent = new RunContext();
    const request = new AbortController();
    const a = parent.child({ signal: request.signal });
    const b = parent.child({ signal: request.signal });
    b.release();
    request.abort("client cancelled");
    expect(a.cancelled).toBe(true);
    expect(b.cancelled).toBe(false);
    expect(parent.cancelled).toBe(false);
  });

  it("`using` releases: thousands of finished calls leave a long-lived parent holding nothing", () => {
    const parent = new RunContext();
    const done: RunContext[] = [];
    for (let i = 0; i < 5_000; i++) {
      using call = parent.child({ signal: new AbortController().signal });
      done.push(call);
    }
    parent.cancel();
    expect(done.some((c) => c.cancelled)).toBe(false);
  });

  it("a child of a cancelled parent starts cancelled", () => {
    const parent = new RunContext();
    parent.cancel("gone");
    expect(parent.child().cancelled).toBe(true);
  });
});

describe("onCancel()", () => {
  it("runs once with the reason on cancel(), after the signal aborted; the returned function unregisters", () => {
    const ctx = new RunContext();
    const seen: unknown[] = [];
    ctx.onCancel((r) => seen.push(["first", r, ctx.signal.aborted]));
    const off = ctx.onCancel((r) => seen.push(["removed", r]));
    off();
    off(); // idempotent
    ctx.cancel("stop");
    ctx.cancel("again");
    expect(seen).toEqual([["first", "stop", true]]);
  });

  it("runs at once, with the reason, when the run is already cancelled", () => {
    const ctx = new RunContext();
    ctx.cancel("earlier");
    const seen: unknown[] = [];
    const off = ctx.onCancel((r) => seen.push(r));
    expect(seen).toEqual(["earlier"]);
    expect(() => off()).not.toThrow();
    const viaSignal = new RunContext({ signal: AbortSignal.abort("parent gone") });
    viaSignal.onCancel((r) => seen.push(r));
    expect(seen).toEqual(["earlier", "parent gone"]);
  });

  it("fires when the caller's signal aborts, and when the parent context is cancelled", () => {
    const parent = new AbortController();
    const ctx = new RunContext({ signal: parent.signal });
    const kid = ctx.child();
    const seen: string[] = [];
    ctx.onCancel((r) => seen.push(`ctx:${String(r)}`));
    kid.onCancel((r) => seen.push(`kid:${String(r)}`));
    parent.abort("shutdown");
    expect(seen).toEqual(["ctx:shutdown", "kid:shutdown"]);
    expect(kid.cancelled).toBe(true);
  });

  it("a throwing callback neither stops the cancellation nor the other callbacks", () => {
    const ctx = new RunContext();
    const kid = ctx.child();
    let later = 0;
    ctx.onCancel(() => {
      throw new Error("boom");
    });
    ctx.onCancel(() => later++);
    expect(() => ctx.cancel()).not.toThrow();
    expect(later).toBe(1);
    expect(kid.cancelled).toBe(true);
  });

  it("a signal first read after cancel() is already aborted with the cancel reason", () => {
    const ctx = new RunContext();
    const kid = ctx.child();
    ctx.cancel("late reader");
    expect(kid.signal.aborted).toBe(true);
    expect(kid.signal.reason).toBe("late reader");
    expect(thrown(() => kid.checkCancelled(), Cancelled).reason).toBe("late reader");
  });

  it("registering and unregistering per call keeps nothing: only the live callback fires, and the signal gains no listener", () => {
    const ctx = new RunContext();
    const signal = ctx.signal; // read first, so a listener added per registration would show
    let unregisteredFired = 0;
    for (let i = 0; i < 1_000; i++) ctx.onCancel(() => unregisteredFired++)();
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
    let fired = 0;
    ctx.onCancel(() => fired++);
    ctx.cancel();
    expect(unregisteredFired).toBe(0);
    expect(fired).toBe(1);
  });
});
