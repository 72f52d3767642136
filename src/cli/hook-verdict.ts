/**
 * @module cli/hook-verdict
 * A hook verdict and its encoding on the wire: what the Claude CLI reads back
 * from its `PreToolUse` hook.
 */
import { errorLine } from "../util/format.js";

/**
 * What the hook answers. `allow` runs the tool without the CLI's own
 * permission check (with `updatedInput` when given); `deny` stops it and the
 * model reads `reason`; `ask` hands it to the CLI's permission flow; `defer`
 * says nothing, so the CLI's own rules decide as if there were no hook.
 */
export interface HookVerdict {
  readonly decision: "allow" | "deny" | "ask" | "defer";
  readonly reason?: string;
  readonly updatedInput?: Record<string, unknown>;
}

/** The hook's JSON answer for `v` (`{}` for `defer`: the CLI decides as if there were no hook). */
export function answer(v: HookVerdict): Record<string, unknown> {
  if (v.decision === "defer") return {};
  return {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: v.decision,
      ...(v.reason ? { permissionDecisionReason: v.reason } : {}),
      ...(v.updatedInput ? { updatedInput: v.updatedInput } : {}),
    },
  };
}

/**
 * The wire text of a verdict. A verdict JSON cannot encode (a BigInt, a
 * circular `updatedInput`, a throwing getter) becomes a deny with the reason:
 * the CLI must hear an answer, and allowing what cannot be shown is not one.
 */
export function encodeVerdict(v: HookVerdict, tool: string): { text: string; verdict: HookVerdict } {
  try {
    const text = JSON.stringify(answer(v));
    if (typeof text === "string") return { text, verdict: v };
    throw new Error("the verdict encodes to nothing");
  } catch (err) {
    const reason = `tool '${tool}' was not run: the hook's verdict could not be encoded as JSON (${errorLine(err)}); denied`;
    const deny: HookVerdict = { decision: "deny", reason };
    return { text: JSON.stringify(answer(deny)), verdict: deny };
  }
}

/** The reason as a string the record can keep (a policy may hand back anything). */
export function reasonText(reason: unknown): string | null {
  if (reason === undefined || reason === null) return null;
  try {
    return typeof reason === "string" ? reason : String(reason);
  } catch {
    return "(a reason that cannot be shown)";
  }
}
