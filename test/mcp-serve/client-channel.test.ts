/**
 * @module test/mcp-serve/client-channel.test
 * What a served tool reaches of its client over a real loopback session:
 * ctx.progress -> notifications/progress only with a progress token, and
 * coalesced in a tight loop; ctx.log -> notifications/message honouring
 * logging/setLevel; ctx.elicit / ctx.sample as requests to a client that
 * declared the capability, and a clear tool error from one that did not.
 * In-process (no client), the same calls are events or ClientRequestError.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RunContext, tool, type RunEvent } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { serveRegistry, type McpServerSpec } from "../../src/mcp/index.js";
import { ClientRequestError } from "../../src/context/client-request.error.js";
import { PROGRESS_MIN_INTERVAL_MS } from "../../src/mcp/serve/call-channel.js";

const specs: McpServerSpec[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const s of specs.splice(0)) await s.stop();
});

/**
 * Three progress steps, each twice the coalescing interval after the last on
 * the test's fake clock (see the test that calls it), so none is coalesced.
 */
const steps = tool({ name: "steps", description: "Three steps with progress.", sideEffecting: false }, (_i, ctx) => {
  for (const done of [0, 50, 100]) {
    ctx.progress(done, 100, `at ${done}`);
    vi.advanceTimersByTime(2 * PROGRESS_MIN_INTERVAL_MS);
  }
  return "done";
});
const flood = tool({ name: "flood", description: "A tight progress loop.", sideEffecting: false }, (_i, ctx) => {
  for (let i = 1; i <= 10_000; i++) ctx.progress(i, 10_000);
  return "flooded";
});
const chatty = tool({ name: "chatty", description: "Logs at four levels.", sideEffecting: false }, (_i, ctx) => {
  ctx.log("debug", "d");
  ctx.log("info", { step: "i" });
  ctx.log("warning", "w");
  ctx.log("error", "e");
  return "logged";
});
const ask = tool({ name: "ask", description: "Elicits a name.", sideEffecting: false }, async (_i, ctx) => {
  const r = await ctx.elicit({
    message: "Your name?",
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  });
  return `action=${r.action} name=${String(r.content?.name)}`;
});
const sample = tool({ name: "sample", description: "Samples the client's model.", sideEffecting: false }, async (_i, ctx) => {
  const r = await ctx.sample({ messages: [{ role: "user", content: { type: "text", text: "2+2?" } }], maxTokens: 10 });
  return `model=${r.model} said=${String((r.content as { text?: string }).text)}`;
});

async function serve(): Promise<McpServerSpec> {
  const spec = await serveRegistry([steps, flood, chatty, ask, sample], { name: "chan", ctx: makeTestCtx(), auth: "none" });
  specs.push(spec);
  await spec.start();
  return spec;
}

async function clientFor(spec: McpServerSpec, capabilities: Record<string, object> = {}): Promise<Client & AsyncDisposable> {
  const c = new Client({ name: "chan-test", version: "0" }, { capabilities });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(spec.url!), {
      fetch: (u, init) => fetch(u, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init),
    }),
  );
  return Object.assign(c, { [Symbol.asyncDispose]: () => c.close() });
}

describe("progress and logging from a served tool", () => {
  it("sends notifications/progress only when the client sent a progress token", async () => {
    const spec = await serve();
    await using c = await clientFor(spec);
    // Coalescing reads Date: on a fake one the steps are exactly two intervals apart with no real wait (timers stay real, for the sockets).
    vi.useFakeTimers({ toFake: ["Date"] });
    const seen: Progress[] = [];
    const r = await c.callTool({ name: "steps", arguments: {} }, undefined, { onprogress: (p) => seen.push(p) });
    expect(r.content).toEqual([{ type: "text", text: "done" }]);
    expect(seen).toEqual([
      { progress: 0, total: 100, message: "at 0" },
      { progress: 50, total: 100, message: "at 50" },
      { progress: 100, total: 100, message: "at 100" },
    ]);
    // Without a token: the same tool sends nothing (a progress notification for no known token reaches the client's onerror).
    let stray = 0;
    c.onerror = () => void stray++;
    c.fallbackNotificationHandler = async () => void stray++;
    expect((await c.callTool({ name: "steps", arguments: {} })).content).toEqual([{ type: "text", text: "done" }]);
    expect(stray).toBe(0);
  });

  it("a tight loop is coalesced: far fewer notifications than calls, the final one included", async () => {
    const spec = await serve();
    await using c = await clientFor(spec);
    const seen: Progress[] = [];
    await c.callTool({ name: "flood", arguments: {} }, undefined, { onprogress: (p) => seen.push(p) });
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen.length).toBeLessThan(10);
    expect(seen.at(-1)).toEqual({ progress: 10_000, total: 10_000 });
  });

  it("sends notifications/message honouring logging/setLevel (everything before any setLevel)", async () => {
    const spec = await serve();
    await using c = await clientFor(spec);
    const logs: Array<{ level: string; data: unknown; logger?: string }> = [];
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await c.callTool({ name: "chatty", arguments: {} });
    expect(logs.map((l) => l.level)).toEqual(["debug", "info", "warning", "error"]);
    expect(logs[1]).toEqual({ level: "info", logger: "chan", data: { step: "i" } });
    logs.length = 0;
    expect(await c.setLoggingLevel("warning")).toEqual({});
    await c.callTool({ name: "chatty", arguments: {} });
    expect(logs.map((l) => l.level)).toEqual(["warning", "error"]);
  });
});

describe("elicitation and sampling from a served tool", () => {
  it("asks a client that declared the capabilities", async () => {
    const spec = await serve();
    await using c = await clientFor(spec, { elicitation: {}, sampling: {} });
    const asked: unknown[] = [];
    c.setRequestHandler(ElicitRequestSchema, (req) => {
      asked.push(req.params.message);
      return { action: "accept", content: { name: "Ada" } };
    });
    c.setRequestHandler(CreateMessageRequestSchema, () => ({
      role: "assistant",
      content: { type: "text", text: "4" },
      model: "client-model",
      stopReason: "endTurn",
    }));
    expect((await c.callTool({ name: "ask", arguments: {} })).content).toEqual([{ type: "text", text: "action=accept name=Ada" }]);
    expect(asked).toEqual(["Your name?"]);
    expect((await c.callTool({ name: "sample", arguments: {} })).content).toEqual([{ type: "text", text: "model=client-model said=4" }]);
  });

  it("is a clear tool error when the client declared neither", async () => {
    const spec = await serve();
    await using c = await clientFor(spec);
    expect(await c.callTool({ name: "ask", arguments: {} })).toEqual({
      content: [
        {
          type: "text",
          text: expect.stringContaining(
            "tool 'ask' failed: ClientRequestError: ctx.elicit(): the MCP client did not declare the 'elicitation' capability",
          ),
        },
      ],
      isError: true,
    });
    expect(((await c.callTool({ name: "sample", arguments: {} })).content as Array<{ text: string }>)[0]!.text).toContain(
      "did not declare the 'sampling' capability",
    );
    // The session is still up.
    expect((await c.callTool({ name: "chatty", arguments: {} })).content).toEqual([{ type: "text", text: "logged" }]);
  });
});

describe("the same calls in an in-process run (no MCP client)", () => {
  it("progress and log become ctx events; elicit and sample reject with ClientRequestError", async () => {
    const events: RunEvent[] = [];
    const ctx = new RunContext({ sink: (e) => events.push(e) });
    const call = ctx.child();
    call.progress(1, 2, "half");
    call.log("warning", { disk: "low" });
    call.log("nonsense" as never, "x");
    expect(events).toEqual([
      { event: "progress", data: { done: 1, total: 2, message: "half" } },
      { event: "log", data: { level: "warning", data: { disk: "low" } } },
      { event: "log", data: { level: "info", data: "x" } },
    ]);
    await expect(call.elicit({ message: "?", requestedSchema: {} })).rejects.toThrow(ClientRequestError);
    await expect(call.sample({ messages: [], maxTokens: 1 })).rejects.toMatchObject({ code: "client_request", kind: "sampling" });
  });
});
