/**
 * @module test/mcp-serve/node-http-transport.test
 * `NodeHttpServerTransport` on a real node:http server (127.0.0.1:0) under a
 * real SDK `Server`, driven with raw fetch: every refusal the SDK's transport
 * answers (405, 406, 415, 400s, 404, 409), 202 for notifications, SSE
 * responses parsed from the wire (headers, `event: message`, no `id:`),
 * related notifications on the request's stream, the GET stream, DELETE,
 * close(), the one-shot stateless mode, and a client leaving mid-stream.
 * Every case runs against the SDK v2's own `NodeStreamableHTTPServerTransport`
 * (`@modelcontextprotocol/node`, the 2025 era) too: the behaviour matched, so
 * a newer SDK that answers differently shows here. One difference is on
 * purpose: ours hands the server no web `Request` (`ctx.http.req`), which the
 * SDK's builds per request.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { NodeStreamableHTTPServerTransport } from "@modelcontextprotocol/node";
import { Server, type CallToolResult, type Transport } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { NodeHttpServerTransport, type NodeHttpTransportOptions } from "../../src/mcp/loopback/node-http-transport.js";
import { until } from "../helpers/wait.js";

/** What both transports offer: the SDK's `Transport` and `handleRequest` on node:http. */
type HttpTransport = Transport & { handleRequest(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> };
type Make = (options: NodeHttpTransportOptions) => HttpTransport;
const OURS = "NodeHttpServerTransport";
const IMPLEMENTATIONS: Array<[string, Make]> = [
  [OURS, (o) => new NodeHttpServerTransport(o)],
  ["the SDK v2's NodeStreamableHTTPServerTransport (the behaviour matched)", (o) => new NodeStreamableHTTPServerTransport(o)],
];

const ACCEPT = "application/json, text/event-stream";
const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

/** Gates a tool body waits on: the test opens them. */
const gates = new Map<string, () => void>();
/** Gates whose waiting call was cancelled (its request signal aborted). */
const cancelledGates = new Set<string>();

/** An SDK server with four tools: echo, notify (a related progress-style log first), whoami (what `extra` held), wait (until its gate opens). */
function toolServer(): Server {
  const server = new Server({ name: "t", version: "1" }, { capabilities: { tools: {}, logging: {} } });
  server.setRequestHandler("tools/list", () => ({ tools: [] }));
  server.setRequestHandler("tools/call", async (req, extra): Promise<CallToolResult> => {
    const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });
    const args = (req.params.arguments ?? {}) as Record<string, string>;
    switch (req.params.name) {
      case "notify":
        await extra.mcpReq.notify({ method: "notifications/message", params: { level: "info", data: "working" } });
        return text("done");
      case "whoami":
        return text(
          JSON.stringify({
            probe: extra.http?.req?.headers.get("x-probe") ?? undefined,
            path: extra.http?.req ? new URL(extra.http.req.url).pathname : undefined,
            sessionId: extra.sessionId,
          }),
        );
      case "wait":
        extra.mcpReq.signal.addEventListener("abort", () => cancelledGates.add(args.gate!), { once: true });
        await new Promise<void>((resolve) => gates.set(args.gate!, resolve));
        return text("waited");
      default:
        return text(args.text ?? "");
    }
  });
  return server;
}

interface Harness {
  url: string;
  transport: HttpTransport;
  server: Server;
  errors: string[];
  events: string[];
  /** Responses whose client left before they were finished (the server saw their socket close). */
  readonly left: number;
}

const open: Array<{ http: HttpServer; server: Server }> = [];
afterEach(async () => {
  gates.clear();
  cancelledGates.clear();
  for (const { http, server } of open.splice(0)) {
    await server.close();
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  }
});

/** One stateful transport (or, with `stateless`, a fresh transport and server per request) behind node:http; the body is read by the transport. */
async function harness(makeTransport: Make, options: NodeHttpTransportOptions & { stateless?: boolean } = {}): Promise<Harness> {
  const events: string[] = [];
  const errors: string[] = [];
  const make = async (): Promise<{ transport: HttpTransport; server: Server }> => {
    const transport = makeTransport(
      options.stateless
        ? {}
        : {
            sessionIdGenerator: randomUUID,
            onsessioninitialized: (id) => void events.push(`init ${id}`),
            onsessionclosed: (id) => void events.push(`closed ${id}`),
            ...options,
          },
    );
    const server = toolServer();
    await server.connect(transport);
    transport.onerror = (e) => errors.push(e.message);
    server.onerror = (e) => errors.push(e.message);
    const onclose = transport.onclose;
    transport.onclose = () => {
      events.push("onclose");
      onclose?.();
    };
    return { transport, server };
  };
  const main = await make();
  let left = 0;
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    res.once("close", () => {
      if (!res.writableFinished) left++;
    });
    if (!options.stateless) return void main.transport.handleRequest(req, res);
    void make().then(async ({ transport, server }) => {
      res.on("close", () => void server.close());
      await transport.handleRequest(req, res);
    });
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  open.push({ http, server: main.server });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    ...main,
    errors,
    events,
    get left() {
      return left;
    },
  };
}

function post(url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { accept: ACCEPT, "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal,
  });
}

/** The SSE events of a body, as the wire has them. */
function sseEvents(text: string): Array<{ event?: string; id?: string; data: unknown }> {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "" && !block.startsWith(":"))
    .map((block) => {
      const fields: Record<string, string> = {};
      for (const line of block.split("\n")) {
        const at = line.indexOf(": ");
        fields[line.slice(0, at)] = line.slice(at + 2);
      }
      return { event: fields.event, id: fields.id, data: JSON.parse(fields.data!) };
    });
}

async function rpcError(res: Response): Promise<{ code: number; message: string; data?: unknown }> {
  expect(res.headers.get("content-type")).toBe("application/json");
  const body = (await res.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
  expect(body.jsonrpc).toBe("2.0");
  expect(body.id).toBeNull();
  return body.error;
}

/** initialize; the session id and headers for later requests. */
async function session(h: Harness): Promise<Record<string, string>> {
  const res = await post(h.url, INIT);
  expect(res.status).toBe(200);
  await res.text();
  return { "mcp-session-id": res.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
}

const call = (id: number, name: string, args: Record<string, string> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

describe.each(IMPLEMENTATIONS)("%s", (name, make) => {
  describe("POST refusals, as the SDK's transport answers them", () => {
    it("406 without both media types in Accept; 415 for a body that is not application/json", async () => {
      const h = await harness(make);
      const a = await post(h.url, INIT, { accept: "application/json" });
      expect(a.status).toBe(406);
      expect(await rpcError(a)).toEqual({
        code: -32000,
        message: "Not Acceptable: Client must accept both application/json and text/event-stream",
      });
      const b = await post(h.url, INIT, { "content-type": "text/plain; a=application/json" });
      expect(b.status).toBe(415);
      expect((await rpcError(b)).message).toBe("Unsupported Media Type: Content-Type must be application/json");
      const c = await post(h.url, INIT, { "content-type": "Application/JSON; charset=utf-8" });
      expect(c.status).toBe(200);
      await c.text();
      expect(h.errors).toEqual([
        "Not Acceptable: Client must accept both application/json and text/event-stream",
        "Unsupported Media Type: Content-Type must be application/json",
      ]);
    });

    it("400 -32700 for a body that is not JSON or not JSON-RPC; 400 -32600 for a batch over 100", async () => {
      const h = await harness(make);
      const a = await post(h.url, "{not json");
      expect([a.status, await rpcError(a)]).toEqual([400, { code: -32700, message: "Parse error: Invalid JSON" }]);
      const b = await post(h.url, { jsonrpc: "2.0", id: 1, method: "x", extra: true });
      expect([b.status, await rpcError(b)]).toEqual([400, { code: -32700, message: "Parse error: Invalid JSON-RPC message" }]);
      const batch = Array.from({ length: 101 }, (_, i) => ({ jsonrpc: "2.0", method: "notifications/x", params: { i } }));
      const c = await post(h.url, batch);
      expect([c.status, await rpcError(c)]).toEqual([
        400,
        { code: -32600, message: "Invalid Request: Batch must not exceed 100 messages" },
      ]);
    });

    it("initialize: only alone, only once; before it every other request is 400", async () => {
      const h = await harness(make);
      const early = await post(h.url, call(2, "echo"));
      expect([early.status, (await rpcError(early)).message]).toEqual([400, "Bad Request: Server not initialized"]);
      const pair = await post(h.url, [INIT, { ...INIT, id: 2 }]);
      expect([pair.status, await rpcError(pair)]).toEqual([
        400,
        { code: -32600, message: "Invalid Request: Only one initialization request is allowed" },
      ]);
      const headers = await session(h);
      expect(h.events).toEqual([`init ${headers["mcp-session-id"]}`]);
      const again = await post(h.url, INIT, headers);
      expect([again.status, await rpcError(again)]).toEqual([
        400,
        { code: -32600, message: "Invalid Request: Server already initialized" },
      ]);
    });

    it("session id: 400 when missing, 404 when another; MCP-Protocol-Version: 400 when unsupported, absent is fine", async () => {
      const h = await harness(make);
      const headers = await session(h);
      const missing = await post(h.url, call(2, "echo"), { "mcp-protocol-version": "2025-11-25" });
      expect([missing.status, await rpcError(missing)]).toEqual([
        400,
        { code: -32000, message: "Bad Request: Mcp-Session-Id header is required" },
      ]);
      const other = await post(h.url, call(3, "echo"), { ...headers, "mcp-session-id": randomUUID() });
      expect([other.status, await rpcError(other)]).toEqual([404, { code: -32001, message: "Session not found" }]);
      const version = await post(h.url, call(4, "echo"), { ...headers, "mcp-protocol-version": "1999-01-01" });
      expect(version.status).toBe(400);
      expect((await rpcError(version)).message).toMatch(
        /^Bad Request: Unsupported protocol version: 1999-01-01 \(supported versions: 2025-11-25, 2025-06-18, /,
      );
      const absent = await post(h.url, call(5, "echo", { text: "ok" }), { "mcp-session-id": headers["mcp-session-id"]! });
      expect(absent.status).toBe(200);
      expect(sseEvents(await absent.text()).map((e) => e.data)).toEqual([
        { jsonrpc: "2.0", id: 5, result: { content: [{ type: "text", text: "ok" }] } },
      ]);
    });

    it("405 for another method, with Allow", async () => {
      const h = await harness(make);
      const res = await fetch(h.url, { method: "PUT", body: "{}" });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("GET, POST, DELETE");
      expect((await rpcError(res)).message).toBe("Method not allowed.");
    });
  });

  describe("POST answers", () => {
    it("initialize: one SSE stream with the SDK's headers, one `event: message` without an id, then the end", async () => {
      const h = await harness(make);
      const res = await post(h.url, INIT);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      expect(res.headers.get("cache-control")).toBe("no-cache, no-transform");
      expect(res.headers.get("connection")).toBe("keep-alive");
      expect(res.headers.get("mcp-session-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get("mcp-session-id")).toBe(h.transport.sessionId);
      const text = await res.text();
      expect(text).toMatch(/^event: message\ndata: \{.*\}\n\n$/);
      const [event] = sseEvents(text);
      expect(event!.id).toBeUndefined();
      expect(event!.data).toMatchObject({ jsonrpc: "2.0", id: 1, result: { protocolVersion: "2025-11-25", serverInfo: { name: "t" } } });
    });

    it("notifications and responses alone: 202 with no body", async () => {
      const h = await harness(make);
      const headers = await session(h);
      const res = await post(h.url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
      expect(res.status).toBe(202);
      expect(await res.text()).toBe("");
    });

    it("a related notification goes on its request's stream, before the response", async () => {
      const h = await harness(make);
      const headers = await session(h);
      const res = await post(h.url, call(7, "notify"), headers);
      expect(res.status).toBe(200);
      expect(sseEvents(await res.text()).map((e) => [e.event, e.data])).toEqual([
        ["message", { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "working" } }],
        ["message", { jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "done" }] } }],
      ]);
    });

    it("a batch of requests: one stream carrying every answer, ended after the last", async () => {
      const h = await harness(make);
      const headers = await session(h);
      const res = await post(
        h.url,
        [call(8, "wait", { gate: "g" }), call(9, "echo", { text: "fast" }), { jsonrpc: "2.0", method: "notifications/initialized" }],
        headers,
      );
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      expect(sseEvents(first).map((e) => (e.data as { id: number }).id)).toEqual([9]);
      gates.get("g")!();
      let rest = "";
      for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
      expect(sseEvents(rest).map((e) => e.data)).toEqual([
        { jsonrpc: "2.0", id: 8, result: { content: [{ type: "text", text: "waited" }] } },
      ]);
    });

    it("ctx: the session id; the SDK's transport also builds a web Request (ctx.http.req), ours builds none (a measured choice)", async () => {
      const h = await harness(make);
      const headers = await session(h);
      const res = await post(h.url + "?q=1", call(10, "whoami"), { ...headers, "x-probe": "yes" });
      const [event] = sseEvents(await res.text());
      const text = (event!.data as { result: CallToolResult }).result.content[0] as { text: string };
      const request = name === OURS ? {} : { probe: "yes", path: "/mcp" };
      expect(JSON.parse(text.text)).toEqual({ ...request, sessionId: headers["mcp-session-id"] });
    });
  });

  describe("GET stream, DELETE, close()", () => {
    it("GET: 406 without text/event-stream, one stream (409 for a second) carrying unrelated server messages", async () => {
      const h = await harness(make);
      const headers = await session(h);
      const bad = await fetch(h.url, { headers: { ...headers, accept: "application/json" } });
      expect([bad.status, (await rpcError(bad)).message]).toEqual([406, "Not Acceptable: Client must accept text/event-stream"]);
      const stream = await fetch(h.url, { headers: { ...headers, accept: "text/event-stream" } });
      expect(stream.status).toBe(200);
      expect(stream.headers.get("content-type")).toBe("text/event-stream");
      expect(stream.headers.get("mcp-session-id")).toBe(headers["mcp-session-id"]);
      const second = await fetch(h.url, { headers: { ...headers, accept: "text/event-stream" } });
      expect([second.status, await rpcError(second)]).toEqual([
        409,
        { code: -32000, message: "Conflict: Only one SSE stream is allowed per session" },
      ]);
      await h.server.sendToolListChanged();
      const reader = stream.body!.getReader();
      const chunk = new TextDecoder().decode((await reader.read()).value);
      expect(sseEvents(chunk).map((e) => e.data)).toEqual([{ jsonrpc: "2.0", method: "notifications/tools/list_changed" }]);
      // close() ends the stream and calls onclose once.
      await h.transport.close();
      await h.transport.close();
      expect((await reader.read()).done).toBe(true);
      expect(h.events.filter((e) => e === "onclose")).toHaveLength(1);
      const after = await post(h.url, call(11, "echo"), headers);
      expect([after.status, await rpcError(after)]).toEqual([404, { code: -32001, message: "Session not found" }]);
    });

    it("keepAliveMs: an open stream gets `: keepalive` comments (the SDK's frame) until it ends", async () => {
      const h = await harness(make, { keepAliveMs: 20 });
      const headers = await session(h);
      const res = await post(h.url, call(14, "wait", { gate: "slow" }), headers);
      const reader = res.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^(: keepalive\n\n)+$/);
      await expect.poll(() => gates.has("slow")).toBe(true);
      gates.get("slow")!();
      let rest = "";
      for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
      expect(sseEvents(rest).map((e) => (e.data as { id: number }).id)).toEqual([14]);
    });

    it("without a GET stream, an unrelated notification is dropped, and the session keeps serving", async () => {
      const h = await harness(make);
      const headers = await session(h);
      await h.server.sendToolListChanged();
      const res = await post(h.url, call(12, "echo", { text: "still" }), headers);
      expect(sseEvents(await res.text()).map((e) => e.data)).toEqual([
        { jsonrpc: "2.0", id: 12, result: { content: [{ type: "text", text: "still" }] } },
      ]);
    });

    it("DELETE: checks the session, then 200, onsessionclosed and onclose; the session is gone after", async () => {
      const h = await harness(make);
      const headers = await session(h);
      const wrong = await fetch(h.url, { method: "DELETE", headers: { ...headers, "mcp-session-id": "nope" } });
      expect(wrong.status).toBe(404);
      await wrong.text();
      const res = await fetch(h.url, { method: "DELETE", headers });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("");
      expect(h.events).toEqual([`init ${headers["mcp-session-id"]}`, `closed ${headers["mcp-session-id"]}`, "onclose"]);
      const after = await post(h.url, call(13, "echo"), headers);
      expect(after.status).toBe(404);
      await after.text();
    });
  });

  describe("stateless one-shot and a client that leaves", () => {
    it("stateless: no session header, any request answered without initialize; a second request on one transport throws", async () => {
      const h = await harness(make, { stateless: true });
      const res = await post(h.url, call(1, "echo", { text: "one-shot" }));
      expect(res.status).toBe(200);
      expect(res.headers.get("mcp-session-id")).toBeNull();
      expect(sseEvents(await res.text()).map((e) => e.data)).toEqual([
        { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "one-shot" }] } },
      ]);
      const t = make({});
      const server = createServer((req, res) => {
        t.handleRequest(req, res).catch((err: Error) => res.writeHead(500).end(err.message));
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
        expect((await post(url, { jsonrpc: "2.0", method: "notifications/x" })).status).toBe(202);
        const reuse = await post(url, { jsonrpc: "2.0", method: "notifications/x" });
        expect(reuse.status).toBe(500);
        // The SDK's throw is caught inside its bridge, which answers 500 with no body; this one's reaches the caller.
        expect(await reuse.text()).toBe(
          name === OURS ? "Stateless transport cannot be reused across requests. Create a new transport per request." : "",
        );
      } finally {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      }
    });

    it("a client that disconnects mid-stream: its answer is dropped (ours cancels the call; the SDK's lets it run), and the server keeps serving", async () => {
      const h = await harness(make);
      const headers = await session(h);
      const abort = new AbortController();
      const res = await post(h.url, call(20, "notify"), headers);
      await res.text();
      // The head goes out within a turn of the event loop, so the client sees the stream open before any answer.
      const pending = await post(h.url, call(21, "wait", { gate: "left" }), headers, abort.signal);
      expect(pending.status).toBe(200);
      await expect.poll(() => gates.has("left")).toBe(true);
      abort.abort();
      await expect(pending.text()).rejects.toThrow();
      // The server's side of the socket closes; then the tool answers into nothing.
      await until(() => h.left === 1, "the server to see the client leave");
      if (name === OURS) {
        // On purpose: with no event store the answer can never arrive, so the call is cancelled as a client's cancel would.
        await expect.poll(() => cancelledGates.has("left")).toBe(true);
        gates.get("left")!();
      } else {
        // The SDK's transport leaves the handler running; its late answer goes nowhere.
        expect(cancelledGates.has("left")).toBe(false);
        gates.get("left")!();
      }
      const next = await post(h.url, call(22, "echo", { text: "alive" }), headers);
      expect(sseEvents(await next.text()).map((e) => e.data)).toEqual([
        { jsonrpc: "2.0", id: 22, result: { content: [{ type: "text", text: "alive" }] } },
      ]);
    });
  });
});
