/**
 * @module mcp/client/task-channel
 * What an `McpTask` sends through its `MCPClient`: `tasks/get`,
 * `tasks/update` and `tasks/cancel` on the client's live session, each with
 * `Mcp-Name: <taskId>` and the tasks extension declared (a server answers an
 * undeclared `tasks/*` with -32021), plus the client's answers to a task's
 * questions and its checks of a final result. Also the check of a stored
 * `McpTaskReference`.
 */
import type { Client } from "@modelcontextprotocol/client";
import { OptionsError } from "../../errors/options.error.js";
import type { McpTaskReference, TaskChannel } from "./mcp-task.js";
import type { ServerRequests } from "./server-requests.js";
import { ANY_OBJECT, parseTask } from "./task-codec.js";
import type { TaskOutputChecks } from "./tool-output.js";

/** What `taskChannel` needs of its client. */
export interface TaskChannelSource {
  /** `String(client.server)`. */
  readonly server: string;
  /** The session to send on (after a renewal, the new one). */
  live(): Promise<Client>;
  /** The `_meta` entry declaring the extension (the client's capabilities plus it). */
  declaration(): Record<string, unknown>;
  /** Each request's timeout in ms (undefined: the SDK's). */
  readonly timeout: number | undefined;
  readonly answers: ServerRequests;
  readonly outputs: TaskOutputChecks;
  /** The client's error for a failed request. */
  failure(request: string, err: unknown): Error;
}

type TaskMethod = "tasks/get" | "tasks/update" | "tasks/cancel";

/**
 * The channel of one client's tasks (see the module note). Every failure is the client's `failure()` (an
 * `McpRequestError` naming the method and the task).
 */
export function taskChannel(source: TaskChannelSource): TaskChannel {
  const { timeout } = source;
  const send = async (
    method: TaskMethod,
    params: { taskId: string } & Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> => {
    const session = await source.live();
    try {
      const request = { method, params: { ...params, _meta: source.declaration() } };
      return await session.request(request, ANY_OBJECT, {
        signal,
        ...(timeout !== undefined ? { timeout } : {}),
        headers: { "Mcp-Name": params.taskId },
      });
    } catch (err) {
      throw source.failure(`${method} '${params.taskId}'`, err);
    }
  };
  return {
    server: source.server,
    get: async (taskId, signal) => {
      const raw = await send("tasks/get", { taskId }, signal);
      try {
        return parseTask(raw);
      } catch (err) {
        throw source.failure(`tasks/get '${taskId}'`, err);
      }
    },
    update: async (taskId, inputResponses) => void (await send("tasks/update", { taskId, inputResponses })),
    cancel: async (taskId) => void (await send("tasks/cancel", { taskId })),
    answer: (request, asker, signal) => source.answers.answerInput(request, asker, signal),
    checkResult: (tool, result) => {
      try {
        source.outputs.checkResult(tool, result);
      } catch (err) {
        throw source.failure(`tools/call '${tool}'`, err); // as a call's own answer fails the SDK's check
      }
    },
    failure: (request, err) => source.failure(request, err),
  };
}

/**
 * A stored `McpTaskReference`, checked: plain JSON naming a task of `server`.
 *
 * @throws OptionsError (option `reference`) when it is not a reference, or names another server.
 */
export function checkReference(reference: McpTaskReference, server: string): McpTaskReference {
  const r = reference as Partial<McpTaskReference> | null;
  if (
    !r ||
    typeof r !== "object" ||
    r.kind !== "mcp-task" ||
    typeof r.taskId !== "string" ||
    r.taskId === "" ||
    typeof r.tool !== "string" ||
    typeof r.server !== "string"
  ) {
    throw new OptionsError(
      "MCPClient.resumeTask",
      "reference",
      `MCPClient.resumeTask: reference must be an McpTask's reference ({ kind: "mcp-task", server, tool, taskId, ` +
        `createdAt, ttlMs }), got ${JSON.stringify(reference)}`,
    );
  }
  if (r.server !== server)
    throw new OptionsError(
      "MCPClient.resumeTask",
      "reference",
      `MCPClient.resumeTask: the task ${r.taskId} was started on ${r.server}, and this client is connected to ${server}`,
    );
  return Object.freeze({
    kind: "mcp-task",
    server: r.server,
    tool: r.tool,
    taskId: r.taskId,
    createdAt: typeof r.createdAt === "string" ? r.createdAt : null,
    ttlMs: typeof r.ttlMs === "number" ? r.ttlMs : null,
  });
}
