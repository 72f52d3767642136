/**
 * @module agents/gating
 * When a tool call must wait for a person, and how a `Decision` maps onto what happens next.
 */
import type { Autonomy } from "../context/run-context.js";
import type { Decision } from "./elicitation.js";

/**
 * Should this call ask a person first? `requiresApproval` is honoured under
 * every tier; under `"gated"` every key step (a side-effecting call) asks too.
 */
export function shouldGate(tool: { readonly requiresApproval: boolean }, options: { keyStep: boolean; autonomy: Autonomy }): boolean {
  return tool.requiresApproval || (options.autonomy === "gated" && options.keyStep);
}

/** A decision reduced to what the caller does: run (with which arguments) or refuse (with which words). */
export type GateOutcome =
  | { readonly allowed: true; readonly arguments: Record<string, unknown>; readonly modified: boolean }
  | { readonly allowed: false; readonly reason: string };

/**
 * Map a `Decision` onto an outcome. `approve` runs with the original
 * arguments; `modify` with an object `value` runs with the edited ones;
 * anything else is a refusal whose reason names who refused and why. Default deny.
 */
export function decisionOutcome(decision: Decision | undefined | null, original: Record<string, unknown>, toolName: string): GateOutcome {
  const kind = decision?.kind;
  if (kind === "approve") return { allowed: true, arguments: original, modified: false };
  if (kind === "modify" && decision!.value && typeof decision!.value === "object" && !Array.isArray(decision!.value)) {
    return { allowed: true, arguments: decision!.value as Record<string, unknown>, modified: true };
  }
  const who = decision?.actor ? ` by ${decision.actor}` : "";
  if (kind === "expired") {
    return { allowed: false, reason: `tool '${toolName}' was not run: the approval request expired${who} before anyone answered${decision?.note ? ` (${decision.note})` : ""}` };
  }
  const why = decision?.note ? `: ${decision.note}` : "";
  const what = kind === "reject" ? "rejected" : kind === "modify" ? "refused (modify without an object value)" : `refused (decision kind ${JSON.stringify(kind ?? null)})`;
  return { allowed: false, reason: `tool '${toolName}' was not run: ${what}${who}${why}` };
}
