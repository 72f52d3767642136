/**
 * @module gate
 * THE approval engine (core layer): the decision table, the closed `source`
 * set, the audit record and its `gate.check` payload. Every entry point —
 * the ReAct loop, `ApprovalServer`, `approvalGuard`, the Claude hook — calls
 * `gateVerdict()` and records what it returns.
 */
export { GATE_SOURCES } from "./gate-source.js";
export type { GateSource, GateVia } from "./gate-source.js";
export { emitGateCheck, gateCheckOf } from "./gate-record.js";
export type { GateCaller, GateCheck, GateEventTarget, GateRecord } from "./gate-record.js";
export { plainJsonObject } from "./json-object.js";
export type { JsonObjectCheck } from "./json-object.js";
export { answeredVerdict, decisionOutcome, errorVerdict, notRunMessage, timeoutVerdict, verdictFromDecision } from "./decision-table.js";
export type { GateOutcome, GateSubject, GateVerdict } from "./decision-table.js";
export { gateVerdict, isAutoAllowed, shouldGate } from "./gate.js";
export type { AutoAllowWhen, GateRequest } from "./gate.js";
export { GATE_SINK_RULES, GateRecorder } from "./gate-recorder.js";
export type { GateAuditSink, GateRecorderOptions } from "./gate-recorder.js";
export { JsonlAuditSink } from "./jsonl-audit-sink.js";
