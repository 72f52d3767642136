/**
 * @module askers/inbox/inbox-store.error
 * A shared inbox store could not do what was asked: its database is down or
 * unreachable, its tables were never created, the login may not do it,
 * (embedded) another process has the directory open, or the value given
 * cannot be stored.
 */
import { AgentkitError } from "../../errors/agentkit.error.js";

/**
 * Why a store operation failed: the database is `unavailable`; the schema is
 * `not_migrated`; the store's role or its login may not do it (`forbidden`:
 * a worker answering, a login outside the inbox's roles); an embedded
 * store's directory is open in another process (`in_use`); or the value
 * given cannot be stored (`invalid`: a call record whose id is already
 * there, a field of the wrong kind; the message names it).
 */
export type InboxStoreFailure = "unavailable" | "not_migrated" | "forbidden" | "in_use" | "invalid";

/**
 * Thrown (code `inbox_store`) by a database-backed inbox store. An asker
 * that meets it while a question waits denies the call (gate source `error`).
 */
export class InboxStoreError extends AgentkitError {
  constructor(
    readonly failure: InboxStoreFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super("inbox_store", message, options);
  }
}
