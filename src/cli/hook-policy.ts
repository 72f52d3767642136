/**
 * @module cli/hook-policy
 * The policy mapping of the hook: a `decide` policy's verdict as the Decision
 * an Asker would give, and the approval engine's verdict back as the hook's.
 */
import type { GateVerdict } from "../gate/index.js";
import type { HookVerdict } from "./hook-verdict.js";

const PASSED_ON = "handed to the Claude CLI's own permission rules";

/**
 * A `decide` policy's answer as the Decision an Asker would give (actor `"policy"`); a non-object is passed through for
 * the engine to refuse.
 */
export function policyDecision(v: unknown): unknown {
  if (!v || typeof v !== "object") return v;
  const { decision, reason, updatedInput } = v as HookVerdict;
  const note = typeof reason === "string" && reason !== "" ? reason : undefined;
  const base = { actor: "policy", ...(note ? { note } : {}) };
  if (decision === "allow")
    return updatedInput === undefined ? { kind: "approve", ...base } : { kind: "modify", value: updatedInput, ...base };
  if (decision === "deny") return { kind: "reject", ...base };
  if (decision === "ask" || decision === "defer") return { kind: decision, ...base, note: note ?? `${PASSED_ON} (${decision})` };
  return { kind: decision, ...base };
}

/**
 * The hook's verdict for what the gate settled. An `ask`/`defer` from a
 * `decide` policy (`fromPolicy`) is handed back to the CLI's own permission
 * flow (not allowed here); everything else not allowed is a deny with the reason.
 */
export function hookVerdictOf(v: GateVerdict, fromPolicy: boolean): HookVerdict {
  if (v.allowed) return { decision: "allow", ...(v.modified ? { updatedInput: v.arguments } : {}) };
  const passOn = v.source === "asker" && (v.kind === "ask" || v.kind === "defer") && fromPolicy;
  if (passOn) return { decision: v.kind as "ask" | "defer", ...(v.kind === "ask" ? { reason: v.reason } : {}) };
  return { decision: "deny", reason: v.reason };
}
