/**
 * @module mcp/approvals
 * The approval seam: `ApprovalServer` (the Claude CLI's permission-prompt
 * tool) and `approvalGuard` (server-side approval for served tools), which
 * share one decision table and one audit. Every export is listed by name.
 */
export { ApprovalServer, APPROVAL_SERVER_NAME, APPROVAL_TOOL_NAME } from "./approval-server.js";
export type { ApprovalServerOptions, ApprovalCliOptions, ApprovalConfigDocument, ServedArgumentCheck } from "./approval-server.js";
export { approvalGuard } from "./approval-guard.js";
export type { ApprovalGuard, ApprovalGuardOptions, ApprovalGuardRequest, ApprovalGuardResult } from "./approval-guard.js";
export type { AutoAllowWhen } from "../../gate/index.js";
