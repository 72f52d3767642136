/**
 * @module gate/audit-sink.error
 * The error of a JSONL approval audit that cannot be written.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/**
 * The `AgentkitError` (code `audit_sink`) of an approval audit file at `path`
 * that could not be opened (`operation` `"open"`) or appended to and flushed
 * (`"append"`); the message names the path, what failed and why, and `cause`
 * is the file system's error.
 */
export function auditSinkError(path: string, operation: "open" | "append", cause: unknown): AgentkitError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new AgentkitError(
    "audit_sink",
    `approval audit file '${path}' could not ` +
      `${operation === "open" ? "be opened for appending" : "be appended to and flushed"}: ${why}. Check that its ` +
      `directory exists and is writable (auditPath).`,
    { cause },
  );
}
