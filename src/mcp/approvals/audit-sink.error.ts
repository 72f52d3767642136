/**
 * @module mcp/approvals/audit-sink.error
 * `AuditSinkError`, kept at its old path: it now lives with the gate's one
 * recorder (`gate/audit-sink.error`).
 */
export { AuditSinkError } from "../../gate/audit-sink.error.js";
