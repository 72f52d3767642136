/**
 * @module test/mcp-serve/tasks-helpers
 * Raw 2026-07-28 requests for the MCP tasks tests (the SDK v2 `Client`
 * rejects a task result, typescript-sdk#2637): a `tools/call` declaring (or
 * not) the tasks extension, `tasks/*` with `Mcp-Name`, and polling a task to
 * a status (through `until`). The requests themselves are
 * bench/lib/task-rpc.ts (shared with the tasks benchmark).
 */
import { expect } from "vitest";
import { taskRpc, type Target } from "../../bench/lib/task-rpc.js";
import { untilValue } from "../helpers/wait.js";

export { EXT, callTool, envelope, rpc, taskRpc, type Rpc, type Target } from "../../bench/lib/task-rpc.js";

/** Polls `tasks/get` (through {@link untilValue}) until `done(task)`, and returns that task; fails after `limitMs` (scaled for the machine), naming the task and its last state. */
export async function pollTask(
  target: Target,
  taskId: string,
  done: (task: Record<string, unknown>) => boolean,
  limitMs = 10_000,
): Promise<Record<string, unknown>> {
  return untilValue(
    async () => {
      const r = await taskRpc(target, "get", taskId);
      expect(r.error, JSON.stringify(r.error)).toBeUndefined();
      return r.result!;
    },
    done,
    `task ${taskId} to reach the state`,
    limitMs,
  );
}
