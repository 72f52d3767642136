/**
 * @module util/logger
 * The package's logger: warnings go to stderr unless the application sets its own.
 */
import { errorLine } from "./format.js";

/** A logger; `console` satisfies it. */
export interface Logger {
  /** Detail for whoever debugs the package. */
  debug(message: string): void;
  /** What happened, for the record. */
  info(message: string): void;
  /** Something a user should look at; the package kept going. */
  warn(message: string): void;
  /** Something failed. */
  error(message: string): void;
}

const stderrLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (m) => process.stderr.write(`${m}\n`),
  error: (m) => process.stderr.write(`${m}\n`),
};

let current: Logger = stderrLogger;

/** The logger in use (default: warnings and errors to stderr, nothing else). */
export function getLogger(): Logger {
  return current;
}

/** A `Logger` that forwards each line to the current global logger (`getLogger()`), so a later `setLogger()` still takes effect. */
export const GLOBAL_LOGGER: Logger = Object.freeze({
  debug: (m: string) => current.debug(m),
  info: (m: string) => current.info(m),
  warn: (m: string) => current.warn(m),
  error: (m: string) => current.error(m),
});

/** Replace the logger (e.g. with pino or console); returns the previous one. */
export function setLogger(logger: Logger): Logger {
  const prev = current;
  current = logger;
  return prev;
}

/**
 * The `.catch` handler for a rejection nobody can act on — a close during
 * teardown, a notification to a peer that already left, a best-effort write
 * whose failure is reported elsewhere. It logs `why` and the error at debug
 * and resolves, so the reason is written where the promise is dropped and a
 * user who turns on debug sees it. Never throws.
 */
export function ignoreRejection(why: string): (err: unknown) => void {
  return (err) => {
    try {
      getLogger().debug(`ignored: ${why}: ${errorLine(err)}`);
    } catch {
      // a logger that throws must not turn a handled rejection into an unhandled one
    }
  };
}
