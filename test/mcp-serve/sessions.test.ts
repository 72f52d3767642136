/**
 * @module test/mcp-serve/sessions.test
 * The MCP endpoint's session hygiene on the one listener: a session nobody
 * deletes closes after `sessionIdleMs` (a request naming it gets 404 and a
 * fresh initialize works); past `maxSessions` the oldest idle session closes
 * first, and with none idle a new initialize gets 503; a JSON-RPC batch with
 * a duplicate id is refused before any tool body runs (issue 14 item 6).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { tool } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { serveRegistry, type McpServerSpec } from "../../src/mcp/serve/index.js";
import { OptionsError } from "../../src/index.js";
import { ApprovalServer } from "../../src/mcp/approvals/index.js";
import { INITIALIZE, rawPost, rpcMessages, sdkClientFor } from "./helpers.js";

const counter = { runs: 0 };
const echo = tool(
  {
    name: "echo",
    description: "Echo.",
    sideEffecting: false,
    input: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
  },
  ({ text }: { text: string }) => {
    counter.runs++;
    return text;
  },
);

const specs: McpServerSpec[] = [];
afterEach(async () => {
  for (const s of specs.splice(0)) await s.stop();
});
async function served(options: Partial<Parameters<typeof serveRegistry>[1]> = {}): Promise<McpServerSpec> {
  const s = await serveRegistry([echo], { name: "engine", ctx: makeTestCtx(), ...options });
  specs.push(s);
  await s.start();
  return s;
}

/** initialize over raw HTTP; the session id the server gave. */
async function initialize(s: McpServerSpec): Promise<string> {
  const res = await rawPost(s.url!, INITIALIZE, s.authHeaders);
  expect(res.status).toBe(200);
  await res.text();
  return res.headers.get("mcp-session-id")!;
}
const inSession = (s: McpServerSpec, sid: string, body: unknown) =>
  rawPost(s.url!, body, { ...s.authHeaders, "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25" });

describe("sessionIdleMs (a fake clock: performance.now and setInterval, the session table's clock and sweeper; sockets are real)", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a session never deleted is gone after its idle time: 404, and a fresh initialize works", async () => {
    vi.useFakeTimers({ toFake: ["performance", "setInterval", "clearInterval"] });
    const s = await served({ sessionIdleMs: 300 });
    const sid = await initialize(s);
    const alive = await inSession(s, sid, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(alive.status).toBe(200);
    await alive.text();
    await vi.advanceTimersByTimeAsync(200);
    const still = await inSession(s, sid, { jsonrpc: "2.0", id: 3, method: "tools/list" });
    expect(still.status).toBe(200);
    await still.text();
    await vi.advanceTimersByTimeAsync(400);
    const gone = await inSession(s, sid, { jsonrpc: "2.0", id: 4, method: "tools/list" });
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain("Session not found");
    const fresh = await initialize(s);
    expect(fresh).not.toBe(sid);
    // The SDK client re-initializes cleanly on the same server.
    await using client = await sdkClientFor(s.url!, { ...s.authHeaders });
    expect((await client.callTool({ name: "echo", arguments: { text: "again" } })).content).toEqual([{ type: "text", text: "again" }]);
  });

  it("activity keeps a session alive past its idle time, and the idle time counts from the last request", async () => {
    vi.useFakeTimers({ toFake: ["performance", "setInterval", "clearInterval"] });
    const s = await served({ sessionIdleMs: 400 });
    const sid = await initialize(s);
    for (let i = 0; i < 6; i++) {
      await vi.advanceTimersByTimeAsync(300);
      const r = await inSession(s, sid, { jsonrpc: "2.0", id: 10 + i, method: "tools/list" });
      expect(r.status).toBe(200);
      await r.text();
    }
    await vi.advanceTimersByTimeAsync(600);
    expect((await inSession(s, sid, { jsonrpc: "2.0", id: 20, method: "tools/list" })).status).toBe(404);
  });

  it("the options are checked when given", async () => {
    await expect(serveRegistry([echo], { name: "engine", ctx: makeTestCtx(), sessionIdleMs: 0 })).rejects.toThrow(OptionsError);
    await expect(serveRegistry([echo], { name: "engine", ctx: makeTestCtx(), maxSessions: 1.5 })).rejects.toThrow(
      /maxSessions must be a positive integer/,
    );
    expect(() => new ApprovalServer({ asker: { ask: async () => ({ kind: "approve" }) }, sessionIdleMs: -1 })).toThrow(
      /sessionIdleMs must be a positive/,
    );
  });
});

describe("maxSessions", () => {
  it("past the cap the oldest idle session closes first", async () => {
    const s = await served({ maxSessions: 2 });
    const a = await initialize(s);
    const b = await initialize(s);
    const c = await initialize(s);
    expect((await inSession(s, a, { jsonrpc: "2.0", id: 2, method: "tools/list" })).status).toBe(404);
    for (const sid of [b, c]) {
      const r = await inSession(s, sid, { jsonrpc: "2.0", id: 2, method: "tools/list" });
      expect(r.status).toBe(200);
      await r.text();
    }
  });

  it("with every session busy, a new initialize gets 503 with a message", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let started: () => void = () => {};
    const running = new Promise<void>((r) => (started = r));
    const slow = tool(
      { name: "slow", description: "Waits.", sideEffecting: false, input: { type: "object", properties: {}, additionalProperties: false } },
      async () => {
        started();
        await gate;
        return "done";
      },
    );
    const s = await serveRegistry([slow], { name: "engine", ctx: makeTestCtx(), maxSessions: 1 });
    specs.push(s);
    await s.start();
    await using client = await sdkClientFor(s.url!, { ...s.authHeaders });
    const pending = client.callTool({ name: "slow", arguments: {} });
    await running;
    const refused = await rawPost(s.url!, INITIALIZE, s.authHeaders);
    expect(refused.status).toBe(503);
    expect(await refused.text()).toMatch(/maxSessions \(1\)/);
    release();
    expect((await pending).content).toEqual([{ type: "text", text: "done" }]);
  });
});

describe("JSON-RPC batches", () => {
  it("a batch with a duplicate id is refused before any tool body runs", async () => {
    const s = await served();
    const sid = await initialize(s);
    const before = counter.runs;
    const call = (text: string) => ({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "echo", arguments: { text } } });
    const r = await inSession(s, sid, [call("a"), call("b")]);
    const text = await r.text();
    expect(counter.runs - before).toBe(0);
    expect(r.status).toBe(400);
    expect(text).toMatch(/duplicate id 7/);
    // Distinct ids in one batch are still served, each answered.
    const ok = await inSession(s, sid, [
      { ...call("a"), id: 8 },
      { ...call("b"), id: 9 },
    ]);
    const msgs = await rpcMessages(ok);
    expect(msgs.map((m) => m.id).sort()).toEqual([8, 9]);
    expect(counter.runs - before).toBe(2);
  });
});
