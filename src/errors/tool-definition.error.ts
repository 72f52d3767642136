/**
 * @module errors/tool-definition.error
 * Raised when `@Tool`/`tool()` options are invalid, at the moment they are applied.
 */
import { AgentkitError } from "./agentkit.error.js";

/** Bad options given to `@Tool`, `tool()`, `@McpServer` or another decorator. */
export class DefinitionError extends AgentkitError {
  constructor(
    /** The class or function the options were applied to. */
    readonly target: string,
    /** The offending option key. */
    readonly key: string,
    message: string,
  ) {
    super("definition", message);
  }
}
