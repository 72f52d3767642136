/**
 * @module errors/agentkit.error
 * The one base class of every error this package throws.
 */

/**
 * Base class of every error thrown by arc-agentkit. `code` is a stable string
 * a caller can switch on; `message` names the thing, where it is, and what to do.
 */
export class AgentkitError extends Error {
  /** Stable machine-readable code, e.g. `"tool_argument"`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}
