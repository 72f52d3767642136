/**
 * @module bench/servers/http-server
 * One benchmark server per process: `node http-server.js <kind>`. Every kind
 * binds 127.0.0.1 on an ephemeral port, serves the same `echo` tool (or the
 * approval tool) behind the same kind of bearer check, prints `READY {url,
 * headers}`, answers `MEM` and `CPU` on stdin, and exits when stdin closes.
 *
 * Kinds: `agentkit` (serveRegistry), `sdk` (the SDK v1's low-level Server and
 * StreamableHTTPServerTransport on node:http, stateful, SSE responses — the
 * v1-era baseline), `sdk2` (the SDK v2's low-level Server and
 * `@modelcontextprotocol/node`'s NodeStreamableHTTPServerTransport, stateful,
 * SSE responses: the 2025-era baseline on v2), `sdk2-modern` (the SDK v2's
 * `createMcpHandler(factory, { legacy: "reject" })` through `toNodeHandler`
 * on node:http, the body parsed first and handed over: the 2026-07-28
 * baseline), `sdk-json` (the same with enableJsonResponse: SDK #2559),
 * `sdk-stateless`, `fastmcp` (FastMCP httpStream, stateful), `express` (a
 * bare express JSON echo, no MCP: the floor), `approvals` (ApprovalServer
 * with an Asker that approves at once), `sdk-approve` (the SDK server with an
 * `approve` tool that allows at once), `model-api` (a model API answering
 * every `POST /v1/messages` and `POST /v1/responses` with one canned streamed
 * text turn in that API's SSE format, bytes prepared once: the constant-cost
 * far end of the models suite; and `POST /steps/v1/messages`, a turn built
 * per request that calls a tool `note` until the task's step count is
 * reached, for the durable-runs suite, at once or, under
 * `/steps/ttft/<ms>/v1/messages`, after a time to first token of `<ms>`), `hosted` (arc-agentkit/express: mcpRouter on
 * an express app, stateless, both eras) and `sdk-express` (the raw SDK v2
 * server through its own express adapter: createMcpExpressApp,
 * requireBearerAuth, toNodeHandler(createMcpHandler(factory, { legacy:
 * "stateless" })) — the baseline of the hosted suite). Both hosted kinds take
 * the same `verifyAccessToken` (a digest compare of a random token).
 *
 * With `BENCH_HEAP_SNAPSHOT_DIR` set, each `MEM` also writes a heap snapshot
 * into that directory (after the GCs), to diff what a window of calls kept.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import { Socket, createServer as netServer } from "node:net";
import { join } from "node:path";
import { writeHeapSnapshot } from "node:v8";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  isInitializeRequest,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import {
  Server as Server2,
  createMcpHandler,
  isInitializeRequest as isInitializeRequest2,
  type CallToolResult as CallToolResult2,
} from "@modelcontextprotocol/server";
import { NodeStreamableHTTPServerTransport, toNodeHandler } from "@modelcontextprotocol/node";
import { RunContext, tool } from "arc-agentkit";
import { ApprovalServer, serveRegistry } from "arc-agentkit/mcp";
import { ECHO, ECHO_DESCRIPTION, ECHO_SCHEMA } from "./echo.js";

const kind = process.argv[2] ?? "";

// Count socket writes (both single and vectored writes end in _writeGeneric on
// Node 20), so a suite can report writes per response: an extra await on the
// tools/call path shows up as a second write per SSE response.
let socketWrites = 0;
const socketProto = Socket.prototype as unknown as { _writeGeneric: (...args: unknown[]) => unknown };
const writeGeneric = socketProto._writeGeneric;
socketProto._writeGeneric = function (this: unknown, ...args: unknown[]) {
  socketWrites++;
  return writeGeneric.apply(this, args);
};

/** The same bearer check for every hand-written contender: SHA-256 digests compared in constant time. */
function bearerCheck(token: string): (header: string | undefined) => boolean {
  const want = createHash("sha256").update(`Bearer ${token}`).digest();
  return (header) => header !== undefined && timingSafeEqual(createHash("sha256").update(header).digest(), want);
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch (err) {
        reject(err);
      }
    });
    req.on("error", reject);
  });
}

function listen(server: HttpServer): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: "127.0.0.1", port: 0 }, () => resolve((server.address() as { port: number }).port));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = netServer();
    s.once("error", reject);
    s.listen({ host: "127.0.0.1", port: 0 }, () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function sdkEchoServer(): Server {
  const s = new Server({ name: "bench", version: "1.0.0" }, { capabilities: { tools: {} } });
  s.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: ECHO, description: ECHO_DESCRIPTION, inputSchema: ECHO_SCHEMA as never }],
  }));
  s.setRequestHandler(CallToolRequestSchema, (req): CallToolResult => {
    const a = (req.params.arguments ?? {}) as { i?: unknown; text?: unknown };
    return { content: [{ type: "text", text: JSON.stringify({ i: a.i, text: a.text }) }] };
  });
  return s;
}

function sdkApproveServer(): Server {
  const s = new Server({ name: "bench_approvals", version: "1.0.0" }, { capabilities: { tools: {} } });
  s.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: "approve",
        description: "allow",
        inputSchema: { type: "object", properties: { tool_name: { type: "string" }, input: { type: "object" } } },
      },
    ],
  }));
  s.setRequestHandler(CallToolRequestSchema, (req): CallToolResult => {
    const input = (req.params.arguments as { input?: unknown } | undefined)?.input ?? {};
    return { content: [{ type: "text", text: JSON.stringify({ behavior: "allow", updatedInput: input }) }] };
  });
  return s;
}

/** The echo tool on the SDK v2's low-level Server, method-string handlers (what a v2 user writes). */
function sdk2EchoServer(): Server2 {
  const s = new Server2({ name: "bench", version: "1.0.0" }, { capabilities: { tools: {} } });
  s.setRequestHandler("tools/list", () => ({ tools: [{ name: ECHO, description: ECHO_DESCRIPTION, inputSchema: ECHO_SCHEMA as never }] }));
  s.setRequestHandler("tools/call", (req): CallToolResult2 => {
    const a = (req.params.arguments ?? {}) as { i?: unknown; text?: unknown };
    return { content: [{ type: "text", text: JSON.stringify({ i: a.i, text: a.text }) }] };
  });
  return s;
}

interface Running {
  url: string;
  headers: Record<string, string>;
  sessions: () => number;
  /** Composite signals still registered on the served run's signal (agentkit only; -1 elsewhere). */
  retained?: () => number;
  close: () => Promise<void>;
}

/** The raw SDK on node:http, written as a careful user writes it: bearer check, a session map, one Server per session. */
async function sdkHttp(mode: "sse" | "json" | "stateless", factory: () => Server = sdkEchoServer): Promise<Running> {
  const token = randomBytes(32).toString("base64url");
  const authorized = bearerCheck(token);
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      if (!authorized(req.headers.authorization)) {
        res.writeHead(401, { "WWW-Authenticate": "Bearer" }).end();
        return;
      }
      if (req.url !== "/mcp") {
        res.writeHead(404).end();
        return;
      }
      const sid = req.headers["mcp-session-id"] as string | undefined;
      if (req.method !== "POST") {
        const t = sid ? sessions.get(sid) : undefined;
        if (!t) return void res.writeHead(sid ? 404 : 400).end();
        return t.handleRequest(req, res);
      }
      const body = await readBody(req);
      if (mode === "stateless") {
        const server = factory();
        const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        res.on("close", () => {
          void t.close();
          void server.close();
        });
        await server.connect(t);
        return t.handleRequest(req, res, body);
      }
      if (sid) {
        const t = sessions.get(sid);
        if (!t) return void res.writeHead(404).end();
        return t.handleRequest(req, res, body);
      }
      if (!isInitializeRequest(body)) return void res.writeHead(400).end();
      const t = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        enableJsonResponse: mode === "json",
        onsessioninitialized: (id) => void sessions.set(id, t),
        onsessionclosed: (id) => void sessions.delete(id),
      });
      await factory().connect(t);
      await t.handleRequest(req, res, body);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  const port = await listen(http);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers: { Authorization: `Bearer ${token}` },
    sessions: () => sessions.size,
    close: async () => {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/** A node:http server that checks the bearer and the path, then hands the POST (body parsed) or GET/DELETE to `serve`. */
async function bearerHttp(
  serve: (req: IncomingMessage, res: ServerResponse, body: unknown) => Promise<void>,
  extraClose: () => Promise<void>,
): Promise<Running & { token: string }> {
  const token = randomBytes(32).toString("base64url");
  const authorized = bearerCheck(token);
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      if (!authorized(req.headers.authorization)) return void res.writeHead(401, { "WWW-Authenticate": "Bearer" }).end();
      if (req.url !== "/mcp") return void res.writeHead(404).end();
      await serve(req, res, req.method === "POST" ? await readBody(req) : undefined);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  const port = await listen(http);
  return {
    token,
    url: `http://127.0.0.1:${port}/mcp`,
    headers: { Authorization: `Bearer ${token}` },
    sessions: () => -1,
    close: async () => {
      await extraClose();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/** The SDK v2 on node:http, stateful: a session map, one low-level Server and one NodeStreamableHTTPServerTransport per session. */
async function sdk2Http(): Promise<Running> {
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const running = await bearerHttp(
    async (req, res, body) => {
      const sid = req.headers["mcp-session-id"] as string | undefined;
      if (sid) {
        const t = sessions.get(sid);
        if (!t) return void res.writeHead(404).end();
        return t.handleRequest(req, res, body);
      }
      if (req.method !== "POST" || !isInitializeRequest2(body)) return void res.writeHead(400).end();
      const t = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => void sessions.set(id, t),
        onsessionclosed: (id) => void sessions.delete(id),
      });
      await sdk2EchoServer().connect(t);
      await t.handleRequest(req, res, body);
    },
    async () => void (await Promise.allSettled([...sessions.values()].map((t) => t.close()))),
  );
  return { ...running, sessions: () => sessions.size };
}

/** The SDK v2's 2026-07-28 entry point on node:http: `createMcpHandler` (a fresh server per request) through `toNodeHandler`. */
async function sdk2Modern(): Promise<Running> {
  const handler = createMcpHandler(() => sdk2EchoServer(), { legacy: "reject" });
  const node = toNodeHandler(handler);
  return bearerHttp(
    (req, res, body) => node(req, res, body),
    () => handler.close(),
  );
}

async function agentkit(): Promise<Running> {
  const echo = tool(
    { name: ECHO, description: ECHO_DESCRIPTION, input: ECHO_SCHEMA, sideEffecting: false },
    (args: { i: number; text: string }) => ({
      i: args.i,
      text: args.text,
    }),
  );
  // A plain RunContext: no event recording, so nothing here grows per call but the server itself.
  const ctx = new RunContext();
  const spec = await serveRegistry([echo], { name: "bench", ctx });
  await spec.start();
  return {
    url: spec.url!,
    headers: { ...spec.authHeaders },
    sessions: () => -1,
    retained: () => dependants(ctx.signal),
    close: () => spec.stop(),
  };
}

/**
 * How many `AbortSignal.any()` composites `signal` still holds (Node's internal
 * `kDependantSignals` set; 0 when none was ever registered). On Node 20 a
 * composite over a long-lived signal stays registered after it is collected.
 */
function dependants(signal: AbortSignal): number {
  const key = Object.getOwnPropertySymbols(signal).find((s) => s.toString() === "Symbol(kDependantSignals)");
  const set = key ? (signal as unknown as Record<symbol, Set<unknown> | undefined>)[key] : undefined;
  return set ? set.size : 0;
}

/** The verifier both hosted kinds use: the bench token (digest compare), else a throw; `resource` is the served URL. */
function benchVerifier(
  token: string,
  resource: string,
): (t: string) => { token: string; clientId: string; scopes: string[]; expiresAt: number; resource: URL } {
  const authorized = bearerCheck(token);
  const expiresAt = Math.floor(Date.now() / 1000) + 86_400;
  const url = new URL(resource);
  return (t) => {
    if (!authorized(`Bearer ${t}`)) throw new Error("unknown token");
    return { token: t, clientId: "bench", scopes: [], expiresAt, resource: url };
  };
}

/** Listen `app` on `port` (chosen before: the resource URL names it). */
async function listenOn(handler: Parameters<typeof createServer>[1], port: number): Promise<HttpServer> {
  const http = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen({ host: "127.0.0.1", port }, () => resolve());
  });
  return http;
}

function closer(http: HttpServer, more: () => Promise<void> = async () => {}): () => Promise<void> {
  return async () => {
    await more();
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
  };
}

/** arc-agentkit/express: mcpRouter([echo]) mounted at /mcp of an express app (rate limit off: a bench is one token). */
async function hosted(): Promise<Running> {
  const { default: express } = await import("express");
  const { mcpRouter } = await import("arc-agentkit/express");
  const token = randomBytes(32).toString("base64url");
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const echo = tool(
    { name: ECHO, description: ECHO_DESCRIPTION, input: ECHO_SCHEMA, sideEffecting: false },
    (args: { i: number; text: string }) => ({ i: args.i, text: args.text }),
  );
  const router = mcpRouter([echo], {
    resource,
    authorizationServers: ["http://127.0.0.1:1"],
    verifyAccessToken: benchVerifier(token, resource),
    rateLimit: false,
  });
  await router.ready;
  const app = express();
  app.use("/mcp", router);
  const http = await listenOn(app, port);
  return { url: resource, headers: { Authorization: `Bearer ${token}` }, sessions: () => -1, close: closer(http, () => router.stop()) };
}

/** The raw SDK v2 server through its express adapter, as its docs wire it (stateless: both eras, no sessions). */
async function sdkExpress(): Promise<Running> {
  const { createMcpExpressApp, requireBearerAuth } = await import("@modelcontextprotocol/express");
  const { createMcpHandler, McpServer: V2Server } = await import("@modelcontextprotocol/server");
  const { toNodeHandler } = await import("@modelcontextprotocol/node");
  const { z } = await import("zod");
  const token = randomBytes(32).toString("base64url");
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const verify = benchVerifier(token, resource);
  const input = z.object({ i: z.number().int(), text: z.string() }).strict();
  const factory = (): InstanceType<typeof V2Server> => {
    const s = new V2Server({ name: "bench", version: "1.0.0" });
    s.registerTool(ECHO, { description: ECHO_DESCRIPTION, inputSchema: input }, ({ i, text }) => ({
      content: [{ type: "text", text: JSON.stringify({ i, text }) }],
    }));
    return s;
  };
  const node = toNodeHandler(createMcpHandler(factory, { legacy: "stateless" }));
  const app = createMcpExpressApp({ host: "127.0.0.1" });
  app.post(
    "/mcp",
    requireBearerAuth({
      verifier: { verifyAccessToken: async (t: string) => verify(t) },
      resourceMetadataUrl: `${resource}/.well-known/oauth-protected-resource`,
    }),
    (req, res) => {
      void node(req, res, req.body);
    },
  );
  const http = await listenOn(app, port);
  return { url: resource, headers: { Authorization: `Bearer ${token}` }, sessions: () => -1, close: closer(http) };
}

async function fastmcp(): Promise<Running> {
  const { FastMCP } = await import("fastmcp");
  const { z } = await import("zod");
  const token = randomBytes(32).toString("base64url");
  const authorized = bearerCheck(token);
  const silent = { debug() {}, error() {}, info() {}, log() {}, warn() {} };
  const server = new FastMCP({
    name: "bench",
    version: "1.0.0",
    logger: silent,
    authenticate: async (req: IncomingMessage) => {
      if (!authorized(req.headers.authorization)) throw new Response(null, { status: 401, statusText: "Unauthorized" });
      return {};
    },
  });
  server.addTool({
    name: ECHO,
    description: ECHO_DESCRIPTION,
    parameters: z.object({ i: z.number().int(), text: z.string() }).strict(),
    execute: async (args) => JSON.stringify({ i: args.i, text: args.text }),
  });
  const port = await freePort();
  await server.start({ transportType: "httpStream", httpStream: { port, host: "127.0.0.1", endpoint: "/mcp" } });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers: { Authorization: `Bearer ${token}` },
    sessions: () => server.sessions.length,
    close: () => server.stop(),
  };
}

async function expressEcho(): Promise<Running> {
  const { default: express } = await import("express");
  const token = randomBytes(32).toString("base64url");
  const authorized = bearerCheck(token);
  const app = express();
  app.use((req, res, next) => (authorized(req.headers.authorization) ? next() : void res.status(401).end()));
  app.use(express.json());
  app.post("/echo", (req, res) => void res.json(req.body));
  const http = createServer(app);
  const port = await listen(http);
  return {
    url: `http://127.0.0.1:${port}/echo`,
    headers: { Authorization: `Bearer ${token}` },
    sessions: () => -1,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

async function approvals(): Promise<Running> {
  const server = new ApprovalServer({ asker: { ask: async () => ({ kind: "approve" }) } });
  await server.start();
  return { url: server.url, headers: { ...server.authHeaders }, sessions: () => -1, close: () => server.stop() };
}

/** One server-sent event of a model API's stream (its `type` is the event's name). */
const ev = (event: string, data: object): string => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;

/** An Anthropic stream's opening event, of message `id`. */
const messageStart = (id: string): string =>
  ev("message_start", {
    message: {
      id,
      type: "message",
      role: "assistant",
      model: "m",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  });

/**
 * The Anthropic turn `POST /steps/v1/messages` streams for `body` (a Messages request): while the task (the first user
 * message, `note <N>`) asks for more steps than the assistant messages so far, a `tool_use` of `note` with `{ n }` (n:
 * the turn's number), else the text `done after <N> steps`. Benchmark 11 runs agents against it.
 */
function stepTurn(body: string): string {
  const request = JSON.parse(body) as { messages?: Array<{ role: string; content: unknown }> };
  const messages = request.messages ?? [];
  const first = messages.find((m) => m.role === "user")?.content;
  const text = typeof first === "string" ? first : Array.isArray(first) ? String((first[0] as { text?: unknown })?.text ?? "") : "";
  const steps = Number(/^note (\d+)$/.exec(text)?.[1] ?? 0);
  const n = messages.filter((m) => m.role === "assistant").length + 1;
  const block =
    n <= steps
      ? [
          ev("content_block_start", { index: 0, content_block: { type: "tool_use", id: `toolu_${n}`, name: "note", input: {} } }),
          ev("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify({ n }) } }),
        ]
      : [
          ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
          ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: `done after ${steps} steps` } }),
        ];
  return [
    messageStart(`msg_s${n}`),
    ...block,
    ev("content_block_stop", { index: 0 }),
    ev("message_delta", { delta: { stop_reason: n <= steps ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } }),
    ev("message_stop", {}),
  ].join("");
}

/**
 * `POST /steps/v1/messages`, or `POST /steps/ttft/<ms>/v1/messages`: the same turn after a think time of `<ms>` (the
 * model's time to first token: nothing is sent, not even the response's head, until it has passed).
 */
const STEPS_PATH = /^\/steps(?:\/ttft\/(\d{1,5}))?\/v1\/messages$/;

/** One SSE body per API, prepared once: a streamed two-delta text turn. */
function modelTurns(): Record<string, string> {
  const anthropic = [
    messageStart("msg_b"),
    ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    ev("ping", {}),
    ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Hello, " } }),
    ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: "world." } }),
    ev("content_block_stop", { index: 0 }),
    ev("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } }),
    ev("message_stop", {}),
  ].join("");
  const msg = {
    id: "msg_o",
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: "Hello, world.", annotations: [] }],
  };
  const base = { item_id: "msg_o", output_index: 0, content_index: 0 };
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  const openai = [
    ev("response.created", { response: { id: "resp_b", object: "response", status: "in_progress", model: "m", output: [] } }),
    ev("response.output_item.added", { output_index: 0, item: { ...msg, status: "in_progress", content: [] } }),
    ev("response.output_text.delta", { ...base, delta: "Hello, " }),
    ev("response.output_text.delta", { ...base, delta: "world." }),
    ev("response.output_item.done", { output_index: 0, item: msg }),
    ev("response.completed", { response: { id: "resp_b", object: "response", status: "completed", model: "m", output: [msg], usage } }),
  ].join("");
  return { "/v1/messages": anthropic, "/v1/responses": openai };
}

async function modelApi(): Promise<Running> {
  const bodies = modelTurns();
  const http = createServer((req, res) => {
    const steps = req.method === "POST" ? STEPS_PATH.exec(req.url ?? "") : null;
    if (steps) {
      const ttftMs = Number(steps[1] ?? 0);
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const answer = (): void =>
          void res
            .writeHead(200, { "content-type": "text/event-stream", "request-id": "req_s", "x-request-id": "req_s" })
            .end(stepTurn(Buffer.concat(chunks).toString("utf8")));
        if (ttftMs > 0) setTimeout(answer, ttftMs);
        else answer();
      });
      return;
    }
    req.resume();
    req.on("end", () => {
      const body = bodies[req.url ?? ""];
      if (req.method !== "POST" || body === undefined) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "text/event-stream", "request-id": "req_b", "x-request-id": "req_b" }).end(body);
    });
  });
  // A client's idle keep-alive socket is not closed under it between runs (a store's work can leave it idle for
  // seconds; with Node's 5 s default a request raced the close: "Connection error").
  http.keepAliveTimeout = 120_000;
  const port = await listen(http);
  return {
    url: `http://127.0.0.1:${port}`,
    headers: {},
    sessions: () => -1,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

async function main(): Promise<void> {
  let running: Running;
  switch (kind) {
    case "agentkit":
      running = await agentkit();
      break;
    case "sdk":
      running = await sdkHttp("sse");
      break;
    case "sdk2":
      running = await sdk2Http();
      break;
    case "sdk2-modern":
      running = await sdk2Modern();
      break;
    case "sdk-json":
      running = await sdkHttp("json");
      break;
    case "sdk-stateless":
      running = await sdkHttp("stateless");
      break;
    case "sdk-approve":
      running = await sdkHttp("sse", sdkApproveServer);
      break;
    case "fastmcp":
      running = await fastmcp();
      break;
    case "express":
      running = await expressEcho();
      break;
    case "approvals":
      running = await approvals();
      break;
    case "model-api":
      running = await modelApi();
      break;
    case "hosted":
      running = await hosted();
      break;
    case "sdk-express":
      running = await sdkExpress();
      break;
    default:
      throw new Error(`bench http-server: unknown kind ${JSON.stringify(kind)}`);
  }
  const gc = (globalThis as { gc?: () => void }).gc;
  // BENCH_HEAP_SNAPSHOT_DIR: each MEM also writes a heap snapshot there (after the GCs, before reading the figures' line), to diff what a run of calls retained.
  const snapshotDir = process.env["BENCH_HEAP_SNAPSHOT_DIR"];
  let snapshots = 0;
  let buffered = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const cmd = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (cmd === "MEM") {
        gc?.();
        gc?.();
        const m = process.memoryUsage();
        if (snapshotDir) writeHeapSnapshot(join(snapshotDir, `${kind}-${process.pid}-${++snapshots}.heapsnapshot`));
        process.stdout.write(
          `MEM ${JSON.stringify({ heapUsed: m.heapUsed, rss: m.rss, external: m.external, arrayBuffers: m.arrayBuffers, sessions: running.sessions(), socketWrites, retained: running.retained?.() ?? -1 })}\n`,
        );
      } else if (cmd === "CPU") {
        const c = process.cpuUsage();
        process.stdout.write(`CPU ${c.user + c.system}\n`);
      }
    }
  });
  const quit = (): void => {
    void running.close().finally(() => process.exit(0));
  };
  process.stdin.on("end", quit);
  process.on("SIGTERM", quit);
  process.stdout.write(`READY ${JSON.stringify({ url: running.url, headers: running.headers })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench http-server ${kind}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
