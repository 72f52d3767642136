/**
 * @module mcp/approvals/approval-decision
 * The audit record of one permission prompt, and the closed set of ways a prompt gets settled.
 */

/**
 * How a prompt was settled — a closed set, because a boolean collapses the two
 * facts an auditor most needs apart:
 * - `asker`: a person was consulted and answered (an answer of `expired` included);
 * - `auto_allow`: the tool was pre-approved (`autoAllow`); no Asker was invoked;
 * - `autonomy`: the tier (`"auto"`) did not gate this call; no Asker was invoked;
 * - `timeout`: the server's own `timeoutMs` fired — denied, and not a refusal;
 * - `error`: the Asker threw (or returned no decision), the request was malformed,
 *   or the server stopped before anyone answered — denied, and not a policy decision.
 */
export type ApprovalSource = "asker" | "auto_allow" | "autonomy" | "timeout" | "error";

/** Every `ApprovalSource`, in a fixed order: asker, auto_allow, autonomy, timeout, error. */
export const APPROVAL_SOURCES: readonly ApprovalSource[] = Object.freeze(["asker", "auto_allow", "autonomy", "timeout", "error"]);

/**
 * One settled permission prompt (frozen). Held in memory on `decisions`,
 * written as one JSONL line by the audit sink, and broadcast on `ctx` as
 * `gate.check` — the broadcast omits `arguments` (and `updatedArguments`), the
 * record keeps them.
 *
 * Security: `reason` is unredacted text from outside this library (a reviewer's
 * note, the message of an exception your Asker threw) and IS broadcast. Nothing
 * here redacts anything; plan retention accordingly.
 */
export interface ApprovalDecision {
  /** The tool the prompt was about, as the asking side named it (`Write`, `mcp__engine__deploy`). */
  readonly tool: string;
  /** The arguments as asked about (the original input, never the edited one). */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Whether the call may run. */
  readonly allowed: boolean;
  /** How it was settled. */
  readonly source: ApprovalSource;
  /** True whenever the Asker was invoked — also when it then threw or the deadline fired. */
  readonly asked: boolean;
  /** Why, in words; for a denial this is the message the caller reads. Unredacted. */
  readonly reason: string;
  /** Who decided, when a person did and said who; otherwise `null`. */
  readonly actor: string | null;
  /** When it was settled, ISO 8601. */
  readonly at: string;
  /** Present only when a `modify` answer allowed the call with edited arguments: what will run instead. */
  readonly updatedArguments?: Readonly<Record<string, unknown>>;
}
