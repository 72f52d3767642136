/**
 * @module test/mcp-serve/helpers
 * Small shared factories for the serving-direction tests: a tiny low-level
 * SDK server, an SDK client on a URL, raw JSON-RPC POSTs, port probes, and
 * the served specs a test file stops (and checks) after each test.
 */
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/server";
import { expect } from "vitest";
import { serveRegistry, type McpServerSpec } from "../../src/mcp/serve/index.js";

/** A low-level SDK server with one `echo` tool. */
export function echoServer(): Server {
  const s = new Server({ name: "echo", version: "0.0.1" }, { capabilities: { tools: {} } });
  s.setRequestHandler("tools/list", async () => ({
    tools: [{ name: "echo", description: "Echo text.", inputSchema: { type: "object", properties: { text: { type: "string" } } } }],
  }));
  s.setRequestHandler("tools/call", async (req) => ({ content: [{ type: "text", text: String(req.params.arguments?.text ?? "") }] }));
  return s;
}

/** An SDK client connected to `url` with `headers`; per-request signals isolated (undici listener leak). */
export async function sdkClientFor(url: string, headers: Record<string, string> = {}): Promise<Client & AsyncDisposable> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    fetch: (u, init) => fetch(u, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init),
  });
  const client = new Client({ name: "agentkit-test", version: "0.0.1" });
  await client.connect(transport);
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

/** The body of a JSON-RPC initialize request. */
export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};

/** POST a JSON-RPC message with the headers streamable HTTP requires, plus `extra`. */
export function rawPost(url: string, body: unknown, extra: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...extra },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** The JSON-RPC messages in an SSE (or JSON) response body. */
export async function rpcMessages(res: Response): Promise<Array<Record<string, unknown>>> {
  const text = await res.text();
  if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    return text
      .split("\n")
      .filter((l) => l.startsWith("data: ") && l.length > 6)
      .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
  }
  return text ? [JSON.parse(text) as Record<string, unknown>] : [];
}

/** True when nothing listens on 127.0.0.1:`port` (we can bind it). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen({ host: "127.0.0.1", port }, () => s.close(() => resolve(true)));
  });
}

/** Hold 127.0.0.1:`port` (0 = any) until the returned close() is called. */
export function holdPort(port = 0): Promise<{ port: number; close: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen({ host: "127.0.0.1", port }, () =>
      resolve({ port: (s.address() as { port: number }).port, close: () => new Promise<void>((r) => s.close(() => r())) }),
    );
  });
}

/**
 * The specs one test file serves. Call `stopAll()` from `afterEach`: it stops
 * each spec and expects its port free again and its config file gone.
 */
export class ServedSpecs {
  readonly #specs: McpServerSpec[] = [];

  /** Track `spec` (started or not) so `stopAll()` stops it; returns it. */
  track(spec: McpServerSpec): McpServerSpec {
    this.#specs.push(spec);
    return spec;
  }

  /** `serveRegistry(...args)`, tracked and started (bound: `const { served } = specs` works). */
  readonly served = async (...args: Parameters<typeof serveRegistry>): Promise<McpServerSpec> => {
    const spec = this.track(await serveRegistry(...args));
    await spec.start();
    return spec;
  };

  /** Stop every tracked spec; expect its port freed and its config file removed. */
  async stopAll(): Promise<void> {
    for (const s of this.#specs.splice(0)) {
      await s.stop();
      if (s.url) expect(await portIsFree(Number(new URL(s.url).port))).toBe(true);
      expect(existsSync(s.configPath)).toBe(false);
    }
  }
}
