/**
 * @module gate/gate
 * THE approval engine: one function that turns (tool, arguments, tier,
 * `autoAllow`/`autoAllowWhen`, the Asker's answer, the deadline, an abort
 * signal) into one frozen verdict and its audit record. The ReAct loop,
 * `ApprovalServer`, `approvalGuard`, the Claude hook and sampling all call
 * it, and record what it returns through the one `GateRecorder`. The Asker
 * is handed `{ signal, questionId }` (`AskOptions`): the signal aborts at the
 * deadline (a `TimeoutError` reason) or when the asking side gives up, and
 * the id is the record's `questionId`.
 */
import { randomUUID } from "node:crypto";
import type { Asker, AskOptions, Elicitation, ToolFacts } from "../contracts/elicitation.js";
import type { Autonomy } from "../context/run-context.js";
import { ClientGaveUp } from "../errors/client-gave-up.error.js";
import { getLogger } from "../util/logger.js";
import { errorLine } from "../util/format.js";
import {
  errorVerdict,
  gaveUpVerdict,
  timeoutVerdict,
  unaskedVerdict,
  verdictFromDecision,
  type GateSubject,
  type GateVerdict,
} from "./decision-table.js";

/**
 * The opt-in filter on `autoAllow`: return `true` to keep a pre-approved tool
 * pre-approved for these arguments. Anything but `true` — and a throw — sends
 * the call to the Asker. It can only subtract: it is never consulted for a
 * tool that is not in `autoAllow`.
 */
export type AutoAllowWhen = (tool: string, args: Record<string, unknown>) => boolean;

/** Everything the engine needs to settle one call. */
export interface GateRequest extends GateSubject {
  /** Asked when the call is neither pre-approved nor ungated. None: a deny (source `error`, not asked). */
  readonly asker?: Asker;
  /** The tool's own declaration: asks under every tier. Default false. */
  readonly requiresApproval?: boolean;
  /** Is this call a key step (a side-effecting call)? Under `"gated"` key steps ask. Default true. */
  readonly keyStep?: boolean;
  /** The tier. Default `"gated"` (a gate must not fail open because a caller left it unset). */
  readonly autonomy?: Autonomy;
  /** Tool names approved without asking, checked first (names only). */
  readonly autoAllow?: ReadonlySet<string>;
  /** Narrows `autoAllow` by argument; see `AutoAllowWhen`. */
  readonly autoAllowWhen?: AutoAllowWhen;
  /** The deadline for an answer, enforced here; unset waits forever. */
  readonly timeoutMs?: number;
  /** Aborting it abandons a pending ask: a deny, source `error`. */
  readonly signal?: AbortSignal;
  /** Why, in words, when `signal` aborts; default: the signal's reason. */
  readonly abandoned?: string;
  /** The question put to the Asker; a generic one when absent. */
  readonly question?: string;
  /** What the tool declares about itself, passed to the Asker as `Elicitation.toolFacts` (see `toolFactsOf`). */
  readonly toolFacts?: ToolFacts;
  /** How reasons name the answering side; default `"the Asker"` (the hook says `"the hook policy"`). */
  readonly answerer?: string;
  /** The id handed to the Asker (`AskOptions.questionId`) and kept on the record; a fresh UUID per question when unset. */
  readonly questionId?: string | null;
}

/**
 * Should this call ask a person first? `requiresApproval` is honoured under
 * every tier; under `"gated"` every key step (a side-effecting call) asks too.
 */
export function shouldGate(tool: { readonly requiresApproval: boolean }, options: { keyStep: boolean; autonomy: Autonomy }): boolean {
  return tool.requiresApproval || (options.autonomy === "gated" && options.keyStep);
}

function warn(message: string): void {
  try {
    getLogger().warn(message);
  } catch {
    // a broken logger must not turn into a broken permission system
  }
}

/**
 * Is this call pre-approved? `tool` must be in `autoAllow`, and then
 * `autoAllowWhen` (when set) must return exactly `true`. A predicate that
 * throws is logged and counts as "no": a bug in a filter costs a prompt, not
 * an approval. Never throws.
 */
export function isAutoAllowed(
  subject: Pick<GateSubject, "tool" | "arguments">,
  autoAllow: ReadonlySet<string> | undefined,
  autoAllowWhen: AutoAllowWhen | undefined,
): boolean {
  if (!autoAllow || !autoAllow.has(subject.tool)) return false;
  if (!autoAllowWhen) return true;
  try {
    return autoAllowWhen(subject.tool, subject.arguments) === true;
  } catch (err) {
    warn(`approvals: autoAllowWhen threw for '${subject.tool}' (${errorLine(err)}); asking the Asker instead`);
    return false;
  }
}

type Settled =
  | { readonly kind: "answer"; readonly value: unknown }
  | { readonly kind: "threw"; readonly error: unknown }
  | { readonly kind: "timeout" }
  | { readonly kind: "aborted" };

function abandonedWhy(request: GateRequest): string {
  if (request.abandoned) return request.abandoned;
  const reason: unknown = request.signal?.reason;
  if (reason instanceof Error && reason.message) return reason.message;
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

function elicitation(request: GateRequest): Elicitation {
  return Object.freeze({
    question: request.question ?? `Allow '${request.tool}' to run with these arguments?`,
    toolCall: Object.freeze({ id: request.id ?? randomUUID(), name: request.tool, arguments: cloneArgs(request.arguments) }),
    source: request.via,
    ...(request.toolFacts === undefined ? {} : { toolFacts: request.toolFacts }),
    ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
  });
}

/**
 * The reason the Asker's signal carries when the gate's own deadline fires (`name` is `"TimeoutError"`, as
 * `AbortSignal.timeout()` uses).
 */
function deadlineReason(request: GateRequest): DOMException {
  return new DOMException(`the ${request.timeoutMs} ms deadline for '${request.tool}' passed before anyone answered`, "TimeoutError");
}

/**
 * Wait for the Asker, the deadline or the abort signal, whichever comes
 * first. The Asker gets `{ signal, questionId }`: the signal aborts when the
 * deadline fires or the asking side gives up, so it can withdraw the
 * question. Never rejects.
 */
async function settle(asker: Asker, request: GateRequest, questionId: string): Promise<Settled> {
  const { timeoutMs, signal } = request;
  const asking = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<Settled>((resolve) => {
      const asked = elicitation(request);
      const options: AskOptions = Object.freeze({ signal: asking.signal, questionId });
      // Promise.resolve().then(): an Asker whose ask() throws synchronously is caught like one that rejects.
      Promise.resolve()
        .then(() => asker.ask(asked, options))
        .then(
          (value) => resolve({ kind: "answer", value }),
          (error: unknown) => resolve({ kind: "threw", error }),
        );
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          resolve({ kind: "timeout" });
          asking.abort(deadlineReason(request));
        }, timeoutMs);
      }
      if (signal) {
        onAbort = () => {
          resolve({ kind: "aborted" });
          asking.abort(signal.reason);
        };
        signal.addEventListener("abort", onAbort, { once: true });
      }
    });
  } finally {
    if (timer) clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * Put the call to the Asker (a copy of the arguments, so an Asker that edits
 * what it was shown cannot change what an `approve` runs) and map what comes
 * back. An abandoned ask is told so through its signal; its result is ignored.
 */
async function ask(given: GateRequest): Promise<GateVerdict> {
  const request: GateRequest = { ...given, questionId: given.questionId ?? randomUUID() };
  const answerer = request.answerer ?? "the Asker";
  if (request.signal?.aborted) return errorVerdict(request, abandonedWhy(request), false);
  if (!request.asker || typeof request.asker.ask !== "function") {
    return errorVerdict(request, "it needs approval and there is no Asker to ask (pass asker to the RunContext)", false);
  }
  const settled = await settle(request.asker, request, request.questionId!);
  switch (settled.kind) {
    case "answer":
      return verdictFromDecision(settled.value, request, request.timeoutMs, answerer);
    case "threw":
      return errorVerdict(request, `${answerer} threw ${errorLine(settled.error)}`, true);
    case "timeout":
      return timeoutVerdict(request, request.timeoutMs!);
    default:
      // The client the answer was for stopped waiting (its own limit, a cancel, a lost connection): a timeout on its side.
      if (request.signal?.reason instanceof ClientGaveUp) return gaveUpVerdict(request, request.signal.reason.message);
      return errorVerdict(request, abandonedWhy(request), true);
  }
}

/**
 * Settle one call. Order: `autoAllow` (+ `autoAllowWhen`) first, then the
 * tier — a call that is neither `requiresApproval` nor a key step under
 * `"gated"` is allowed without asking (source `autonomy`) — then the Asker,
 * under the deadline and the abort signal. Never throws: whatever goes wrong
 * is a deny with the reason attached (default deny). The verdict is frozen
 * and carries its audit record; emitting and storing it is the caller's.
 */
export async function gateVerdict(request: GateRequest): Promise<GateVerdict> {
  try {
    const autonomy = request.autonomy ?? "gated";
    if (isAutoAllowed(request, request.autoAllow, request.autoAllowWhen)) return unaskedVerdict(request, "auto_allow", autonomy);
    if (!shouldGate({ requiresApproval: request.requiresApproval === true }, { keyStep: request.keyStep !== false, autonomy })) {
      return unaskedVerdict(request, "autonomy", autonomy);
    }
    return await ask(request);
  } catch (err) {
    // Unreachable by construction; kept because this function's whole contract is "never throws".
    try {
      return errorVerdict(request, `the approval check itself failed: ${errorLine(err)}`, false);
    } catch {
      return errorVerdict({ tool: String(request?.tool), arguments: {}, via: "unknown" }, "the approval check itself failed", false);
    }
  }
}
