/**
 * @module askers/inbox/inbox-store.error
 * A shared inbox store could not do what was asked: its database is down or
 * unreachable, its tables were never created, the login may not do it,
 * (embedded) another process has the directory open, or the value given
 * cannot be stored. Thrown as `InboxError` with code `inbox_store`.
 */
import { InboxError, type InboxStoreFailure } from "./inbox.error.js";

/** The `InboxError` (code `inbox_store`) a database-backed inbox store throws, `failure` saying why. */
export function inboxStoreError(failure: InboxStoreFailure, message: string, options?: { cause?: unknown }): InboxError {
  return new InboxError("inbox_store", message, { ...options, failure });
}

/** True for an `inboxStoreError` (an `InboxError` with code `inbox_store`). */
export function isStoreFailure(err: unknown): err is InboxError & { readonly failure: InboxStoreFailure } {
  return err instanceof InboxError && err.code === "inbox_store";
}
