/**
 * @module errors/not-implemented.error
 * `NotImplementedError` (code `not_implemented`): an operation deliberately not supported.
 */
import { AgentkitError } from "./agentkit.error.js";

/** An operation this object deliberately does not support (e.g. writing to MCP resources). */
export class NotImplementedError extends AgentkitError {
  constructor(
    message: string,
    /** The operation that is not supported, e.g. `"write"`. */
    readonly operation?: string,
  ) {
    super("not_implemented", message);
  }
}
