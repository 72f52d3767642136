/**
 * @module mcp/approvals/jsonl-audit-sink
 * The JSONL audit sink, kept at its old path: it now lives with the gate's
 * one recorder (`gate/jsonl-audit-sink`), which every entry point uses.
 */
export { JsonlAuditSink } from "../../gate/jsonl-audit-sink.js";
