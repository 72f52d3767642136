/**
 * @module askers/no-terminal.error
 * A `TerminalAsker` was built where there is no terminal to ask on.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/**
 * Thrown by `new TerminalAsker()` when its input is not a TTY (a pipe, a file,
 * a CI job, a detached service). The message names `ApprovalInbox`, the asker
 * that reaches a person through a browser instead.
 */
export class NoTerminalError extends AgentkitError {
  constructor(
    /** What was checked, e.g. `"the input stream"` or `"process.stdin"`. */
    readonly stream: string,
  ) {
    super(
      "no_terminal",
      `TerminalAsker needs a terminal, but ${stream} is not a TTY (piped, redirected or detached). ` +
        "Run it from an interactive terminal, or use ApprovalInbox (arc-agentkit/askers) to answer approvals in a browser.",
    );
  }
}
