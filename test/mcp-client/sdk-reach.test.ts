/**
 * @module test/mcp-client/sdk-reach.test
 * What the package relies on in how the installed client SDK
 * (`@modelcontextprotocol/client`) works inside, checked against that SDK.
 * Each test fails, naming what changed, when an SDK works differently: then
 * the package must follow the SDK or give way to the public path.
 *
 * 1. `MCPClient.callTool` hands the run's long-lived signal to the SDK as it
 *    is: that is only sound while the SDK removes the abort listener it adds
 *    per request (SDK 1.x did not, hence the former `CallSignal` reach).
 * 2. `watchSseBody` (src/mcp/sdk-reach.ts): the SSE body is read only
 *    through `pipeThrough`, or cancelled.
 */
import { getEventListeners } from "node:events";
import { Client, InMemoryTransport, type CallToolResult } from "@modelcontextprotocol/client";
import { v2Client } from "../helpers/v2-client.js";
import { Server } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { SSE_BODY_MEMBERS_USED } from "../../src/mcp/sdk-reach.js";
import { startBearerHttpServer } from "./support.js";
import { until } from "../helpers/wait.js";

/** A low-level SDK v2 Server with a `fast` tool and a `slow` one that answers only when its request is cancelled; linked in memory to an SDK Client. */
async function linkedPair(): Promise<{ client: Client; cancelled: string[]; close: () => Promise<void> }> {
  const server = new Server({ name: "reach", version: "0" }, { capabilities: { tools: {} } });
  const cancelled: string[] = [];
  server.setRequestHandler("tools/call", (request, ctx): Promise<CallToolResult> => {
    if (request.params.name === "fast") return Promise.resolve({ content: [{ type: "text", text: "fast" }] });
    const signal = ctx.mcpReq.signal;
    return new Promise((resolve) => {
      signal.addEventListener("abort", () => {
        cancelled.push(String(signal.reason));
        resolve({ content: [] });
      });
    });
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "reach-test", version: "0" }, { capabilities: {} });
  await Promise.all([server.connect(a), client.connect(b)]);
  return {
    client,
    cancelled,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

describe("SDK reach 1: the SDK removes the abort listener it adds to a request's signal", () => {
  it("one long-lived signal over many calls keeps no listener, and aborting it still cancels a call in flight", async () => {
    const pair = await linkedPair();
    try {
      const run = new AbortController();
      for (let i = 0; i < 5; i++)
        expect(await pair.client.callTool({ name: "fast", arguments: {} }, { signal: run.signal })).toEqual({
          content: [{ type: "text", text: "fast" }],
        });
      expect(
        getEventListeners(run.signal, "abort").length,
        "the SDK now leaves its abort listener on the signal after a call: MCPClient.callTool must give each call its own signal again",
      ).toBe(0);

      const pending = pair.client.callTool({ name: "slow", arguments: {} }, { signal: run.signal }).catch((e: unknown) => e);
      await until(
        () => getEventListeners(run.signal, "abort").length === 1,
        "the SDK no longer listens on the signal: cancellation would not reach the server",
      );
      run.abort("stop");
      const err = await pending;
      expect(err, "the SDK no longer rejects a call whose signal was aborted").toBeInstanceOf(Error);
      expect(String((err as Error).message)).toContain("stop");
      await until(() => pair.cancelled.length === 1, "the SDK did not send notifications/cancelled when the signal aborted");
      expect(getEventListeners(run.signal, "abort").length).toBe(0);
    } finally {
      await pair.close();
    }
  });
});

const STREAM_MEMBERS = ["pipeThrough", "pipeTo", "getReader", "tee", "cancel", "values", Symbol.asyncIterator] as const;

/**
 * Record which members of `body` are used (each still works, through
 * ReadableStream's own method). A use while the client is closing is marked
 * `@close`: closing aborts the transport's fetches, and Node's fetch then
 * cancels each body it handed out itself (undici's abortFetch), piped or not.
 */
function instrument(body: ReadableStream<Uint8Array>, used: string[], closing: () => boolean): void {
  for (const key of STREAM_MEMBERS) {
    const own = (ReadableStream.prototype as unknown as Record<PropertyKey, (...a: unknown[]) => unknown>)[key];
    if (typeof own !== "function") continue;
    Object.defineProperty(body, key, {
      configurable: true,
      value: (...args: unknown[]) => {
        used.push(closing() ? `${String(key)}@close` : String(key));
        return own.apply(body, args);
      },
    });
  }
}

describe("SDK reach 2: the SDK's HTTP client transport reads an ok SSE body only through pipeThrough, or cancels it", () => {
  it("every ok SSE response body is used by exactly one of pipeThrough or cancel, and nothing else", async () => {
    await using server = await startBearerHttpServer("reach-token");
    const bodies: string[][] = [];
    let closing = false;
    const recordingFetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const res = await fetch(url, init);
      if (res.ok && res.body && (res.headers.get("content-type") ?? "").includes("text/event-stream")) {
        const used: string[] = [];
        bodies.push(used);
        instrument(res.body, used, () => closing);
      }
      return res;
    };
    const client = await v2Client(server.url, { token: "reach-token", fetch: recordingFetch });
    try {
      await client.listTools();
      for (let i = 0; i < 3; i++)
        expect(await client.callTool({ name: "add", arguments: { a: i, b: 1 } })).toEqual({
          content: [{ type: "text", text: String(i + 1) }],
        });
    } finally {
      closing = true;
      await client.close();
    }
    expect(bodies.length, "no ok SSE response was seen: the test no longer exercises the reach").toBeGreaterThanOrEqual(4);
    // fetch's own cancel of a body the SDK had piped, on close, is not the SDK's use of it
    const bySdk = bodies.map(([first, ...rest]) => [
      first!.replace("@close", ""),
      ...(first!.startsWith("pipeThrough") ? rest.filter((m) => m !== "cancel@close") : rest),
    ]);
    const odd = bySdk.filter((used) => used.length !== 1 || !(SSE_BODY_MEMBERS_USED as readonly string[]).includes(used[0]!));
    expect(
      odd,
      `the SDK now reads SSE bodies through ${JSON.stringify(odd)}: watchSseBody in src/mcp/sdk-reach.ts must follow it, or the body must be wrapped`,
    ).toEqual([]);
  });
});
