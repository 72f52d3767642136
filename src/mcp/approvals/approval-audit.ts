/**
 * @module mcp/approvals/approval-audit
 * The approval seam's name for the gate's one recorder (`gate/gate-recorder`):
 * the JSONL sink (when configured), the in-memory list, then the `gate.check`
 * broadcast — in that order, before the asking side hears the answer.
 */
import { GateRecorder, type GateRecorderOptions } from "../../gate/index.js";

/** Options of an `ApprovalAudit`: the recorder's. */
export type ApprovalAuditOptions = GateRecorderOptions;

/**
 * The audit of one approval seam: the gate's `GateRecorder` (same sinks, same
 * policy: an allow whose audit line cannot be written is denied).
 */
export class ApprovalAudit extends GateRecorder {}
