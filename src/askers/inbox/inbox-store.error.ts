/**
 * @module askers/inbox/inbox-store.error
 * A shared inbox store could not do what was asked: its database is down or
 * unreachable, or its tables were never created.
 */
import { AgentkitError } from "../../errors/agentkit.error.js";

/** Why a store operation failed: the database is `unavailable`, or the schema is `not_migrated`. */
export type InboxStoreFailure = "unavailable" | "not_migrated";

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
