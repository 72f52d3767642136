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

/** A base fetch answering each request with a `contentType` response whose body the test drives (the last one made). */
function streamFetch(contentType: string, status = 200) {
  const signals: AbortSignal[] = [];
  const responses: Response[] = [];
  let body!: ReadableStreamDefaultController<Uint8Array>;
  const base = async (_u: string | URL, init?: RequestInit): Promise<Response> => {
    signals.push(init!.signal!);
    const stream = new ReadableStream<Uint8Array>({ start: (c) => void (body = c) });
    responses.push(new Response(stream, { status, headers: { "content-type": contentType } }));
    return responses.at(-1)!;
  };
  return { base, signals, responses, body: () => body };
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

  describe("SSE bodies", () => {
    const sseFetch = () => streamFetch("text/event-stream");
    const POST = (signal: AbortSignal): RequestInit => ({
      method: "POST",
      signal,
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: {} }),
    });

    it("read to its end through pipeThrough (as the SDK reads it): the request stops following the shared signal", async () => {
      const shared = new AbortController();
      const { base, signals, body } = sseFetch();
      const lost: unknown[] = [];
      const res = await isolatingFetch(new Set(), base, (ids) => lost.push(ids))("http://127.0.0.1:1/mcp", POST(shared.signal));
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      body().enqueue(new TextEncoder().encode("event: message\ndata: {}\n\n"));
      body().close();
      let text = "";
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += r.value;
      expect(text).toBe("event: message\ndata: {}\n\n");
      await new Promise((r) => setImmediate(r));
      shared.abort("closing");
      expect(signals[0]!.aborted).toBe(false);
      expect(lost).toEqual([]);
    });

    it("a body that breaks before its end reports the request's id as lost, once", async () => {
      const shared = new AbortController();
      const { base, body } = sseFetch();
      const lost: Array<ReadonlyArray<string | number>> = [];
      const res = await isolatingFetch(new Set(), base, (ids) => lost.push(ids))("http://127.0.0.1:1/mcp", POST(shared.signal));
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      body().error(new Error("socket hang up"));
      await expect(reader.read()).rejects.toThrow("socket hang up");
      await new Promise((r) => setImmediate(r));
      expect(lost).toEqual([[7]]);
    });

    it("a body the SDK cancels unread stops following the shared signal; a throwing onLost is contained", async () => {
      const shared = new AbortController();
      const { base, signals } = sseFetch();
      const f = isolatingFetch(new Set(), base, () => {
        throw new Error("listener bug");
      });
      const res = await f("http://127.0.0.1:1/mcp", POST(shared.signal));
      await res.body!.cancel();
      shared.abort("closing");
      expect(signals[0]!.aborted).toBe(false);
      const broken = sseFetch();
      const g = isolatingFetch(new Set(), broken.base, () => {
        throw new Error("listener bug");
      });
      const r2 = await g("http://127.0.0.1:1/mcp", POST(new AbortController().signal));
      const reader = r2.body!.pipeThrough(new TextDecoderStream()).getReader();
      broken.body().error(new Error("reset"));
      await expect(reader.read()).rejects.toThrow("reset");
      await new Promise((r) => setImmediate(r)); // an unhandled rejection here would fail the run
    });
  });

  describe("JSON and other bodies (every answer on 2026-07-28)", () => {
    const jsonFetch = (status = 200) => streamFetch("application/json", status);
    const POST = (signal: AbortSignal): RequestInit => ({
      method: "POST",
      signal,
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: {} }),
    });

    it("the response is the one fetch gave (not a copy); read with json() to its end, the request stops following the shared signal", async () => {
      const shared = new AbortController();
      const { base, signals, responses, body } = jsonFetch();
      const lost: unknown[] = [];
      const res = await isolatingFetch(new Set(), base, (ids) => lost.push(ids))("http://127.0.0.1:1/mcp", POST(shared.signal));
      expect(res).toBe(responses[0]);
      const json = res.json();
      body().enqueue(new TextEncoder().encode('{"jsonrpc":"2.0","id":9,"result":{}}'));
      body().close();
      expect(await json).toEqual({ jsonrpc: "2.0", id: 9, result: {} });
      shared.abort("closing");
      expect(signals[0]!.aborted).toBe(false);
      expect(lost).toEqual([]);
    });

    it("a body still being read when the shared signal aborts is aborted with it", async () => {
      const shared = new AbortController();
      const { base, signals } = jsonFetch();
      const res = await isolatingFetch(new Set(), base)("http://127.0.0.1:1/mcp", POST(shared.signal));
      void res.json().catch(() => {});
      shared.abort("closing");
      expect(signals[0]!.aborted).toBe(true);
    });

    it("an error body read with text() unlinks too; a body that breaks under json() reports the request's id as lost and rejects", async () => {
      const shared = new AbortController();
      const failing = jsonFetch(500);
      const res = await isolatingFetch(new Set(), failing.base)("http://127.0.0.1:1/mcp", POST(shared.signal));
      const text = res.text();
      failing.body().enqueue(new TextEncoder().encode("boom"));
      failing.body().close();
      expect(await text).toBe("boom");
      const broken = jsonFetch();
      const lost: Array<ReadonlyArray<string | number>> = [];
      const r2 = await isolatingFetch(new Set(), broken.base, (ids) => lost.push(ids))("http://127.0.0.1:1/mcp", POST(shared.signal));
      const json = r2.json();
      broken.body().error(new Error("socket hang up"));
      await expect(json).rejects.toThrow("socket hang up");
      shared.abort("closing");
      expect(failing.signals[0]!.aborted).toBe(false);
      expect(broken.signals[0]!.aborted).toBe(false);
      expect(lost).toEqual([[9]]);
    });

    it("every other reading method (arrayBuffer, blob) unlinks when the body has been read", async () => {
      const shared = new AbortController();
      const { base, signals, body } = jsonFetch();
      const f = isolatingFetch(new Set(), base);
      const first = await f("http://127.0.0.1:1/mcp", POST(shared.signal));
      const bytes = first.arrayBuffer();
      body().enqueue(new Uint8Array([1, 2]));
      body().close();
      expect((await bytes).byteLength).toBe(2);
      const second = await f("http://127.0.0.1:1/mcp", POST(shared.signal));
      const blob = second.blob();
      body().close();
      expect((await blob).size).toBe(0);
      shared.abort("closing");
      expect(signals.map((s) => s.aborted)).toEqual([false, false]);
    });

    it("a reader of the raw body stream is unlinked when it takes the stream", async () => {
      const shared = new AbortController();
      const { base, signals } = jsonFetch();
      const res = await isolatingFetch(new Set(), base)("http://127.0.0.1:1/mcp", POST(shared.signal));
      expect(res.body).toBeInstanceOf(ReadableStream);
      shared.abort("closing");
      expect(signals[0]!.aborted).toBe(false);
    });
  });
});
