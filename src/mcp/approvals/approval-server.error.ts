/**
 * @module mcp/approvals/approval-server.error
 * The error of an `ApprovalServer` member that needs a running server, read before `start()` or after `stop()`.
 */
import { AgentkitError } from "../../errors/agentkit.error.js";

/**
 * The `AgentkitError` (code `approval_server_not_started`) of `url`,
 * `authHeaders`, `configPath` or `cliOptions()` (the `member`) used while the
 * server is not serving; the message names the member and how to start it.
 */
export function notStarted(member: string): AgentkitError {
  return new AgentkitError(
    "approval_server_not_started",
    `ApprovalServer.${member} is only available while the server is serving — call await approvals.start() first ` +
      `(or use await using approvals = await ApprovalServer.start({ asker }))`,
  );
}
