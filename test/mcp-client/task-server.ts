/**
 * @module test/mcp-client/task-server
 * A 2026-07-28 MCP server that answers `tools/call` with a task handle (the
 * `io.modelcontextprotocol/tasks` extension) when the request declares the
 * extension, built on the SDK v2 low-level `Server` + `createMcpHandler`
 * (legacy traffic served by its stateless fallback) and served over a real
 * loopback HTTP socket. `tasks/get`, `tasks/update` and `tasks/cancel` are
 * registered with explicit schemas (SDK 2.4.0 has no tasks runtime). Every
 * HTTP request is logged — JSON-RPC method, `Mcp-Name`, whether it declared
 * the extension, its params, a `performance.now()` stamp — so tests assert on
 * what the server saw, not on the client's clock.
 *
 * Each tool is a script of task states (see `TASK_TOOLS`); the tasks live in
 * the fixture, not in one MCP session, so a second client (a restart) finds
 * them.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import { createMcpHandler, ProtocolError, Server } from "@modelcontextprotocol/server";
import { z } from "zod";

/** The extension's name, as it appears in capabilities. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const CLIENT_CAPS = "io.modelcontextprotocol/clientCapabilities";

/** One HTTP request the server received. */
export interface Logged {
  /** The JSON-RPC method (`tools/call`, `tasks/get`, ...); `""` for a GET/DELETE. */
  readonly method: string;
  /** The `Mcp-Name` header, when sent. */
  readonly mcpName: string | undefined;
  /** The request's `_meta` client capabilities declared the tasks extension. */
  readonly declared: boolean;
  readonly params: Record<string, unknown>;
  /** `performance.now()` when the request arrived. */
  readonly at: number;
}

type Status = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** A task's state as the fixture keeps it. */
interface FixtureTask {
  readonly taskId: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  status: Status;
  statusMessage?: string;
  readonly createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs: number;
  polls: number;
  /** Keys answered through tasks/update, with their answers. */
  readonly answers: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

const FORM_QUESTION = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Which colour?",
    requestedSchema: { type: "object", properties: { colour: { type: "string" } }, required: ["colour"] },
  },
};

/**
 * The scripted tools. Each sees the task on every `tasks/get` (after `polls`
 * was counted) and moves it on. Arguments are echoed nowhere but results.
 *
 * - `slow`: working (status message "step N") for `steps` polls (default 3), then completed with `"done: <args.x>"`.
 * - `ask`: input_required with key `colour` until answered, re-sent for one more poll after the answer (eventual consistency), then completed with the answer.
 * - `ask_twice`: two questions, `colour` then `size`, each re-sent on every poll until answered.
 * - `fail`: working once, then failed with JSON-RPC error -32603 "disk on fire".
 * - `forever`: working until cancelled.
 * - `expiring`: working forever, ttlMs 300 (the client gives up after it).
 * - `shaped`: completed on the first poll with `structuredContent: { n: args.n }` (and `isError` when `args.isError`); listed with the output schema `SHAPED_OUTPUT`.
 */
const TASK_TOOLS: Record<string, (t: FixtureTask) => void> = {
  slow(t) {
    const steps = typeof t.args.steps === "number" ? t.args.steps : 3;
    if (t.polls >= steps) complete(t, `done: ${String(t.args.x)}`);
    else t.statusMessage = `step ${t.polls}`;
  },
  ask(t) {
    const answer = t.answers.colour as { action?: string; content?: { colour?: string } } | undefined;
    if (!answer) return void (t.status = "input_required");
    if (t.status === "input_required") return void (t.status = "working"); // one more poll still naming the question... see inputRequests()
    complete(t, `colour: ${answer.action === "accept" ? String(answer.content?.colour) : `(${String(answer.action)})`}`);
  },
  ask_twice(t) {
    const a = t.answers.colour as { content?: { colour?: string } } | undefined;
    const b = t.answers.size as { content?: { size?: string } } | undefined;
    if (a && b) complete(t, `colour: ${String(a.content?.colour)}, size: ${String(b.content?.size)}`);
    else t.status = "input_required";
  },
  fail(t) {
    if (t.polls >= 1) {
      t.status = "failed";
      t.error = { code: -32603, message: "disk on fire" };
    }
  },
  forever() {},
  expiring(t) {
    t.ttlMs = 300;
  },
  shaped(t) {
    complete(t, "shaped");
    t.result = { ...t.result, structuredContent: { n: t.args.n }, ...(t.args.isError ? { isError: true } : {}) };
  },
};

/** The output schema `shaped` is listed with: `{ n: number }`. */
const SHAPED_OUTPUT = { type: "object" as const, properties: { n: { type: "number" } }, required: ["n"] };

function complete(t: FixtureTask, text: string): void {
  t.status = "completed";
  t.statusMessage = undefined;
  t.result = { content: [{ type: "text", text }] };
}

/** The open questions a `tasks/get` names: the unanswered ones, and for `ask` the answered one once more (the spec lets updates be eventually consistent). */
function inputRequests(t: FixtureTask): Record<string, unknown> | undefined {
  if (t.tool === "ask" && (t.status === "input_required" || (t.status === "working" && t.answers.colour))) return { colour: FORM_QUESTION };
  if (t.tool === "ask_twice" && t.status === "input_required") {
    const open: Record<string, unknown> = {};
    if (!t.answers.colour) open.colour = FORM_QUESTION;
    if (!t.answers.size)
      open.size = {
        method: "elicitation/create",
        params: { mode: "form", message: "Which size?", requestedSchema: { type: "object", properties: { size: { type: "string" } } } },
      };
    return open;
  }
  return undefined;
}

/** Options of `startTaskServer`. */
export interface TaskServerOptions {
  /** The `pollIntervalMs` every task carries. Default 50. */
  readonly pollIntervalMs?: number;
  /** Answer tasks/update with this JSON-RPC error code instead of acknowledging (never by default). */
  readonly refuseUpdates?: boolean;
}

/** The running fixture: its URL, the request log and the tasks it holds. */
export interface TaskServer extends AsyncDisposable {
  readonly url: string;
  readonly log: Logged[];
  readonly tasks: Map<string, FixtureTask>;
  /** Requests of one method, in arrival order. */
  requests(method: string): Logged[];
  /** Resolves with the `n`th request of `method` (1-based) once it arrived (at once if it has). */
  arrival(method: string, n?: number): Promise<Logged>;
  close(): Promise<void>;
}

/** Start the fixture on 127.0.0.1 (an ephemeral port). */
export async function startTaskServer(options: TaskServerOptions = {}): Promise<TaskServer> {
  const pollIntervalMs = options.pollIntervalMs ?? 50;
  const log: Logged[] = [];
  const tasks = new Map<string, FixtureTask>();
  /** Whether the request being handled declared the extension, by JSON-RPC id (the handler cannot see the HTTP layer). */
  const declaredById = new Map<string | number, boolean>();
  const waiting = new Set<() => void>();
  const arrival = (method: string, n = 1): Promise<Logged> =>
    new Promise((resolve) => {
      const check = (): void => {
        const seen = log.filter((l) => l.method === method);
        if (seen.length < n) return;
        waiting.delete(check);
        resolve(seen[n - 1]!);
      };
      waiting.add(check);
      check();
    });

  const handle = (t: FixtureTask): Record<string, unknown> => ({
    taskId: t.taskId,
    status: t.status,
    ...(t.statusMessage !== undefined ? { statusMessage: t.statusMessage } : {}),
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttlMs: t.ttlMs,
    pollIntervalMs: t.pollIntervalMs,
  });
  const find = (taskId: string): FixtureTask => {
    const t = tasks.get(taskId);
    if (!t) throw new ProtocolError(-32602, `unknown task ${taskId}`);
    return t;
  };

  const makeServer = (): Server => {
    const server = new Server(
      { name: "task-fixture", version: "1.0.0" },
      { capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } } },
    );
    server.setRequestHandler("tools/list", () => ({
      tools: [...Object.keys(TASK_TOOLS), "quick"].map((name) => ({
        name,
        description: `task fixture tool ${name}`,
        inputSchema: { type: "object" as const },
        ...(name === "shaped" ? { outputSchema: SHAPED_OUTPUT } : {}),
      })),
    }));
    server.setRequestHandler("tools/call", (request, ctx) => {
      const { name } = request.params;
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      const script = TASK_TOOLS[name];
      if (!script || !declaredById.get(ctx.mcpReq.id))
        return { content: [{ type: "text" as const, text: `${name} answered in the call` }] };
      const now = new Date().toISOString();
      const t: FixtureTask = {
        taskId: randomUUID(),
        tool: name,
        args,
        status: "working",
        createdAt: now,
        lastUpdatedAt: now,
        ttlMs: 60_000,
        pollIntervalMs,
        polls: 0,
        answers: {},
      };
      if (name === "expiring") t.ttlMs = 300;
      tasks.set(t.taskId, t);
      return { resultType: "task", ...handle(t) } as never;
    });
    server.setRequestHandler("tasks/get", { params: z.looseObject({ taskId: z.string() }) }, (params) => {
      const t = find(params.taskId);
      if (t.status === "working" || t.status === "input_required") {
        t.polls++;
        TASK_TOOLS[t.tool]!(t);
        t.lastUpdatedAt = new Date().toISOString();
      }
      const open = inputRequests(t);
      return {
        ...handle(t),
        ...(open ? { inputRequests: open } : {}),
        ...(t.status === "completed" ? { result: t.result } : {}),
        ...(t.status === "failed" ? { error: t.error } : {}),
      } as never;
    });
    // The SDK lifts a request's `inputResponses` (a multi-round-trip name) out of params into ctx.mcpReq.
    server.setRequestHandler("tasks/update", { params: z.looseObject({ taskId: z.string() }) }, (params, ctx) => {
      if (options.refuseUpdates) throw new ProtocolError(-32603, "updates are refused by this fixture");
      const t = find(params.taskId);
      const responses = (ctx.mcpReq as { inputResponses?: Record<string, unknown> }).inputResponses ?? {};
      for (const [key, value] of Object.entries(responses)) if (!(key in t.answers)) t.answers[key] = value;
      return {} as never;
    });
    server.setRequestHandler("tasks/cancel", { params: z.looseObject({ taskId: z.string() }) }, (params) => {
      const t = find(params.taskId);
      if (t.status === "working" || t.status === "input_required") {
        t.status = "cancelled";
        t.statusMessage = "cancelled by the client";
      }
      return {} as never;
    });
    return server;
  };

  const mcp = createMcpHandler(() => makeServer());
  const http: HttpServer = createServer((req, res) => void serve(req, res));

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = performance.now();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    let msg: { id?: string | number; method?: string; params?: Record<string, unknown> } = {};
    try {
      msg = body ? (JSON.parse(body) as typeof msg) : {};
    } catch {
      // not JSON: the handler answers it
    }
    const params = msg.params ?? {};
    const caps = (params._meta as Record<string, { extensions?: Record<string, unknown> }> | undefined)?.[CLIENT_CAPS];
    const declared = caps?.extensions?.[TASKS_EXTENSION] !== undefined;
    const mcpName = req.headers["mcp-name"];
    log.push({ method: msg.method ?? "", mcpName: typeof mcpName === "string" ? mcpName : undefined, declared, params, at });
    for (const check of [...waiting]) check();
    if (msg.id !== undefined) declaredById.set(msg.id, declared);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const request = new Request(`http://127.0.0.1${req.url ?? "/"}`, {
      method: req.method,
      headers,
      ...(body && req.method !== "GET" ? { body } : {}),
    });
    const response = await mcp.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) Readable.fromWeb(response.body as never).pipe(res);
    else res.end();
  }

  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const port = (http.address() as { port: number }).port;
  const close = async (): Promise<void> => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    log,
    tasks,
    requests: (method) => log.filter((l) => l.method === method),
    arrival,
    close,
    [Symbol.asyncDispose]: close,
  };
}
