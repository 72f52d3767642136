/**
 * @module bench/servers/tasks-module
 * The @McpServer module the tasks benchmark hosts with `agentkit host`:
 * `quick({ i })` answers at once as a task (`task: "required"`) and
 * `quick_inline({ i })` is the same tool answered in the call (`task:
 * "never"`); `hold({ i })` is a task that runs until it is cancelled (an open
 * task); `heap()` runs `global.gc()` (the process needs `--expose-gc`) and
 * answers the heap in use, in bytes.
 */
import "reflect-metadata";
import { tool } from "arc-agentkit";
import { McpServer } from "arc-agentkit/mcp";

const I = { type: "object", properties: { i: { type: "integer" } }, required: ["i"], additionalProperties: false } as const;

const quick = tool(
  { name: "quick", description: "Answer at once, as a task.", input: I, task: "required", sideEffecting: false },
  ({ i }: { i: number }) => `done ${i}`,
);
const quickInline = tool(
  { name: "quick_inline", description: "Answer at once, in the call.", input: I, task: "never", sideEffecting: false },
  ({ i }: { i: number }) => `done ${i}`,
);
const hold = tool(
  { name: "hold", description: "Run until cancelled, as a task.", input: I, task: "required", sideEffecting: false },
  (_args, ctx) => new Promise<string>((_resolve, reject) => void ctx.onCancel(reject)),
);
const heap = tool({ name: "heap", description: "The heap in use after a full GC, in bytes.", task: "never", sideEffecting: false }, () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("heap: run the host with node --expose-gc");
  gc();
  gc();
  return String(process.memoryUsage().heapUsed);
});

/** The benchmark's module. */
export class TasksBenchModule {}
McpServer({ name: "tasks-bench", tools: [quick, quickInline, hold, heap] })(TasksBenchModule);
