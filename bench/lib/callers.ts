/**
 * @module bench/lib/callers
 * The clients the benchmarks drive. A `Caller` makes one call `i` and checks
 * the answer is its own (a wrong answer throws: a fast wrong server must not
 * win). Raw SDK clients use the fetch wrapper every SDK HTTP client needs
 * (`AbortSignal.any` per request), so no contender pays the undici listener pile-up.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  Client as Client2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransport2,
  type VersionNegotiationOptions,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioClientTransport2 } from "@modelcontextprotocol/client/stdio";
import { echoArgs, echoText, ECHO } from "../servers/echo.js";

/** One client connection that can make call `i`. */
export interface Caller {
  call(i: number): Promise<void>;
  close(): Promise<void>;
}

/** The SDK's fetch workaround: a fresh dependent signal per request. */
export function isolatingFetch(u: string | URL, init?: RequestInit): Promise<Response> {
  return fetch(u, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init);
}

/** A raw SDK `Client` on streamable HTTP, initialized, tools listed once (so output validation is armed, as in real use). */
export async function sdkHttpClient(url: string, headers: Record<string, string>): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, fetch: isolatingFetch });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  return client;
}

/** A raw SDK `Client` on stdio, spawning `node <script> [args]`. */
export async function sdkStdioClient(script: string, args: readonly string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [script, ...args], stderr: "inherit" });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** The era a raw SDK v2 client opens in: `auto` (the SDK's default probe), or pinned to one revision. */
export type Era = "auto" | "2025-11-25" | "2026-07-28";

function negotiation(era: Era): VersionNegotiationOptions {
  if (era === "2025-11-25") return { mode: "legacy" };
  if (era === "2026-07-28") return { mode: { pin: "2026-07-28" } };
  return { mode: "auto" };
}

/**
 * A raw SDK v2 `Client` (`@modelcontextprotocol/client` 2.x) on streamable
 * HTTP, opened in `era`, tools listed once (output validation armed). Same
 * fetch wrapper as the v1 client: v2's transport still hands every request
 * its long-lived signal.
 */
export async function sdk2HttpClient(url: string, headers: Record<string, string>, era: Era = "auto"): Promise<Client2> {
  const transport = new StreamableHTTPClientTransport2(new URL(url), { requestInit: { headers }, fetch: isolatingFetch });
  const client = new Client2({ name: "bench", version: "1.0.0" }, { versionNegotiation: negotiation(era) });
  await client.connect(transport);
  await client.listTools();
  return client;
}

/**
 * A raw SDK v2 `Client` on stdio, spawning `node <script>`. `env` is the
 * child's whole environment (the SDK's default: six inherited variables).
 */
export async function sdk2StdioClient(script: string, env?: Record<string, string>, era: Era = "auto"): Promise<Client2> {
  const transport = new StdioClientTransport2({ command: process.execPath, args: [script], stderr: "inherit", ...(env ? { env } : {}) });
  const client = new Client2({ name: "bench", version: "1.0.0" }, { versionNegotiation: negotiation(era) });
  await client.connect(transport);
  return client;
}

/** This process's environment as the string record a stdio transport takes (what `MCPClient`'s stdio passes on). */
export function parentEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
}

/** `Client.callTool` of the SDK v2 on an echo server. */
export function sdk2Caller(client: Client2): Caller {
  return {
    async call(i) {
      const r = await client.callTool({ name: ECHO, arguments: echoArgs(i) });
      const first = (r as CallToolResult).content[0];
      checkEcho(i, first?.type === "text" ? first.text : undefined);
    },
    close: () => client.close(),
  };
}

/** Throw unless `text` is the echo of call `i`. */
export function checkEcho(i: number, text: string | undefined): void {
  const want = echoText(echoArgs(i));
  if (text !== want) throw new Error(`misrouted or wrong result for call ${i}: got ${JSON.stringify(text)?.slice(0, 200)}, want ${want}`);
}

/** `Client.callTool` on an echo server. */
export function sdkCaller(client: Client): Caller {
  return {
    async call(i) {
      const r = (await client.callTool({ name: ECHO, arguments: echoArgs(i) })) as CallToolResult;
      const first = r.content[0];
      checkEcho(i, first?.type === "text" ? first.text : undefined);
    },
    close: () => client.close(),
  };
}

/**
 * An SDK v2 `Client` on streamable HTTP pinned to protocol `pin` (2026-07-28:
 * no session, each call self-contained; 2025-11-25: the stateless legacy leg),
 * connected and tools listed once, calling `echo`.
 */
export async function v2Caller(url: string, headers: Record<string, string>, pin: "2026-07-28" | "2025-11-25"): Promise<Caller> {
  const client = await sdk2HttpClient(url, headers, pin);
  const got = client.getNegotiatedProtocolVersion();
  if (got !== pin) {
    await client.close();
    throw new Error(`v2Caller: asked for ${pin}, the client negotiated ${got}`);
  }
  return sdk2Caller(client);
}

/** A raw `fetch` POST of the echo arguments to an express JSON echo (no MCP at all: the floor). */
export function fetchEchoCaller(url: string, headers: Record<string, string>): Caller {
  const h = { ...headers, "Content-Type": "application/json" };
  return {
    async call(i) {
      const res = await fetch(url, { method: "POST", headers: h, body: JSON.stringify(echoArgs(i)) });
      checkEcho(i, await res.text());
    },
    close: async () => {},
  };
}

/**
 * A stateless MCP caller: each call one POST of `tools/call` with no session
 * (no initialize), the SSE or JSON answer parsed by hand.
 */
export function statelessCaller(url: string, headers: Record<string, string>): Caller {
  const h = {
    ...headers,
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "Mcp-Protocol-Version": "2025-11-25",
  };
  return {
    async call(i) {
      const body = JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: ECHO, arguments: echoArgs(i) } });
      const res = await fetch(url, { method: "POST", headers: h, body });
      const text = await res.text();
      const json = text.startsWith("{") ? text : (text.split("\n").find((l) => l.startsWith("data: {")) ?? "").slice(6);
      let parsed: { result?: CallToolResult } = {};
      try {
        parsed = JSON.parse(json) as { result?: CallToolResult };
      } catch {
        throw new Error(`stateless call ${i}: HTTP ${res.status} ${text.slice(0, 200)}`);
      }
      const first = parsed.result?.content[0];
      checkEcho(i, first?.type === "text" ? first.text : undefined);
    },
    close: async () => {},
  };
}

/** `n` sequential calls numbered from `start`; returns each call's latency in ms. */
export async function sequential(caller: Caller, n: number, start = 0): Promise<number[]> {
  const lat = new Array<number>(n);
  for (let k = 0; k < n; k++) {
    const t0 = performance.now();
    await caller.call(start + k);
    lat[k] = performance.now() - t0;
  }
  return lat;
}

/**
 * Alternate single calls between `callers` — A B, then B A, and so on — `calls`
 * each, so every pair of calls shares the machine's moment (load on a shared
 * VM drifts within a batch). Returns each caller's latencies, in call order.
 */
export async function interleaved(callers: readonly Caller[], calls: number, start = 0): Promise<number[][]> {
  const lat = callers.map(() => new Array<number>(calls));
  const forward = callers.map((_, j) => j);
  const backward = [...forward].reverse();
  for (let k = 0; k < calls; k++) {
    for (const j of k % 2 ? backward : forward) {
      const t0 = performance.now();
      await callers[j]!.call(start + k * callers.length + j);
      lat[j]![k] = performance.now() - t0;
    }
  }
  return lat;
}

/** Every caller makes `perCaller` sequential calls, all at once; returns calls/s and every latency. */
export async function concurrent(
  callers: readonly Caller[],
  perCaller: number,
  start = 0,
): Promise<{ callsPerSec: number; latencies: number[] }> {
  const t0 = performance.now();
  const parts = await Promise.all(callers.map((c, j) => sequential(c, perCaller, start + j * perCaller)));
  const secs = (performance.now() - t0) / 1000;
  return { callsPerSec: (callers.length * perCaller) / secs, latencies: parts.flat() };
}
