/**
 * @module askers/inbox/inbox.error
 * Errors of the approval inbox and its stores.
 */
import { AgentkitError } from "../../errors/agentkit.error.js";

/**
 * Why a store operation failed (`InboxError.failure`, code `inbox_store`):
 * the database is `unavailable`; the schema is `not_migrated`; the store's
 * role or its login may not do it (`forbidden`: a worker answering, a login
 * outside the inbox's roles); an embedded store's directory is open in
 * another process (`in_use`); or the value given cannot be stored
 * (`invalid`: a call record whose id is already there, a field of the wrong
 * kind; the message names it).
 */
export type InboxStoreFailure = "unavailable" | "not_migrated" | "forbidden" | "in_use" | "invalid";

/**
 * What went wrong: a question withdrawn because its inbox stopped
 * (`inbox_stopped`), an inbox used after `stop()` (`inbox_state`), a store
 * full of pending questions (`inbox_full`), or a store that could not do what
 * was asked (`inbox_store`, with `failure` saying why).
 */
export type InboxErrorCode = "inbox_stopped" | "inbox_state" | "inbox_full" | "inbox_store";

/**
 * Thrown (or rejected with) by `ApprovalInbox`, its askers and its stores.
 * `inbox_stopped`: the inbox stopped while the question waited, so nobody can
 * answer it (the gate turns that into a deny, source `error`). `inbox_state`:
 * `url`, `loginUrl` or `asker()` used on a stopped inbox. `inbox_full`: the
 * store already holds as many pending questions as it may (the call is
 * denied). `inbox_store`: a database-backed store failed, `failure` says how
 * (`unavailable`, `not_migrated`, `forbidden`, `in_use`, `invalid`); an asker
 * that meets it while a question waits denies the call (gate source `error`).
 */
export class InboxError extends AgentkitError {
  declare readonly code: InboxErrorCode;
  /** For `inbox_store`: why the store failed (see `InboxStoreFailure`); undefined for the other codes. */
  readonly failure: InboxStoreFailure | undefined;

  constructor(code: InboxErrorCode, message: string, options?: { cause?: unknown; failure?: InboxStoreFailure }) {
    super(code, message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.failure = options?.failure;
  }
}
