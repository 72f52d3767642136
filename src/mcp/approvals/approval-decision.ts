/**
 * @module mcp/approvals/approval-decision
 * The approval seam's names for the engine's audit record and source set
 * (`gate/`): an `ApprovalDecision` IS a `GateRecord`, an `ApprovalSource` IS
 * a `GateSource`. Kept so `arc-agentkit/mcp` users keep their names.
 */
import { GATE_SOURCES, type GateRecord, type GateSource } from "../../gate/index.js";

/** How a prompt was settled: the engine's closed set (see `GateSource`). */
export type ApprovalSource = GateSource;

/** Every `ApprovalSource`, in the order the seed lists them (the engine's `GATE_SOURCES`). */
export const APPROVAL_SOURCES: readonly ApprovalSource[] = GATE_SOURCES;

/**
 * One settled permission prompt (frozen): the engine's `GateRecord`. Held in
 * memory on `decisions`, written as one JSONL line by the audit sink, and
 * broadcast as `gate.check` without `arguments` (and `updatedArguments`).
 */
export type ApprovalDecision = GateRecord;
