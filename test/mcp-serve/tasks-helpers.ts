/**
 * @module test/mcp-serve/tasks-helpers
 * Raw 2026-07-28 requests for the MCP tasks tests (the SDK v2 `Client`
 * rejects a task result, typescript-sdk#2637): a `tools/call` declaring (or
 * not) the tasks extension, `tasks/*` with `Mcp-Name`, and polling a task to
 * a status without fixed sleeps. The requests themselves are
 * bench/lib/task-rpc.ts (shared with the tasks benchmark).
 */
import { expect } from "vitest";
import { taskRpc, type Target } from "../../bench/lib/task-rpc.js";

export { EXT, callTool, envelope, rpc, taskRpc, type Rpc, type Target } from "../../bench/lib/task-rpc.js";

/** Poll `tasks/get` until `done(task)` (each poll waits for the next event-loop turn plus `pollMs`); fails after `limitMs`. */
export async function pollTask(
  target: Target,
  taskId: string,
  done: (task: Record<string, unknown>) => boolean,
  limitMs = 10_000,
  pollMs = 20,
): Promise<Record<string, unknown>> {
  const until = Date.now() + limitMs;
  for (;;) {
    const r = await taskRpc(target, "get", taskId);
    expect(r.error, JSON.stringify(r.error)).toBeUndefined();
    if (done(r.result!)) return r.result!;
    if (Date.now() > until) throw new Error(`task ${taskId} never reached the state; last: ${JSON.stringify(r.result)}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
