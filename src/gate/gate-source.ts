/**
 * @module gate/gate-source
 * The closed set of ways a gated call gets settled — defined here once, for
 * every entry point (the ReAct loop, `ApprovalServer`, `approvalGuard`, the
 * Claude hook).
 */

/**
 * How a call was settled. A closed set, because a boolean collapses the two
 * facts an auditor most needs apart:
 *
 * | source | what happened |
 * |---|---|
 * | `asker` | the Asker (a person, or an application policy standing in for one) was consulted and answered — an answer of `expired` included |
 * | `auto_allow` | the tool was pre-approved (`autoAllow`, narrowed by `autoAllowWhen`); no Asker was invoked |
 * | `autonomy` | the tier did not gate this call (`"auto"`, or a call that is no key step); no Asker was invoked |
 * | `timeout` | the gate's own `timeoutMs` fired — denied, and not a refusal |
 * | `error` | the Asker threw, answered something that is not a Decision (or one that could not be read), there was no Asker, the request was malformed, or the asking side gave up (cancelled, stopped) — denied, and not a policy decision |
 *
 * `asked` is separate on purpose: it is true whenever the Asker was invoked
 * (also for `timeout` and most `error`s); a prompt can reach a person and then expire.
 */
export type GateSource = "asker" | "auto_allow" | "autonomy" | "timeout" | "error";

/** Every `GateSource`, in the order the table above lists them (frozen). */
export const GATE_SOURCES: readonly GateSource[] = Object.freeze(["asker", "auto_allow", "autonomy", "timeout", "error"]);

/**
 * Who is asking — the entry point, recorded as `via` and handed to the Asker
 * as `Elicitation.source`: `"react"`, `"approval_server"`, `"mcp_guard"`,
 * `"claude_hook"`, or an application's own name.
 */
export type GateVia = "react" | "approval_server" | "mcp_guard" | "claude_hook" | (string & {});
