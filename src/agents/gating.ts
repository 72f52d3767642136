/**
 * @module agents/gating
 * When a tool call must wait for a person, and how a `Decision` maps onto what happens next.
 */
import type { Autonomy } from "../context/run-context.js";
import type { Decision } from "./elicitation.js";
import { describeValue } from "../util/format.js";

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
 * anything else is a refusal whose reason names who refused (the `actor`, or
 * "the reviewer") and why (the `note`). Default deny: something that is not a
 * Decision at all is a refusal too.
 *
 * Reasons read `tool 'deploy' was not run: rejected by ci: /etc is out of scope`,
 * `... the approval request expired before anyone answered (reported by pager)`,
 * `... refused by ci (decision kind string "maybe")`.
 */
export function decisionOutcome(decision: Decision | undefined | null, original: Record<string, unknown>, toolName: string): GateOutcome {
  const head = `tool '${toolName}' was not run: `;
  if (!decision || typeof decision !== "object") {
    return { allowed: false, reason: `${head}the Asker returned ${describeValue(decision)} instead of a Decision` };
  }
  const kind: unknown = decision.kind;
  if (kind === "approve") return { allowed: true, arguments: original, modified: false };
  const value = decision.value;
  if (kind === "modify" && value && typeof value === "object" && !Array.isArray(value)) {
    return { allowed: true, arguments: value as Record<string, unknown>, modified: true };
  }
  const actor = typeof decision.actor === "string" && decision.actor !== "" ? decision.actor : undefined;
  const note = typeof decision.note === "string" && decision.note !== "" ? decision.note : undefined;
  const who = actor ?? "the reviewer";
  const why = note ? `: ${note}` : "";
  if (kind === "expired") {
    const detail = [actor ? `reported by ${actor}` : "", note ?? ""].filter(Boolean).join(": ");
    return { allowed: false, reason: `${head}the approval request expired before anyone answered${detail ? ` (${detail})` : ""}` };
  }
  if (kind === "reject") return { allowed: false, reason: `${head}rejected by ${who}${why}` };
  if (kind === "modify") return { allowed: false, reason: `${head}'modify' from ${who} carried no object value to run with${why}` };
  return { allowed: false, reason: `${head}refused by ${who} (decision kind ${describeValue(kind)})${why}` };
}
