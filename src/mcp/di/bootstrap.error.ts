/**
 * @module mcp/di/bootstrap.error
 * Raised when `bootstrap()` cannot bring a module up.
 */
import { AgentkitError } from "../../errors/agentkit.error.js";

/** `bootstrap()` failed; everything it had opened was closed again before this was thrown. */
export class BootstrapError extends AgentkitError {
  constructor(
    /** The module class's name. */
    readonly module: string,
    /** What bootstrap was doing: `providers`, `remote`, `skills`, `tools`, `serve`, `approvals`. */
    readonly step: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super("bootstrap", `bootstrap(${module}): ${message}`, options);
  }
}
