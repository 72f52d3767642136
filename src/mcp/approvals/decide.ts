/**
 * @module mcp/approvals/decide
 * The approval decision table — the one both `ApprovalServer` and
 * `approvalGuard` use. Everything here settles to a verdict and never throws:
 * it runs inside MCP request handlers, where an exception reaches the Claude
 * CLI as a malformed result (a "broken permission system", not a denial). The
 * default is deny.
 */
import { randomUUID } from "node:crypto";
import type { Asker, Decision, Elicitation } from "../../agents/elicitation.js";
import { decisionOutcome } from "../../agents/gating.js";
import type { Autonomy } from "../../context/run-context.js";
import { describeValue, errorLine, seconds } from "../../util/format.js";
import { getLogger } from "../../util/logger.js";
import type { ApprovalSource } from "./approval-decision.js";

/** One permission prompt: which tool wants to run, with which arguments. */
export interface ApprovalPrompt {
  /** The tool's name as the asking side spells it (`Write`, `mcp__engine__deploy`). */
  readonly tool: string;
  /** The arguments it would run with (a JSON object). */
  readonly arguments: Record<string, unknown>;
  /** The model's tool-use id, when the asking side sent one. */
  readonly toolUseId?: string;
}

/**
 * The opt-in filter on `autoAllow`: return `true` to keep a pre-approved tool
 * pre-approved for these arguments. Anything but `true` — and a throw — sends
 * the prompt to the Asker. It can only subtract: it is never consulted for a
 * tool that is not in `autoAllow`.
 */
export type AutoAllowWhen = (tool: string, args: Record<string, unknown>) => boolean;

/** What `decide()` needs to settle a prompt. */
export interface ApprovalPolicy {
  /** The human transport asked when a prompt is neither pre-approved nor ungated. */
  readonly asker: Asker;
  /** The server's deadline for an answer; `undefined` waits forever. */
  readonly timeoutMs?: number;
  /** Tool names approved without asking (names only; arguments are not consulted). */
  readonly autoAllow?: ReadonlySet<string>;
  /** Narrows `autoAllow` by argument; see `AutoAllowWhen`. */
  readonly autoAllowWhen?: AutoAllowWhen;
  /** `"gated"` (default) asks; `"auto"` allows what `autoAllow` did not settle. */
  readonly autonomy?: Autonomy;
  /** `Elicitation.source`: who is asking (`"approval_server"`, `"mcp_guard"`). */
  readonly origin?: string;
  /** The question put to the person; a generic one when absent. */
  readonly question?: string;
  /** Aborting it abandons a pending ask: a deny, source `error`, reason from `signal.reason`. */
  readonly signal?: AbortSignal;
}

/** The settled outcome of one prompt. */
export interface ApprovalVerdict {
  readonly allowed: boolean;
  readonly source: ApprovalSource;
  /** True whenever the Asker was invoked, whatever came of it. */
  readonly asked: boolean;
  /** Who decided, when a person did and said who. */
  readonly actor: string | null;
  /** Why. For a denial, the text the asking side reads (a reviewer's note verbatim, when there is one). */
  readonly reason: string;
  /** For a denial: who refused and why, as one phrase (`rejected by ops: not today`). Equals `reason` otherwise. */
  readonly refusal: string;
  /** What runs when allowed: the original arguments, or a `modify` answer's edited ones. */
  readonly arguments: Record<string, unknown>;
  /** True when a `modify` answer replaced the arguments. */
  readonly modified: boolean;
}

/** The largest delay `setTimeout` honours (about 24.8 days). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * Check a `timeoutMs` option where it is given: `undefined` (forever) or a
 * finite number in (0, MAX_TIMEOUT_MS]. Throws a `TypeError` naming `where`.
 */
export function checkTimeoutMs(timeoutMs: unknown, where: string): number | undefined {
  if (timeoutMs === undefined) return undefined;
  if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new TypeError(
      `${where}: timeoutMs must be a positive number of milliseconds up to ${MAX_TIMEOUT_MS}, or left unset to wait forever; got ${describeValue(timeoutMs)}`,
    );
  }
  return timeoutMs;
}

/**
 * Is this prompt pre-approved? `tool` must be in `autoAllow`, and then
 * `autoAllowWhen` (when set) must return exactly `true`. A predicate that
 * throws is logged and counts as "no": a bug in a filter costs a prompt, not
 * an approval. Never throws.
 */
export function isAutoAllowed(prompt: ApprovalPrompt, autoAllow: ReadonlySet<string> | undefined, autoAllowWhen: AutoAllowWhen | undefined): boolean {
  if (!autoAllow || !autoAllow.has(prompt.tool)) return false;
  if (!autoAllowWhen) return true;
  try {
    return autoAllowWhen(prompt.tool, prompt.arguments) === true;
  } catch (err) {
    try {
      getLogger().warn(`approvals: autoAllowWhen threw for '${prompt.tool}' (${errorLine(err)}); asking the Asker instead`);
    } catch {
      // a broken logger must not turn into a broken permission system
    }
    return false;
  }
}

function verdict(v: Omit<ApprovalVerdict, "refusal" | "arguments" | "modified"> & Partial<ApprovalVerdict>, prompt: ApprovalPrompt): ApprovalVerdict {
  return Object.freeze({ refusal: v.reason, arguments: prompt.arguments, modified: false, ...v });
}

/** A denial that is not a policy decision (source `error`). */
export function errorVerdict(prompt: ApprovalPrompt, why: string, asked: boolean): ApprovalVerdict {
  return verdict({ allowed: false, source: "error", asked, actor: null, reason: `approval for '${prompt.tool}' failed: ${why}; denied (not a policy decision)` }, prompt);
}

/** The server's own deadline fired (source `timeout`). */
export function timeoutVerdict(prompt: ApprovalPrompt, timeoutMs: number): ApprovalVerdict {
  return verdict(
    {
      allowed: false,
      source: "timeout",
      asked: true,
      actor: null,
      reason: `approval for '${prompt.tool}' timed out: nobody answered within ${seconds(timeoutMs)}; denied (a timeout, not a refusal)`,
    },
    prompt,
  );
}

/**
 * Map an Asker's answer onto a verdict (source `asker`), by this table:
 * `approve` allows with the original arguments; `modify` with an object
 * `value` allows with the edited ones; `expired` denies with a message naming
 * the deadline; `reject` and anything else deny with the note (a default
 * message when there is none). Something that is not a Decision at all is a
 * deny with source `error`. Pure; never throws.
 */
export function verdictFromDecision(decision: unknown, prompt: ApprovalPrompt, timeoutMs: number | undefined): ApprovalVerdict {
  if (!decision || typeof decision !== "object") {
    return errorVerdict(prompt, `the Asker returned ${describeValue(decision)} instead of a Decision`, true);
  }
  const d = decision as Decision;
  const actor = typeof d.actor === "string" && d.actor !== "" ? d.actor : null;
  const note = typeof d.note === "string" && d.note !== "" ? d.note : null;
  const who = actor ?? "the reviewer";
  const base = { source: "asker" as const, asked: true, actor };
  // The allow/deny mapping is the core's (agents/gating): one table for the agent loop and both servers.
  const outcome = decisionOutcome(d, prompt.arguments, prompt.tool);
  if (outcome.allowed) {
    const reason = `${outcome.modified ? "approved with changes" : "approved"} by ${who}${note ? `: ${note}` : ""}`;
    return verdict({ ...base, allowed: true, reason, arguments: outcome.arguments, modified: outcome.modified }, prompt);
  }
  const kind: unknown = d.kind;
  if (kind === "expired") {
    const deadline = timeoutMs === undefined ? "the Asker's own deadline (the server sets no timeoutMs)" : `the ${seconds(timeoutMs)} deadline`;
    const reason = `approval for '${prompt.tool}' expired: nobody answered before ${deadline}${note ? ` (${note})` : ""}`;
    return verdict({ ...base, allowed: false, reason }, prompt);
  }
  if (kind === "reject") {
    return verdict({ ...base, allowed: false, reason: note ?? `rejected by ${who}`, refusal: `rejected by ${who}${note ? `: ${note}` : ""}` }, prompt);
  }
  if (kind === "modify") {
    const reason = `denied: 'modify' from ${who} carried no object value to run with${note ? ` (${note})` : ""}`;
    return verdict({ ...base, allowed: false, reason }, prompt);
  }
  const shown = describeValue(kind);
  return verdict(
    {
      ...base,
      allowed: false,
      reason: note ?? `denied: ${who} answered with decision kind ${shown}, which is neither approve nor modify`,
      refusal: `refused by ${who} (decision kind ${shown})${note ? `: ${note}` : ""}`,
    },
    prompt,
  );
}

type Settled = { readonly kind: "answer"; readonly value: unknown } | { readonly kind: "threw"; readonly error: unknown } | { readonly kind: "timeout" } | { readonly kind: "aborted"; readonly reason: unknown };

function abortWhy(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  if (typeof reason === "string" && reason) return reason;
  return "the request was abandoned before anyone answered";
}

function cloneArgs(args: Record<string, unknown>): Record<string, unknown> {
  try {
    return structuredClone(args);
  } catch {
    return { ...args };
  }
}

/**
 * Put the prompt to the Asker and wait for the answer, the server's deadline
 * or the abort signal — whichever comes first. The Asker is handed a copy of
 * the arguments, so an Asker that edits what it was shown cannot change what
 * an `approve` runs. An abandoned ask is left to settle on its own; its
 * result is ignored. Never throws.
 */
async function ask(prompt: ApprovalPrompt, policy: ApprovalPolicy): Promise<ApprovalVerdict> {
  const { timeoutMs, signal } = policy;
  if (signal?.aborted) return errorVerdict(prompt, abortWhy(signal.reason), false);
  const request: Elicitation = Object.freeze({
    question: policy.question ?? `Allow '${prompt.tool}' to run with these arguments?`,
    toolCall: Object.freeze({ id: prompt.toolUseId ?? randomUUID(), name: prompt.tool, arguments: cloneArgs(prompt.arguments) }),
    source: policy.origin ?? "approvals",
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    const settled = await new Promise<Settled>((resolve) => {
      // Promise.resolve().then(): an Asker whose ask() throws synchronously is caught like one that rejects.
      Promise.resolve()
        .then(() => policy.asker.ask(request))
        .then(
          (value) => resolve({ kind: "answer", value }),
          (error: unknown) => resolve({ kind: "threw", error }),
        );
      if (timeoutMs !== undefined) timer = setTimeout(() => resolve({ kind: "timeout" }), timeoutMs);
      if (signal) {
        onAbort = () => resolve({ kind: "aborted", reason: signal.reason });
        signal.addEventListener("abort", onAbort, { once: true });
      }
    });
    switch (settled.kind) {
      case "answer":
        return verdictFromDecision(settled.value, prompt, timeoutMs);
      case "threw":
        return errorVerdict(prompt, `the Asker threw ${errorLine(settled.error)}`, true);
      case "timeout":
        return timeoutVerdict(prompt, timeoutMs!);
      default:
        return errorVerdict(prompt, abortWhy(settled.reason), true);
    }
  } finally {
    if (timer) clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * Settle one prompt. Order: `autoAllow` (+ `autoAllowWhen`) first, then the
 * tier — under `"auto"` an unlisted prompt is allowed without asking (source
 * `autonomy`) — then the Asker, under the server's deadline. Never throws:
 * whatever goes wrong is a deny with the reason attached.
 */
export async function decide(prompt: ApprovalPrompt, policy: ApprovalPolicy): Promise<ApprovalVerdict> {
  try {
    if (isAutoAllowed(prompt, policy.autoAllow, policy.autoAllowWhen)) {
      return verdict({ allowed: true, source: "auto_allow", asked: false, actor: null, reason: `'${prompt.tool}' is in autoAllow; no one was asked` }, prompt);
    }
    if (policy.autonomy === "auto") {
      return verdict({ allowed: true, source: "autonomy", asked: false, actor: null, reason: `autonomy "auto" does not gate '${prompt.tool}'; no one was asked` }, prompt);
    }
    return await ask(prompt, policy);
  } catch (err) {
    // Unreachable by construction; kept because this function's whole contract is "never throws".
    return errorVerdict(prompt, `the approval check itself failed: ${errorLine(err)}`, false);
  }
}
