/**
 * @module bin/cli.error
 * The errors the `agentkit` command reports itself: one line each, with the
 * exit code that goes with it.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/** Exit code of a failure at run time (a server that would not start, a 401, a timeout). */
export const EXIT_RUNTIME = 1;
/** Exit code of a command line that cannot be run as written (a bad flag, bad `--args` JSON, a missing file). */
export const EXIT_USAGE = 2;

/**
 * A failure the `agentkit` command explains in one line. `exitCode` is
 * `EXIT_RUNTIME` (1) or `EXIT_USAGE` (2); the message names the thing, where,
 * and what to do, and never holds a credential.
 */
export class CliError extends AgentkitError {
  constructor(
    message: string,
    /** 1 (runtime) or 2 (usage). */
    readonly exitCode: typeof EXIT_RUNTIME | typeof EXIT_USAGE = EXIT_RUNTIME,
    options?: { cause?: unknown },
  ) {
    super(exitCode === EXIT_USAGE ? "cli_usage" : "cli", message, options);
  }
}

/** A command line that cannot be run as written; exit code 2. The message should say what is accepted. */
export class UsageError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT_USAGE, options);
  }
}
