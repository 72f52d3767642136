/**
 * @module options/option-checks
 * The one set of option checkers. Each returns the checked value (so a caller
 * writes `this.timeoutMs = checkTimeoutMs(options.timeoutMs, "ApprovalServer")`)
 * or throws one `OptionsError` naming where, the option, what is accepted and
 * what was got.
 */
import { OptionsError } from "../errors/options.error.js";
import { describeValue } from "../util/format.js";

/** The largest delay `setTimeout` honours (about 24.8 days). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * A `timeoutMs` option: `undefined` (no deadline: wait forever) or a finite
 * number of milliseconds in (0, MAX_TIMEOUT_MS].
 */
export function checkTimeoutMs(value: unknown, where: string, option = "timeoutMs"): number | undefined {
  if (value === undefined) return undefined;
  if (!isTimeoutMs(value)) {
    throw new OptionsError(
      where,
      option,
      `${where}: ${option} must be a positive number of milliseconds up to ${MAX_TIMEOUT_MS}, or left unset to wait forever; got ${describeValue(value)}`,
    );
  }
  return value;
}

/**
 * The one rule for a deadline in milliseconds: a finite number in
 * (0, MAX_TIMEOUT_MS]. For callers that throw their own coded error; others
 * call `checkTimeoutMs`.
 */
export function isTimeoutMs(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 && value <= MAX_TIMEOUT_MS;
}

/** A positive integer option (`maxSteps`, `maxSessions`, `k`); `undefined` gives `fallback`. */
export function checkPositiveInt(value: unknown, where: string, option: string, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new OptionsError(where, option, `${where}: ${option} must be a positive integer, got ${describeValue(value)}`);
  }
  return value;
}

/** A required non-empty string option; `hint` says what a good one looks like. */
export function checkNonEmptyString(value: unknown, where: string, option: string, hint = "a non-empty string"): string {
  if (typeof value !== "string" || value === "") {
    throw new OptionsError(where, option, `${where}: '${option}' is required (${hint}), got ${describeValue(value)}`);
  }
  return value;
}

/** One of a closed set of strings; `undefined` gives `fallback` when there is one. */
export function checkOneOf<T extends string>(value: unknown, accepted: readonly T[], where: string, option: string, fallback?: T): T {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== "string" || !(accepted as readonly string[]).includes(value)) {
    const list = accepted.map((a) => JSON.stringify(a)).join(", ");
    throw new OptionsError(where, option, `${where}: ${option} must be one of ${list}${fallback !== undefined ? ` (default ${JSON.stringify(fallback)})` : ""}, got ${describeValue(value)}`);
  }
  return value as T;
}

/** An optional function option. */
export function checkFunction<F extends (...args: never[]) => unknown>(value: unknown, where: string, option: string, shape: string): F | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "function") throw new OptionsError(where, option, `${where}: ${option} must be a function ${shape}, got ${describeValue(value)}`);
  return value as F;
}

/** Refuse keys the caller does not accept, naming the first unknown one and the accepted set. */
export function checkKnownKeys(options: object, accepted: readonly string[], where: string, hints: Readonly<Record<string, string>> = {}): void {
  for (const key of Object.keys(options)) {
    if (!accepted.includes(key)) {
      const hint = hints[key] ? ` (${hints[key]})` : "";
      throw new OptionsError(where, key, `${where}: unknown option '${key}'${hint}. Accepted options: ${accepted.join(", ")}`);
    }
  }
}
