/**
 * @module askers/no-terminal.error
 * The error of a `TerminalAsker` built where there is no terminal to ask on.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/**
 * The `AgentkitError` (code `no_terminal`) `new TerminalAsker()` throws when
 * its input (`stream`: `"the input stream"` or `"process.stdin"`) is not a TTY
 * (a pipe, a file, a CI job, a detached service). The message names
 * `ApprovalInbox`, the asker that reaches a person through a browser instead.
 */
export function noTerminal(stream: string): AgentkitError {
  return new AgentkitError(
    "no_terminal",
    `TerminalAsker needs a terminal, but ${stream} is not a TTY (piped, redirected or detached). ` +
      "Run it from an interactive terminal, or use ApprovalInbox (arc-agentkit/askers) to answer approvals in a browser.",
  );
}
