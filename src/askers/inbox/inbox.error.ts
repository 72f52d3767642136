/**
 * @module askers/inbox/inbox.error
 * Errors of the approval inbox.
 */
import { AgentkitError } from "../../errors/agentkit.error.js";

/** What went wrong: a question withdrawn because its inbox stopped, an inbox used after `stop()`, or a store full of pending questions. */
export type InboxErrorCode = "inbox_stopped" | "inbox_state" | "inbox_full";

/**
 * Thrown (or rejected with) by `ApprovalInbox` and its askers. `inbox_stopped`:
 * the inbox stopped while the question waited, so nobody can answer it (the
 * gate turns that into a deny, source `error`). `inbox_state`: `url`,
 * `loginUrl` or `asker()` used on a stopped inbox. `inbox_full`: the store
 * already holds as many pending questions as it may (the call is denied).
 */
export class InboxError extends AgentkitError {
  constructor(code: InboxErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
