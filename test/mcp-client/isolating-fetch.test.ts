/**
 * @module test/mcp-client/isolating-fetch.test
 * The HTTP transport's fetch wrapper: each request gets its own signal that
 * follows the transport's shared one, and the shared signal carries one
 * listener however many requests there are.
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { isolatingFetch } from "../../src/mcp/client/http-transport.js";

/** A base fetch that records each request's signal and answers when told to. */
function recordingFetch() {
  const signals: AbortSignal[] = [];
  const answers: Array<() => void> = [];
  const base = (_u: string | URL, init?: RequestInit): Promise<Response> => {
    signals.push(init!.signal!);
    return new Promise((resolve, reject) => {
      if (init!.signal!.aborted) return reject(init!.signal!.reason); // as fetch does
      init!.signal!.addEventListener("abort", () => reject(init!.signal!.reason), { once: true });
      answers.push(() => resolve(new Response(null, { status: 202 })));
    });
  };
  return { base, signals, answers };
}

describe("isolatingFetch", () => {
  it("gives every request its own signal and the shared signal one listener, however many requests", async () => {
    const shared = new AbortController();
    const { base, signals, answers } = recordingFetch();
    const f = isolatingFetch(new Set(), base);
    const pending = Array.from({ length: 50 }, () => f("http://127.0.0.1:1/mcp", { method: "POST", signal: shared.signal }));
    expect(new Set(signals).size).toBe(50);
    expect(signals.includes(shared.signal)).toBe(false);
    expect(getEventListeners(shared.signal, "abort")).toHaveLength(1);
    for (const a of answers) a();
    await Promise.all(pending);
    expect(getEventListeners(shared.signal, "abort")).toHaveLength(1);
  });

  it("aborting the shared signal aborts the requests still in flight, not the finished ones", async () => {
    const shared = new AbortController();
    const { base, signals, answers } = recordingFetch();
    const inflight = new Set<Promise<unknown>>();
    const f = isolatingFetch(inflight, base);
    const done = f("http://127.0.0.1:1/mcp", { method: "POST", signal: shared.signal });
    const hanging = f("http://127.0.0.1:1/mcp", { method: "POST", signal: shared.signal }).catch((e: unknown) => e);
    answers[0]!();
    await done;
    shared.abort(new Error("transport closed"));
    expect(signals[0]!.aborted).toBe(false);
    expect(signals[1]!.aborted).toBe(true);
    expect(((await hanging) as Error).message).toBe("transport closed");
    await Promise.allSettled([...inflight]);
    expect(inflight.size).toBe(0);
  });

  it("a request made after the shared signal aborted starts aborted", async () => {
    const shared = new AbortController();
    shared.abort("closed");
    const { base, signals } = recordingFetch();
    const r = await isolatingFetch(new Set(), base)("http://127.0.0.1:1/mcp", { signal: shared.signal }).catch((e: unknown) => e);
    expect(signals[0]!.aborted).toBe(true);
    expect(r).toBe("closed");
  });
});
