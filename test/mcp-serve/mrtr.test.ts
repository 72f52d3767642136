/**
 * @module test/mcp-serve/mrtr.test
 * `ctx.elicit()` / `ctx.sample()` on MCP 2026-07-28 over a real loopback
 * socket: the call is answered `input_required` with a signed `requestState`,
 * the run stays suspended here, and the client's retry resumes the same run.
 * An SDK v2 client pinned to 2026-07-28 answers through its own handlers; raw
 * requests show a forged, re-targeted, replayed and expired state refused, and
 * the cap on waiting calls.
 */
import { v2Client } from "../helpers/v2-client.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { tool, type RunContext } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { serveRegistry, type McpServerSpec } from "../../src/mcp/serve/index.js";
import { settledOnFakeTime, until } from "../helpers/wait.js";
import { ServedSpecs } from "./helpers.js";

const specs = new ServedSpecs();
/** What the fake clock fakes: timers and Date (sockets, setImmediate and nextTick stay real). */
const FAKE_CLOCK: Array<"setTimeout" | "clearTimeout" | "setInterval" | "clearInterval" | "Date"> = [
  "setTimeout",
  "clearTimeout",
  "setInterval",
  "clearInterval",
  "Date",
];

afterEach(() => {
  vi.useRealTimers();
  return specs.stopAll();
});

const ASK = { type: "object", properties: { answer: { type: "string" } } } as const;

/** A tool that elicits twice and samples once, recording how often its run started and how it ended. */
function interview(log: string[]) {
  return tool(
    {
      name: "interview",
      description: "Asks twice and samples once.",
      sideEffecting: false,
      input: { type: "object", properties: { topic: { type: "string" } } },
    },
    async ({ topic }: { topic?: string }, ctx) => {
      log.push(`start ${topic ?? ""}`);
      try {
        const first = await ctx.elicit({ message: `First about ${topic}?`, requestedSchema: ASK as never });
        const second = await ctx.elicit({ message: "Second?", requestedSchema: ASK as never });
        const sampled = await ctx.sample({ messages: [{ role: "user", content: { type: "text", text: "Summarize" } }], maxTokens: 20 });
        log.push("end");
        return JSON.stringify({ first, second, sampled: sampled.content });
      } catch (err) {
        log.push(
          `failed ${(err as Error).name}: ${(err as Error).message} | signal: ${ctx.signal.aborted ? (ctx.signal.reason as Error).name : "live"}`,
        );
        throw err;
      }
    },
  );
}

async function served(
  log: string[],
  suspendedCalls?: { max?: number; ttlMs?: number },
  more: { timeoutMs?: number; heartbeatMs?: number } = {},
): Promise<McpServerSpec> {
  const spec = await serveRegistry([interview(log)], {
    name: "engine",
    ctx: makeTestCtx(),
    ...(suspendedCalls ? { suspendedCalls } : {}),
    ...more,
  });
  specs.track(spec);
  await spec.start();
  return spec;
}

interface Wire {
  result?: {
    resultType?: string;
    requestState?: string;
    inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
    content?: Array<{ text: string }>;
    isError?: boolean;
  };
  error?: { code: number; message: string };
}

/** One raw 2026-07-28 `tools/call`, with `extra` params (inputResponses, requestState); the final JSON-RPC message. */
/**
 * On a fake clock (timers and Date; the socket stays real): a call on `topic` that asks, then 299 ms with nothing in
 * `log` after its start, then at 300 ms its second line (the run's end, the test's to read). The question and its key.
 */
async function askedThenAt300ms(spec: McpServerSpec, log: string[], topic: string): Promise<{ first: Wire; key: string }> {
  vi.useFakeTimers({ toFake: FAKE_CLOCK });
  const first = await rawCall(spec, { topic });
  const [key] = Object.keys(first.result!.inputRequests!);
  await vi.advanceTimersByTimeAsync(299);
  expect(log).toEqual([`start ${topic}`]);
  await vi.advanceTimersByTimeAsync(1);
  await until(
    () => log.length === 2,
    () => `a second line in the log at 300 ms: ${JSON.stringify(log)}`,
  );
  return { first, key: key! };
}

async function rawCall(spec: McpServerSpec, args: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Wire> {
  return (await rawExchange(spec, args, extra)).at(-1)!;
}

/** Every JSON-RPC message of one raw 2026-07-28 `tools/call` exchange (notifications first, the answer last). */
async function rawExchange(
  spec: McpServerSpec,
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  progressToken?: string,
  headers: Record<string, string> = {},
  capabilities: Record<string, unknown> = { elicitation: { form: {} }, sampling: {} },
): Promise<Array<Wire & { method?: string; params?: Record<string, unknown> }>> {
  const _meta = {
    ...(progressToken ? { progressToken } : {}),
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  };
  const res = await fetch(spec.url!, {
    method: "POST",
    headers: {
      ...spec.authHeaders,
      ...headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "interview",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "interview", arguments: args, _meta, ...extra } }),
  });
  const text = await res.text();
  const messages = text.startsWith("{")
    ? [JSON.parse(text)]
    : text
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => JSON.parse(l.slice(6)));
  return messages as Array<Wire & { method?: string; params?: Record<string, unknown> }>;
}

const accept = (answer: string) => ({ action: "accept" as const, content: { answer } });

describe("ctx.elicit() / ctx.sample() on 2026-07-28 (multi-round-trip)", () => {
  it("an SDK v2 client pinned to 2026-07-28: two questions and a sample reach the same run through input_required and retries; the result carries the answers", async () => {
    const log: string[] = [];
    const spec = await served(log);
    const asked: string[] = [];
    const client = await v2Client(spec.url!, {
      headers: spec.authHeaders,
      version: "2026-07-28",
      elicit: (message) => {
        asked.push(message);
        return accept(asked.length === 1 ? "blue" : "green");
      },
      sample: "a summary",
    });
    try {
      const result = await client.callTool({ name: "interview", arguments: { topic: "colours" } });
      expect(result.isError).toBeFalsy();
      expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual({
        first: accept("blue"),
        second: accept("green"),
        sampled: { type: "text", text: "a summary" },
      });
      expect(asked).toEqual(["First about colours?", "Second?"]);
      expect(log).toEqual(["start colours", "end"]);
      const calls = client.sent.filter((s) => s.method === "tools/call");
      expect(calls).toHaveLength(4);
      expect(calls[0]!.params?.requestState).toBeUndefined();
      const states = calls.slice(1).map((c) => c.params?.requestState);
      expect(states.every((s) => typeof s === "string")).toBe(true);
      expect(new Set(states).size).toBe(3);
    } finally {
      await client.close();
    }
  });

  it("a forged state, a state replayed onto another call, an old round's state replayed, and an unknown one are refused with -32602 naming what was wrong; the right retry still resumes", async () => {
    const log: string[] = [];
    const spec = await served(log);
    const first = await rawCall(spec, { topic: "a" });
    expect(first.result?.resultType).toBe("input_required");
    const [key, question] = Object.entries(first.result!.inputRequests!)[0]!;
    expect(question).toMatchObject({ method: "elicitation/create", params: { message: "First about a?" } });
    const state = first.result!.requestState!;
    const answer = { inputResponses: { [key]: accept("x") } };

    const forged = state.slice(0, -2) + (state.endsWith("AA") ? "BB" : "AA");
    expect((await rawCall(spec, { topic: "a" }, { ...answer, requestState: forged })).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining("requestState: its signature does not verify"),
    });
    expect((await rawCall(spec, { topic: "a" }, { ...answer, requestState: "not-a-state" })).error?.message).toContain(
      "requestState: not a state this server issued (malformed)",
    );
    expect((await rawCall(spec, { topic: "b" }, { ...answer, requestState: state })).error?.message).toContain(
      "requestState: it belongs to another call",
    );
    expect((await rawCall(spec, { topic: "a" }, { inputResponses: {}, requestState: state })).error?.message).toContain(
      `inputResponses: the retry of 'interview' carries no answer under '${key}'`,
    );

    const second = await rawCall(spec, { topic: "a" }, { ...answer, requestState: state });
    expect(second.result?.resultType).toBe("input_required");
    expect(Object.values(second.result!.inputRequests!)[0]).toMatchObject({ method: "elicitation/create", params: { message: "Second?" } });
    expect((await rawCall(spec, { topic: "a" }, { ...answer, requestState: state })).error?.message).toContain(
      "requestState: round 1 of this call was already answered (a replayed state: each requestState is answered once)",
    );
    expect(log).toEqual(["start a"]);
  });

  it("a call not resumed within ttlMs expires: its context is cancelled with ClientGaveUp, its state is refused as expired, nothing stays waiting", async () => {
    const log: string[] = [];
    const spec = await served(log, { ttlMs: 300 });
    const { first, key } = await askedThenAt300ms(spec, log, "late");
    expect(log[1]).toMatch(
      /^failed ClientGaveUp: raw stopped waiting: it did not retry with the answer to elicitation\/create within 0\.3s .*\| signal: ClientGaveUp$/,
    );
    const retry = await rawCall(
      spec,
      { topic: "late" },
      { inputResponses: { [key]: accept("x") }, requestState: first.result!.requestState },
    );
    expect(retry.error).toMatchObject({ code: -32602, message: expect.stringContaining("requestState: expired") });
  });

  it("at most suspendedCalls.max calls wait: the next question is refused with a ClientRequestError naming the cap", async () => {
    const log: string[] = [];
    const spec = await served(log, { max: 1 });
    const first = await rawCall(spec, { topic: "one" });
    expect(first.result?.resultType).toBe("input_required");
    const second = await rawCall(spec, { topic: "two" });
    expect(second.result).toMatchObject({ isError: true });
    expect(second.result!.content![0]!.text).toBe(
      "tool 'interview' failed: ClientRequestError: the call to 'interview' cannot ask its client: 1 calls are already waiting on their clients' answers (the cap); answer or cancel those, or raise the cap",
    );
  });

  it("the deadline keeps running while a call waits: at timeoutMs the run is abandoned, and its state then finds no waiting call", async () => {
    const log: string[] = [];
    const spec = await served(log, undefined, { timeoutMs: 300 });
    const { first, key } = await askedThenAt300ms(spec, log, "slow");
    expect(log[1]).toBe("failed Cancelled: tool 'interview' was abandoned at its 0.3s deadline | signal: Cancelled");
    const retry = await rawCall(
      spec,
      { topic: "slow" },
      { inputResponses: { [key]: accept("x") }, requestState: first.result!.requestState },
    );
    expect(retry.error).toMatchObject({ code: -32602, message: expect.stringContaining("requestState: no call is waiting under it") });
  });

  it("a resumed run's progress heartbeat goes to the retry's own stream, with the retry's progress token", async () => {
    const log: string[] = [];
    const slow = tool(
      { name: "interview", description: "Asks, then works a while.", sideEffecting: false, input: { type: "object", properties: {} } },
      async (_args: Record<string, never>, ctx) => {
        const answer = await ctx.elicit({ message: "Go?", requestedSchema: ASK as never });
        await new Promise((r) => setTimeout(r, 400)); // on the fake clock
        log.push(answer.action);
        return `went: ${answer.action}`;
      },
    );
    const spec = await serveRegistry([slow], { name: "engine", ctx: makeTestCtx(), heartbeatMs: 100 });
    specs.track(spec);
    await spec.start();
    const first = await rawExchange(spec, {}, {}, "first");
    const [key] = Object.keys(first.at(-1)!.result!.inputRequests!);
    // The heartbeat and the tool's 400 ms run on a fake clock (timers and Date; the socket stays real), advanced 25 ms a step.
    vi.useFakeTimers({ toFake: FAKE_CLOCK });
    const second = await settledOnFakeTime(
      rawExchange(spec, {}, { inputResponses: { [key!]: accept("yes") }, requestState: first.at(-1)!.result!.requestState }, "second"),
      25,
    );
    expect(second.at(-1)!.result).toMatchObject({ content: [{ type: "text", text: "went: accept" }] });
    const beats = second.filter((m) => m.method === "notifications/progress").map((m) => m.params!);
    expect(beats.length).toBeGreaterThanOrEqual(3); // at 100, 200 and 300 ms of the 400 on the fake clock
    expect(beats.every((b) => b.progressToken === "second" && /^'interview' is still running/.test(String(b.message)))).toBe(true);
  });

  it("suspendedCalls is checked: a bad max or ttlMs is an OptionsError naming the field and what is accepted", async () => {
    await expect(serveRegistry([interview([])], { name: "engine", ctx: makeTestCtx(), suspendedCalls: { max: 0 } })).rejects.toThrow(
      "serveRegistry: suspendedCalls.max must be a whole number from 1 to 2147483647, got number 0",
    );
    await expect(serveRegistry([interview([])], { name: "engine", ctx: makeTestCtx(), suspendedCalls: { ttlMs: 1.5 } })).rejects.toThrow(
      "serveRegistry: suspendedCalls.ttlMs must be a whole number from 1 to 2147483647, got number 1.5",
    );
    await expect(
      serveRegistry([interview([])], {
        name: "engine",
        ctx: makeTestCtx(),
        transport: "stdio",
        command: ["node", "x.js"],
        suspendedCalls: { max: 1 },
      }),
    ).rejects.toThrow('serveRegistry: suspendedCalls applies to transport "http" only; a stdio server has no listener');
  });

  it("stopping the server while a call waits ends the run with 'the server stopped' (no timer or call left behind)", async () => {
    const log: string[] = [];
    const spec = await served(log);
    const first = await rawCall(spec, { topic: "stop" });
    expect(first.result?.resultType).toBe("input_required");
    await spec.stop();
    await expect.poll(() => log.length, { timeout: 5000 }).toBe(2);
    expect(log[1]).toBe("failed Cancelled: the server stopped while 'interview' was running | signal: Cancelled");
  });

  it("an answer of the wrong shape is refused with -32602 naming the key and what is accepted; the call keeps waiting for a good one", async () => {
    const log: string[] = [];
    const spec = await served(log);
    const first = await rawCall(spec, { topic: "shape" });
    const [key] = Object.keys(first.result!.inputRequests!);
    const state = first.result!.requestState;
    const bad = await rawCall(spec, { topic: "shape" }, { inputResponses: { [key!]: { action: "maybe" } }, requestState: state });
    expect(bad.error).toMatchObject({
      code: -32602,
      message: `inputResponses['${key}']: an answer to elicitation/create needs action 'accept', 'decline' or 'cancel' (and content, an object, with 'accept'); got action string "maybe"`,
    });
    const good = await rawCall(spec, { topic: "shape" }, { inputResponses: { [key!]: accept("ok") }, requestState: state });
    expect(good.result?.resultType).toBe("input_required");
    const [key2] = Object.keys(good.result!.inputRequests!);
    const good2 = await rawCall(
      spec,
      { topic: "shape" },
      { inputResponses: { [key2!]: accept("ok") }, requestState: good.result!.requestState },
    );
    const [key3] = Object.keys(good2.result!.inputRequests!);
    expect(good2.result!.inputRequests![key3!]!.method).toBe("sampling/createMessage");
    const badSample = await rawCall(
      spec,
      { topic: "shape" },
      { inputResponses: { [key3!]: { text: "no role" } }, requestState: good2.result!.requestState },
    );
    expect(badSample.error).toMatchObject({
      code: -32602,
      message: `inputResponses['${key3}']: an answer to sampling/createMessage needs role 'assistant' or 'user', content (an object or array) and model (a string); got object {"text":"no role"}`,
    });
  });

  it("a state is bound to its caller: replayed with another Authorization header (auth 'none', so the listener lets both in) it is refused", async () => {
    const log: string[] = [];
    const spec = await serveRegistry([interview(log)], { name: "engine", ctx: makeTestCtx(), auth: "none" });
    specs.track(spec);
    await spec.start();
    const alice = { authorization: "Bearer alice" };
    const first = (await rawExchange(spec, { topic: "who" }, {}, undefined, alice)).at(-1)!;
    const [key] = Object.keys(first.result!.inputRequests!);
    const retry = { inputResponses: { [key!]: accept("x") }, requestState: first.result!.requestState };
    expect(
      (await rawExchange(spec, { topic: "who" }, retry, undefined, { authorization: "Bearer mallory" })).at(-1)!.error?.message,
    ).toContain("requestState: it was issued to another caller");
    expect((await rawExchange(spec, { topic: "who" }, retry, undefined, alice)).at(-1)!.result?.resultType).toBe("input_required");
  });

  it("a resource read asking its client on 2026-07-28 gets a ClientRequestError saying only a tools/call can ask there (a JSON-RPC error carrying it)", async () => {
    const curious = {
      uri: "memo://today",
      name: "today",
      read: async (_p: Record<string, string>, ctx: RunContext) =>
        (await ctx.elicit({ message: "Which day?", requestedSchema: ASK as never })).action,
    };
    const spec = await serveRegistry([interview([])], { name: "engine", ctx: makeTestCtx(), resources: [curious] });
    specs.track(spec);
    await spec.start();
    const _meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
    };
    const res = await fetch(spec.url!, {
      method: "POST",
      headers: {
        ...spec.authHeaders,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "resources/read",
        "mcp-name": "memo://today",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "memo://today", _meta } }),
    });
    const text = await res.text();
    const last = (
      text.startsWith("{")
        ? [JSON.parse(text)]
        : text
            .split("\n")
            .filter((l) => l.startsWith("data: "))
            .map((l) => JSON.parse(l.slice(6)))
    ).at(-1) as Wire;
    expect(last.error?.message).toContain(
      "ctx.elicit(): on MCP protocol 2026-07-28 only a tools/call can ask its client (through input_required and the client's retry); a resource read or prompt render cannot",
    );
  });

  it("a 2026-07-28 client that declares no elicitation capability in its request's _meta is not asked: the tool gets a ClientRequestError naming where to declare it", async () => {
    const log: string[] = [];
    const spec = await served(log);
    const last = (await rawExchange(spec, { topic: "mute" }, {}, undefined, {}, {})).at(-1)!;
    expect(last.result).toMatchObject({ isError: true });
    expect(last.result!.content![0]!.text).toBe(
      "tool 'interview' failed: ClientRequestError: ctx.elicit(): the MCP client did not declare the 'elicitation' capability (in its initialize request, or on 2026-07-28 in each request's _meta clientCapabilities), so it cannot be asked; declare capabilities.elicitation in the client, or do without the question",
    );
  });
});
