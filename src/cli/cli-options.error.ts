/**
 * @module cli/cli-options.error
 * Two option objects that cannot be merged.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/** Thrown when two parts set one option to different values. */
export class CliOptionsConflictError extends AgentkitError {
  constructor(readonly option: string, message: string) {
    super("cli_options_conflict", message);
  }
}
