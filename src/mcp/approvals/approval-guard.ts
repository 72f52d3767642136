/**
 * @module mcp/approvals/approval-guard
 * Server-side approval for served tools: a `guard` for `serveRegistry` that
 * asks a person before any `requiresApproval` tool runs — same decision table
 * and audit as `ApprovalServer`. It gives human approval to clients that
 * ignore the `requires_approval` declaration (Codex `exec` has no per-call prompt).
 */
import { toolFactsOf, type Asker } from "../../contracts/elicitation.js";
import type { RunContext } from "../../context/run-context.js";
import { isDeepStrictEqual } from "node:util";
import {
  answeredVerdict,
  errorVerdict,
  gateVerdict,
  notRunMessage,
  type GateCaller,
  type GateEventTarget,
  type GateRecord,
  type GateSubject,
} from "../../gate/index.js";
import { checkOptions, opt, type CheckedOptions } from "../../options/option-checks.js";
import { describeValue, pyStr } from "../../util/format.js";
import { ApprovalAudit } from "./approval-audit.js";
import { isJsonObject, SEAM_OPTION_RULES } from "./check-options.js";
import { wireJson } from "./wire-json.js";
import { taskAwareAsker } from "../serve/task-asking.js";

/** What a guard is asked about: one call to a served tool, before it runs. */
export interface ApprovalGuardRequest {
  /** The tool: `requiresApproval` decides; its description, caps and annotations are shown to the person (`toolFactsOf`). */
  readonly tool: { readonly requiresApproval: boolean };
  /** The tool's served name. */
  readonly name: string;
  /** `mcp__<server>__<tool>`: the name recorded in the audit (the one an `ApprovalServer` would see). */
  readonly qualifiedName: string;
  /** The call's arguments, as received. */
  readonly arguments: unknown;
  /** The call's context; its cancellation abandons a pending ask. */
  readonly ctx?: RunContext;
  /** The model's tool-use id, when the client sent one (`claudecode/toolUseId` in the call's `_meta`). */
  readonly toolUseId?: string;
}

/** A guard's answer: run (with these arguments, when a reviewer edited them) or refuse (with this message). */
export type ApprovalGuardResult =
  { readonly allowed: true; readonly arguments?: Record<string, unknown> } | { readonly allowed: false; readonly message: string };

/** Options of `approvalGuard`. */
export interface ApprovalGuardOptions {
  /** Asked before every call to a `requiresApproval` tool. */
  readonly asker: Asker;
  /** The deadline for an answer, enforced here; unset waits forever. */
  readonly timeoutMs?: number;
  /** Where `gate.check` goes; by default the call's own `ctx`. */
  readonly ctx?: GateEventTarget;
  /** A JSONL audit file (one fsync'd line per decision, before the call runs or is refused). */
  readonly auditPath?: string;
  /** An array to append decisions to (e.g. to share one audit list); a new one by default. */
  readonly decisions?: GateRecord[];
  /**
   * Asked once: the `ApprovalServer` (anything with its `decisions`) the
   * Claude CLI consults first, as its `--permission-prompt-tool`, for the
   * same calls. That seam asks the person — the CLI sends it the tool-use
   * id — and this guard takes its answer for a call whose `_meta` names the
   * same tool-use id (`claudecode/toolUseId`), the same tool
   * (`mcp__<server>__<tool>`) and the same arguments it allowed (edited ones
   * included): recorded here with that answer's facts and `questionId`,
   * `asked: false`. Any other call (no id, another id, other arguments, a
   * client that is not the CLI) is asked here as usual.
   */
  readonly answeredBy?: { readonly decisions: readonly GateRecord[] };
}

/** A `ToolGuard` for `serveRegistry({ guard })`, with its audit. */
export interface ApprovalGuard {
  (request: ApprovalGuardRequest): Promise<ApprovalGuardResult>;
  /** Every decision this guard made, in order (tools without `requiresApproval` pass unrecorded). */
  readonly decisions: readonly GateRecord[];
}

/** The options of `approvalGuard`, declared once. */
const APPROVAL_GUARD_OPTIONS = {
  ...SEAM_OPTION_RULES,
  timeoutMs: opt.timeoutMs(),
  decisions: opt.that<GateRecord[]>(Array.isArray, "an array to append decisions to, or be left unset"),
  answeredBy: opt.that<{ readonly decisions: readonly GateRecord[] }>(
    (v) => !!v && typeof v === "object" && Array.isArray((v as { decisions?: unknown }).decisions),
    "the ApprovalServer the Claude CLI asks first (anything with a decisions list), or be left unset",
  ),
} as const;

/**
 * Build a guard that asks `asker` before any tool with `requiresApproval`
 * runs; other tools pass untouched. There is no `autoAllow` and no tier: a
 * tool that requires approval is asked about under every tier. A denial's
 * message names who refused and why (`tool 'deploy' was not run: rejected by
 * ops: not today`); a timeout, an Asker that throws and a cancelled call are
 * denials too (sources `timeout`, `error`). The guard never throws. Throws
 * `OptionsError` at once for a bad option.
 */
export function approvalGuard(options: ApprovalGuardOptions): ApprovalGuard {
  return guardFromPolicy(checkOptions(options, "approvalGuard", APPROVAL_GUARD_OPTIONS));
}

/** `approvalGuard`'s options, checked: what `guardFromPolicy` takes. */
export type ApprovalGuardPolicy = CheckedOptions<typeof APPROVAL_GUARD_OPTIONS>;

/** `approvalGuard` on options already checked (bootstrap's entry: it checked them at decoration and scan). */
export function guardFromPolicy(policy: Partial<ApprovalGuardPolicy> & Pick<ApprovalGuardPolicy, "asker">): ApprovalGuard {
  const { asker, timeoutMs, answeredBy, ...recorded } = policy;
  const audit = new ApprovalAudit(recorded);
  const guard = async (request: ApprovalGuardRequest): Promise<ApprovalGuardResult> => {
    if (!request?.tool?.requiresApproval) return { allowed: true };
    const name = String(request.name);
    const caller = gateCallerOf(request.ctx);
    const subject: GateSubject = {
      tool: String(request.qualifiedName || name),
      arguments: isJsonObject(request.arguments) ? request.arguments : {},
      via: "mcp_guard",
      ...(caller ? { caller } : {}),
    };
    // No autoAllow and no tier here: a tool that requires approval is asked about under every tier.
    const earlier = answeredBy && request.toolUseId ? answeredAt(answeredBy.decisions, request.toolUseId, subject) : undefined;
    const verdict = earlier
      ? answeredVerdict({ ...subject, id: request.toolUseId }, earlier)
      : isJsonObject(request.arguments)
        ? await gateVerdict({
            ...subject,
            // A call that became an MCP task asks its client too (tasks/update); the first answer decides.
            asker: taskAwareAsker(asker, request.ctx),
            timeoutMs,
            requiresApproval: true,
            question: `${caller ? `Client ${pyStr(caller.clientId)}${caller.subject !== null ? ` (for ${pyStr(caller.subject)})` : ""}` : "A client"} asks to run ${pyStr(name)} (it requires approval) with ${wireJson(subject.arguments)}. Allow it?`,
            signal: request.ctx?.signal,
            toolFacts: toolFactsOf(request.tool),
          })
        : errorVerdict(subject, `the call's arguments must be a JSON object, got ${describeValue(request.arguments)}`, false);
    const final = await audit.record(subject, verdict, request.ctx);
    if (final.allowed) return final.modified ? { allowed: true, arguments: final.arguments } : { allowed: true };
    return { allowed: false, message: notRunMessage(name, final) };
  };
  return Object.defineProperty(guard, "decisions", { get: () => audit.decisions, enumerable: true }) as ApprovalGuard;
}

/** The hosted caller a call's context carries (set by `arc-agentkit/express`), as the audit records it. */
function gateCallerOf(ctx: RunContext | undefined): GateCaller | undefined {
  const c = ctx?.caller;
  if (c?.kind !== "hosted") return undefined;
  return { clientId: c.clientId, subject: c.subject ?? null };
}

/** The approval prompt's allowing record for this tool use, tool and arguments (newest first), if there is one. */
function answeredAt(decisions: readonly GateRecord[], toolUseId: string, subject: GateSubject): GateRecord | undefined {
  for (let i = decisions.length - 1; i >= 0; i--) {
    const d = decisions[i]!;
    if (d.id !== toolUseId || d.tool !== subject.tool || d.via !== "approval_server") continue;
    return d.allowed && isDeepStrictEqual(d.updatedArguments ?? d.arguments, subject.arguments) ? d : undefined;
  }
  return undefined;
}
