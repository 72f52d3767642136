/**
 * @module gate/audit-sink.error
 * Raised when the JSONL approval audit cannot be written.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/** The approval audit file could not be opened, written or flushed. */
export class AuditSinkError extends AgentkitError {
  constructor(
    /** The audit file's path. */
    readonly path: string,
    /** What was being done: `"open"`, `"append"`. */
    readonly operation: string,
    cause: unknown,
  ) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      "audit_sink",
      `approval audit file '${path}' could not ` +
        `${operation === "open" ? "be opened for appending" : "be appended to and flushed"}: ${why}. Check that its ` +
        `directory exists and is writable (auditPath).`,
      { cause },
    );
  }
}
