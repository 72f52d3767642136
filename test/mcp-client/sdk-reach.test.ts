/**
 * @module test/mcp-client/sdk-reach.test
 * The two places the package relies on how the installed SDK works inside
 * (src/mcp/sdk-reach.ts), checked against that SDK — the one `src/mcp/sdk.ts`
 * loads. Each test fails, naming what changed, when an SDK uses them
 * differently: then the reach must follow the SDK or give way to the public
 * path (an `AbortController` per call; a wrapped SSE body).
 */
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { sdkClient, sdkHttpClient, sdkTypes } from "../../src/mcp/sdk.js";
import { CallSignal, SSE_BODY_MEMBERS_USED } from "../../src/mcp/sdk-reach.js";
import { startBearerHttpServer } from "./support.js";

/** What `CallSignal` provides to the SDK. */
const SIGNAL_MEMBERS = new Set(["aborted", "reason", "throwIfAborted", "addEventListener"]);

/** A `CallSignal` seen through a proxy that records every member the SDK reads. */
function recorded(): { signal: CallSignal; proxy: AbortSignal; read: Set<string> } {
  const signal = new CallSignal();
  const read = new Set<string>();
  const proxy = new Proxy(signal, {
    get(target, key) {
      read.add(String(key));
      const value = Reflect.get(target, key) as unknown;
      // bound to the target, so CallSignal's own fields are not counted as the SDK's reads
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { signal, proxy: proxy as unknown as AbortSignal, read };
}

/** A low-level SDK Server with a `fast` tool and a `slow` one that answers only when its request is cancelled; linked in memory to an SDK Client. */
async function linkedPair(): Promise<{ client: InstanceType<typeof sdkClient.Client>; cancelled: string[]; close: () => Promise<void> }> {
  const server = new Server({ name: "reach", version: "0" }, { capabilities: { tools: {} } });
  const cancelled: string[] = [];
  server.setRequestHandler(sdkTypes.CallToolRequestSchema, (request, extra): Promise<CallToolResult> => {
    if (request.params.name === "fast") return Promise.resolve({ content: [{ type: "text", text: "fast" }] });
    return new Promise((resolve) => {
      extra.signal.addEventListener("abort", () => {
        cancelled.push(String(extra.signal.reason));
        resolve({ content: [] });
      });
    });
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new sdkClient.Client({ name: "reach-test", version: "0" }, { capabilities: {} });
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

describe("SDK reach 1: the SDK's request path uses only the AbortSignal members CallSignal has", () => {
  it("a completed call and a cancelled call read nothing else from the signal, and the cancel reaches the server", async () => {
    const pair = await linkedPair();
    try {
      const done = recorded();
      expect(await pair.client.callTool({ name: "fast", arguments: {} }, undefined, { signal: done.proxy })).toEqual({ content: [{ type: "text", text: "fast" }] });

      const cancel = recorded();
      const pending = pair.client.callTool({ name: "slow", arguments: {} }, undefined, { signal: cancel.proxy }).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 20));
      cancel.signal.abort("stop");
      const err = await pending;
      expect(err, "the SDK no longer rejects a call whose CallSignal was aborted").toBeInstanceOf(Error);
      expect(String((err as Error).message)).toContain("stop");
      await new Promise((r) => setTimeout(r, 20));
      expect(pair.cancelled, "the SDK did not send notifications/cancelled when the CallSignal aborted").toEqual(["stop"]);

      const beyond = [...new Set([...done.read, ...cancel.read])].filter((m) => !SIGNAL_MEMBERS.has(m));
      expect(beyond, `the SDK now reads AbortSignal member(s) ${beyond.join(", ")}: CallSignal in src/mcp/sdk-reach.ts must provide them, or MCPClient must use an AbortController per call`).toEqual([]);
      expect(cancel.read.has("addEventListener"), "the SDK no longer listens on the signal: CallSignal may be obsolete").toBe(true);
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
    const transport = new sdkHttpClient.StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { Authorization: "Bearer reach-token" } },
      fetch: recordingFetch,
    });
    const client = new sdkClient.Client({ name: "reach-test", version: "0" }, { capabilities: {} });
    await client.connect(transport);
    try {
      await client.listTools();
      for (let i = 0; i < 3; i++) expect(await client.callTool({ name: "add", arguments: { a: i, b: 1 } })).toEqual({ content: [{ type: "text", text: String(i + 1) }] });
    } finally {
      closing = true;
      await client.close();
    }
    expect(bodies.length, "no ok SSE response was seen: the test no longer exercises the reach").toBeGreaterThanOrEqual(4);
    // fetch's own cancel of a body the SDK had piped, on close, is not the SDK's use of it
    const bySdk = bodies.map(([first, ...rest]) => [first!.replace("@close", ""), ...(first!.startsWith("pipeThrough") ? rest.filter((m) => m !== "cancel@close") : rest)]);
    const odd = bySdk.filter((used) => used.length !== 1 || !(SSE_BODY_MEMBERS_USED as readonly string[]).includes(used[0]!));
    expect(odd, `the SDK now reads SSE bodies through ${JSON.stringify(odd)}: watchSseBody in src/mcp/sdk-reach.ts must follow it, or the body must be wrapped`).toEqual([]);
  });
});
