/**
 * @module errors/agentkit.error
 * The one base class of every error this package throws.
 */
import type { AgentkitErrorCode } from "./error-codes.js";

export type { AgentkitErrorCode } from "./error-codes.js";

/**
 * Base class of every error thrown by arc-agentkit. `code` is one of the
 * closed set `AgentkitErrorCode`, stable for a caller to switch on; `message`
 * names the thing, where it is, and what to do.
 */
export class AgentkitError extends Error {
  /** Stable machine-readable code, e.g. `"tool_argument"` or `"invalid_option"`. */
  readonly code: AgentkitErrorCode;

  constructor(code: AgentkitErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}
