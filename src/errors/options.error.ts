/**
 * @module errors/options.error
 * The one error for a bad option, thrown by the option checks in
 * `options/option-checks` wherever a constructor, factory or decorator checks what it
 * was given.
 */
import { AgentkitError } from "./agentkit.error.js";

/**
 * An option was missing, unknown, of the wrong kind or in conflict with
 * another. Thrown when the option is given (at construction, decoration or
 * the call), never on first use, and before anything binds or is written.
 * `code` is `"invalid_option"`; the message names where (`ApprovalServer`,
 * `serveRegistry`, ...), the option, what is accepted and what was got.
 */
export class OptionsError extends AgentkitError {
  constructor(
    /** Who checked: the class or function name (`ApprovalServer`, `MCPClient.start`). */
    readonly where: string,
    /** The offending option key (`timeoutMs`, `asker`, ...). */
    readonly option: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super("invalid_option", message, options);
  }
}
