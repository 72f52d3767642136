/**
 * @module mcp/client/task-codec
 * The smallest codec around the client SDK's refusal of MCP tasks
 * (`io.modelcontextprotocol/tasks`, 2026-07-28). SDK 2.4.0 has no tasks
 * runtime: `Client.callTool` rejects a `resultType: "task"` answer with
 * `UNSUPPORTED_RESULT_TYPE` (typescript-sdk#2637). This file
 *
 * - builds the per-request declaration (`_meta` client capabilities with the
 *   extension), sent only on 2026-07-28 and only where the client asks;
 * - watches a session's transport (its public `send` / `onmessage`, after
 *   `connect`) and turns the task handle answering a request *that declared
 *   the extension* into a complete result carrying the handle under a
 *   private `_meta` key, which `MCPClient` reads back (`taskHandleOf`) before
 *   anything else sees the result; a task sent to a request that did not
 *   declare the extension is left to the SDK, which refuses it;
 * - parses `tasks/get` answers.
 *
 * `test/mcp-client/tasks-sdk-gap.test.ts` fails the day the SDK ships its own
 * tasks runtime, so the package can move to it and drop this file.
 */
import type { CallToolResult, ClientCapabilities, JSONRPCMessage, StandardSchemaV1, Transport } from "@modelcontextprotocol/client";

/** The extension's identifier. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Where a 2026-07-28 request carries the client's capabilities (the SDK's `CLIENT_CAPABILITIES_META_KEY`). */
const CLIENT_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities";

/** The private `_meta` key a rewritten task handle travels under, from the transport to `MCPClient`. */
const HANDLE_KEY = "arc-agentkit/taskHandle";

/** A task's status (the extension's five). */
export type McpTaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

const STATUSES: ReadonlySet<string> = new Set<McpTaskStatus>(["working", "input_required", "completed", "failed", "cancelled"]);

/** True for a status a task never leaves. */
export function isTerminal(status: McpTaskStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

/** A task as the server last described it (a `CreateTaskResult` or a `tasks/get` answer). */
export interface TaskSnapshot {
  readonly taskId: string;
  readonly status: McpTaskStatus;
  readonly statusMessage?: string;
  readonly createdAt?: string;
  readonly lastUpdatedAt?: string;
  /** `null`: no limit. */
  readonly ttlMs: number | null;
  readonly pollIntervalMs?: number;
  /** Open questions by key (`input_required`). */
  readonly inputRequests?: Readonly<Record<string, { readonly method: string; readonly params?: Record<string, unknown> }>>;
  /** The final result (`completed`). */
  readonly result?: CallToolResult;
  /** The JSON-RPC error (`failed`). */
  readonly error?: { readonly code?: number; readonly message?: string; readonly data?: unknown };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Read a task description from the wire. Unknown fields are ignored.
 *
 * @throws Error naming the field when it is not a task (no `taskId`, an unknown `status`).
 */
export function parseTask(raw: unknown): TaskSnapshot {
  if (!isObject(raw)) throw new Error("the server's task is not an object");
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs, inputRequests, result, error } = raw;
  if (typeof taskId !== "string" || taskId === "") throw new Error(`the server's task has no taskId (got ${JSON.stringify(taskId)})`);
  if (typeof status !== "string" || !STATUSES.has(status))
    throw new Error(`task ${taskId} has an unknown status ${JSON.stringify(status)}`);
  const requests: Record<string, { method: string; params?: Record<string, unknown> }> = {};
  if (isObject(inputRequests)) {
    for (const [key, r] of Object.entries(inputRequests))
      if (isObject(r) && typeof r.method === "string")
        requests[key] = { method: r.method, ...(isObject(r.params) ? { params: r.params } : {}) };
  }
  return {
    taskId,
    status: status as McpTaskStatus,
    ...(typeof statusMessage === "string" ? { statusMessage } : {}),
    ...(typeof createdAt === "string" ? { createdAt } : {}),
    ...(typeof lastUpdatedAt === "string" ? { lastUpdatedAt } : {}),
    ttlMs: typeof ttlMs === "number" && Number.isFinite(ttlMs) && ttlMs >= 0 ? ttlMs : null,
    ...(typeof pollIntervalMs === "number" && Number.isFinite(pollIntervalMs) && pollIntervalMs >= 0 ? { pollIntervalMs } : {}),
    ...(Object.keys(requests).length ? { inputRequests: requests } : {}),
    ...(isObject(result) ? { result: { content: [], ...result } as CallToolResult } : {}),
    ...(isObject(error) ? { error: error as TaskSnapshot["error"] } : {}),
  };
}

/**
 * The `_meta` entry that declares the extension on one request: the client's
 * own capabilities plus `extensions["io.modelcontextprotocol/tasks"] = {}`.
 * The SDK's envelope puts a request's own `_meta` keys over its defaults, so
 * this replaces the capabilities of that request only.
 */
export function declareTasks(capabilities: ClientCapabilities): Record<string, unknown> {
  const extensions = (capabilities as { extensions?: Record<string, unknown> }).extensions ?? {};
  return { [CLIENT_CAPABILITIES_META]: { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } } };
}

function declares(message: { params?: unknown }): boolean {
  const meta = isObject(message.params) ? message.params._meta : undefined;
  const caps = isObject(meta) ? meta[CLIENT_CAPABILITIES_META] : undefined;
  const extensions = isObject(caps) ? caps.extensions : undefined;
  return isObject(extensions) && TASKS_EXTENSION in extensions;
}

/** Transports already watched (a session is watched once). */
const watched = new WeakSet<Transport>();

/**
 * Watch `transport` (after the SDK session connected over it): remember the
 * id of each `tools/call` that declared the extension, and rewrite the task
 * handle that answers one into a complete `isError` result whose only
 * meaning is the handle under a private key (see the module note). Both
 * hooks are the transport's public members; anything else passes unchanged.
 */
export function watchTaskHandles(transport: Transport): void {
  if (watched.has(transport)) return;
  watched.add(transport);
  const declared = new Set<string | number>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const m = message as { method?: string; id?: string | number; params?: unknown };
    if (m.method === "tools/call" && m.id !== undefined && declares(m)) declared.add(m.id);
    return send(message, options);
  };
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    const m = message as { id?: string | number; result?: unknown; error?: unknown; method?: string };
    if (m.method === undefined && m.id !== undefined && declared.delete(m.id) && isObject(m.result) && m.result.resultType === "task") {
      const handle: Record<string, unknown> = { ...m.result };
      delete handle.resultType;
      delete handle._meta;
      const rewritten = { resultType: "complete", isError: true, content: [], _meta: { [HANDLE_KEY]: handle } };
      deliver({ ...(message as object), result: rewritten } as unknown as JSONRPCMessage, extra);
      return;
    }
    deliver(message, extra);
  };
}

/** The task handle a watched transport put in `result`, parsed; `undefined` for an ordinary result. */
export function taskHandleOf(result: CallToolResult): TaskSnapshot | undefined {
  const handle = result._meta?.[HANDLE_KEY];
  return handle === undefined ? undefined : parseTask(handle);
}

/** The result schema of `tasks/*` requests sent through `Client.request`: any object (parsed by `parseTask` after). */
export const ANY_OBJECT: StandardSchemaV1<Record<string, unknown>> = {
  "~standard": {
    version: 1,
    vendor: "arc-agentkit",
    validate: (value) => (isObject(value) ? { value } : { issues: [{ message: "expected an object" }] }),
  },
};
