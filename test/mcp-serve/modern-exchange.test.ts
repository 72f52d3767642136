/**
 * @module test/mcp-serve/modern-exchange.test
 * The 2026-07-28 exchange on a loopback endpoint, over a real socket: a
 * client that leaves mid-call ends its call (the server built for its request
 * is closed: the tool's context is cancelled with `ClientGaveUp`), the
 * endpoint keeps serving, and the process-wide `Error.stackTraceLimit` is as
 * it was after each exchange. And the one era classification of a POST
 * (`requestEra`) is the SDK's classifier on the request's own headers.
 */
import { classifyInboundRequest } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { RunContext, tool } from "../../src/index.js";
import { ClientGaveUp } from "../../src/errors/client-gave-up.error.js";
import { ClientRequestError } from "../../src/context/client-request.error.js";
import { isModernEra, requestEra } from "../../src/mcp/loopback/modern-leg.js";
import { serveRegistry, type McpServerSpec } from "../../src/mcp/serve/index.js";
import { rawPost, rpcMessages, ServedSpecs } from "./helpers.js";

const specs = new ServedSpecs();
afterEach(() => specs.stopAll());

const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const ENVELOPE = {
  [VERSION_KEY]: "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw-2026", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A 2026-07-28 `tools/call` of `name`, with the headers the era requires. */
function call2026(
  url: string,
  headers: Record<string, string>,
  id: number,
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
  envelope: Record<string, unknown> = ENVELOPE,
): Promise<Response> {
  const body = { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: envelope } };
  return fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/call",
      "Mcp-Name": name,
      ...headers,
    },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

describe("2026-07-28 exchanges on the loopback endpoint", () => {
  it("a client that leaves mid-call cancels the call's context with ClientGaveUp; the endpoint keeps serving; Error.stackTraceLimit is untouched", async () => {
    const limit = Error.stackTraceLimit;
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let cancelled!: (why: unknown) => void;
    const reason = new Promise<unknown>((r) => (cancelled = r));
    const waits = tool(
      { name: "waits", description: "Waits until cancelled.", sideEffecting: false },
      (_args: Record<string, unknown>, ctx: RunContext) => {
        started();
        return new Promise<string>((done) =>
          ctx.onCancel((why) => {
            cancelled(why);
            done("cancelled");
          }),
        );
      },
    );
    const echo = tool(
      {
        name: "echo",
        description: "Echoes text.",
        sideEffecting: false,
        input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      },
      ({ text }: { text: string }) => text,
    );
    const spec: McpServerSpec = await serveRegistry([waits, echo], { name: "engine", ctx: new RunContext() });
    specs.track(spec);
    await spec.start();

    const ac = new AbortController();
    const leaving = call2026(spec.url!, spec.authHeaders, 1, "waits", {}, ac.signal).catch((e: unknown) => e);
    await running;
    ac.abort();
    expect(await leaving).toBeInstanceOf(Error);
    const why = await reason;
    expect(why).toBeInstanceOf(ClientGaveUp);
    expect((why as Error).message).toMatch(/connection closed while the call was running/);

    const res = await call2026(spec.url!, spec.authHeaders, 2, "echo", { text: "still here" });
    expect(res.status).toBe(200);
    const [msg] = await rpcMessages(res);
    expect((msg as { result: { content: unknown } }).result.content).toEqual([{ type: "text", text: "still here" }]);
    expect(Error.stackTraceLimit).toBe(limit);
    // A 2025-era client on the same URL still opens a session.
    const init = await rawPost(
      spec.url!,
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
      },
      { ...spec.authHeaders },
    );
    expect(init.headers.get("mcp-session-id")).toBeTruthy();
    await init.text();
  });

  it("a tool that asks its client after its call was answered (the deadline) is refused with ClientRequestError; nothing waits", async () => {
    let asked!: (outcome: unknown) => void;
    const outcome = new Promise<unknown>((r) => (asked = r));
    const late = tool(
      { name: "late", description: "Asks after its deadline.", sideEffecting: false },
      async (_args: Record<string, unknown>, ctx: RunContext) => {
        // past the deadline: the call was answered ("did not return within") and its signal aborted
        await new Promise((r) => (ctx.signal.aborted ? r(undefined) : ctx.signal.addEventListener("abort", r, { once: true })));
        try {
          asked(await ctx.elicit({ message: "still there?", requestedSchema: { type: "object", properties: {} } }));
        } catch (err) {
          asked(err);
        }
        return "late";
      },
    );
    const spec = await serveRegistry([late], { name: "engine", ctx: new RunContext(), timeoutMs: 100 });
    specs.track(spec);
    await spec.start();
    const envelope = { ...ENVELOPE, "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
    const res = await call2026(spec.url!, spec.authHeaders, 1, "late", {}, undefined, envelope);
    const [msg] = await rpcMessages(res);
    expect((msg as { result: { isError?: boolean; content: Array<{ text: string }> } }).result.isError).toBe(true);
    expect((msg as { result: { content: Array<{ text: string }> } }).result.content[0]!.text).toMatch(/did not return within/);
    const err = await outcome;
    expect(err).toBeInstanceOf(ClientRequestError);
    expect((err as Error).message).toMatch(/no exchange to ask on/);
  });
});

describe("the one era classification of a POST", () => {
  const bodies: Array<[string, unknown, Record<string, string>?]> = [
    ["a 2026 tools/call", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x", _meta: ENVELOPE } }],
    ["a 2026 server/discover", { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: ENVELOPE } }],
    ["a claim naming a 2025 revision", { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { [VERSION_KEY]: "2025-11-25" } } }],
    ["a claim with a malformed envelope", { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { [VERSION_KEY]: 7 } } }],
    [
      "a claim with a mismatched header",
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: ENVELOPE } },
      { "mcp-protocol-version": "2025-11-25" },
    ],
    [
      "a claim with a mismatched method header",
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: ENVELOPE } },
      { "mcp-method": "tools/call" },
    ],
    [
      "a 2026 tools/call whose Mcp-Name names another tool",
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x", _meta: ENVELOPE } },
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "y" },
    ],
    ["a notification with a claim", { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, _meta: ENVELOPE } }],
    ["a claim on a message without jsonrpc", { id: 1, method: "tools/list", params: { _meta: ENVELOPE } }],
    [
      "an initialize with a valid claim",
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "0" }, _meta: ENVELOPE },
      },
    ],
    [
      "an initialize with an invalid claim",
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "0" }, _meta: { [VERSION_KEY]: 7 } },
      },
    ],
    ["a response carrying a claim", { jsonrpc: "2.0", id: 1, result: {}, method: "tools/list", params: { _meta: ENVELOPE } }],
    [
      "an error response carrying a claim",
      { jsonrpc: "2.0", id: 1, error: { code: 1, message: "m" }, method: "x", params: { _meta: ENVELOPE } },
    ],
    ["a batch with a claim", [{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: ENVELOPE } }]],
    ["a claim-less 2025 request", { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }],
    ["a claim-less request under a 2026 header", { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-protocol-version": "2026-07-28" }],
    ["_meta that is an array", { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: [VERSION_KEY] } }],
  ];

  it.each(bodies)(
    "%s: requestEra is the SDK's classifier on the request's headers, and modern is what is not legacy",
    (_what, body, headers = {}) => {
      const outcome = classifyInboundRequest({
        httpMethod: "POST",
        protocolVersionHeader: headers["mcp-protocol-version"],
        mcpMethodHeader: headers["mcp-method"],
        mcpNameHeader: headers["mcp-name"],
        body,
      });
      const era = requestEra(headers, body);
      expect(era).toEqual(outcome);
      expect(isModernEra(era)).toBe(outcome.kind !== "legacy");
    },
  );
});
