/**
 * @module mcp/approvals/approval-server.error
 * Raised when an `ApprovalServer` member that needs a running server is read before `start()` or after `stop()`.
 */
import { AgentkitError } from "../../errors/agentkit.error.js";

/** `url`, `authHeaders`, `configPath` or `cliOptions()` used while the server is not serving. */
export class ApprovalServerStateError extends AgentkitError {
  constructor(
    /** The member that was read. */
    readonly member: string,
  ) {
    super(
      "approval_server_not_started",
      `ApprovalServer.${member} is only available while the server is serving — call await approvals.start() first ` +
        `(or use await using approvals = await ApprovalServer.open({ asker }))`,
    );
  }
}
