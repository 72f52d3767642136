/**
 * @module mcp/client/session-state
 * The life of an `MCPClient`'s session as one explicit state machine: a pure
 * table of (state, event) -> (state, effect), so every recovery path (stdio
 * respawn, HTTP 404 re-initialization, a session lost under a call) goes
 * through the same transitions, and a pair the table does not name changes
 * nothing.
 *
 * States: `open` (a live session), `renewing` (a new session is being made:
 * respawn or re-initialize; requests wait for it), `lost` (the server went
 * away and no renewal is under way), `closing` (stop() was called; teardown
 * running), `closed`.
 */

/** Where a client's session is. */
export type SessionState = "open" | "renewing" | "lost" | "closing" | "closed";

/**
 * What happens to it: the server's side closed (`peer-closed`), a renewal
 * starts (`renew`) and ends (`renewed` / `renew-failed`), the user closes
 * (`close`) and the teardown ends (`closed`).
 */
export type SessionEvent = "peer-closed" | "renew" | "renewed" | "renew-failed" | "close" | "closed";

/** What the client does on a transition: nothing, drop both list caches, or tear everything down. */
export type SessionEffect = "none" | "drop-caches" | "teardown";

type Row = Partial<Record<SessionEvent, readonly [SessionState, SessionEffect]>>;

/** The whole table; pairs it leaves out keep the state and do nothing. */
export const SESSION_TABLE: Readonly<Record<SessionState, Row>> = Object.freeze({
  open: { "peer-closed": ["lost", "drop-caches"], renew: ["renewing", "none"], close: ["closing", "teardown"] },
  lost: { renew: ["renewing", "none"], close: ["closing", "teardown"] },
  // A new session replaces the old one: lists of the old one describe nothing callable.
  renewing: { renewed: ["open", "drop-caches"], "renew-failed": ["lost", "none"], close: ["closing", "teardown"] },
  closing: { closed: ["closed", "none"] },
  closed: {},
});

/** The state after `event` in `state`, and the effect to carry out (see `SESSION_TABLE`). */
export function nextSession(state: SessionState, event: SessionEvent): { readonly state: SessionState; readonly effect: SessionEffect } {
  const hit = SESSION_TABLE[state][event];
  return hit ? { state: hit[0], effect: hit[1] } : { state, effect: "none" };
}

/** True while requests may be sent or waited for (not closing or closed). */
export function isUsable(state: SessionState): boolean {
  return state !== "closing" && state !== "closed";
}
