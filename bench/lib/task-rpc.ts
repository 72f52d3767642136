/**
 * @module bench/lib/task-rpc
 * Raw 2026-07-28 requests for MCP tasks, for the tests and the tasks
 * benchmark (the SDK v2 `Client` rejects a task result, typescript-sdk#2637):
 * a `tools/call` declaring (or not) the tasks extension, and `tasks/*` with
 * `Mcp-Name`.
 */

/** The extension's identifier. */
export const EXT = "io.modelcontextprotocol/tasks";

/** Where and how to reach a served module. */
export interface Target {
  readonly url: string;
  readonly headers: Record<string, string>;
}

/** A JSON-RPC answer as the tests read it. */
export interface Rpc {
  readonly status: number;
  /** The response's headers (behind the test nginx, `x-upstream` names the process that served it). */
  readonly headers?: Headers;
  readonly result?: Record<string, unknown> & {
    resultType?: string;
    taskId?: string;
    status?: string;
    content?: Array<{ text: string }>;
    isError?: boolean;
  };
  readonly error?: { code: number; message: string; data?: Record<string, unknown> };
}

/** The 2026-07-28 `_meta` envelope; `declare` puts the tasks extension in the client capabilities. */
export function envelope(declare: boolean, capabilities: Record<string, unknown> = { elicitation: { form: {} } }): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "tasks-test", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": declare ? { ...capabilities, extensions: { [EXT]: {} } } : capabilities,
  };
}

let nextId = 1;

/** One raw 2026-07-28 request: `method` with `params` (the envelope added), `Mcp-Name` set to `name` when given. */
export async function rpc(
  target: Target,
  method: string,
  params: Record<string, unknown>,
  options: { declare?: boolean; name?: string; headers?: Record<string, string> } = {},
): Promise<Rpc> {
  const res = await fetch(target.url, {
    method: "POST",
    headers: {
      ...target.headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(options.name !== undefined ? { "mcp-name": options.name } : {}),
      ...options.headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: envelope(options.declare ?? true) } }),
  });
  const text = await res.text();
  const messages = text.startsWith("{")
    ? [JSON.parse(text)]
    : text
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => JSON.parse(l.slice(6)));
  const last = (messages.at(-1) ?? {}) as Omit<Rpc, "status">;
  return { status: res.status, headers: res.headers, ...last };
}

/** `tools/call` of `name` with `args` on 2026-07-28. */
export function callTool(target: Target, name: string, args: Record<string, unknown> = {}, declare = true): Promise<Rpc> {
  return rpc(target, "tools/call", { name, arguments: args }, { declare, name });
}

/** `tasks/<verb>` for `taskId`, with `Mcp-Name` = the id. */
export function taskRpc(
  target: Target,
  verb: "get" | "update" | "cancel",
  taskId: string,
  more: Record<string, unknown> = {},
  declare = true,
): Promise<Rpc> {
  return rpc(target, `tasks/${verb}`, { taskId, ...more }, { declare, name: taskId });
}
