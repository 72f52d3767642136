/**
 * @module mcp/serve/task-asking
 * The seam between a served call that became an MCP task and the approval
 * guard: while a call's context has a task approval here, the guard's Asker
 * is raced against the task's `input_required` question (see
 * `served-tasks`). Keyed by the call's own context, so nothing correlates by
 * name; a context that is not a task's asks its Asker as always.
 */
import type { Asker, AskOptions, Decision, Elicitation } from "../../contracts/elicitation.js";
import type { RunContext } from "../../context/run-context.js";

/** Ask `asker` and the task's client at once; the first answer decides, the other side is withdrawn. */
export type TaskApproval = (asker: Asker, elicitation: Elicitation, options: AskOptions) => Promise<Decision>;

const approvals = new WeakMap<RunContext, TaskApproval>();

/** Route approvals asked under `ctx` through `approval` (until `ctx` is gone); returns the function that stops it. */
export function askThroughTask(ctx: RunContext, approval: TaskApproval): () => void {
  approvals.set(ctx, approval);
  return () => {
    if (approvals.get(ctx) === approval) approvals.delete(ctx);
  };
}

/**
 * The Asker a guard should ask for a call under `ctx`: `asker` itself, or,
 * when the call may become a task, one whose `ask()` also puts the question
 * to the task's client (an `elicitation/create` form with one boolean
 * `approve`).
 */
export function taskAwareAsker(asker: Asker, ctx: RunContext | undefined): Asker {
  const approval = ctx && approvals.get(ctx);
  if (!approval) return asker;
  const fallback = new AbortController().signal;
  return { ask: (elicitation, options) => approval(asker, elicitation, options ?? { signal: fallback, questionId: "" }) };
}
