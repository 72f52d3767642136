/**
 * @module errors/cancelled.error
 * Raised when a run was cancelled.
 */
import { AgentkitError } from "./agentkit.error.js";

/** The run was cancelled; work that checks for it stops instead of starting. */
export class Cancelled extends AgentkitError {
  constructor(
    message = "the run was cancelled",
    /** Why the run was cancelled, when the canceller said. */
    readonly reason?: unknown,
  ) {
    super("cancelled", message, reason instanceof Error ? { cause: reason } : undefined);
  }
}
