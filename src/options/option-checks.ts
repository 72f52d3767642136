/**
 * @module options/option-checks
 * The one set of option checks. A public constructor or factory declares its
 * options once as a spec (`checkOptions(options, "HookServer", { timeoutMs:
 * opt.timeoutMs(), matcher: opt.nonEmptyString(...) })`) and gets back the
 * checked, frozen values; unknown keys, types and messages come from here.
 * The single checkers (`checkTimeoutMs`, `checkPort`, ...) are the same rules
 * for a caller that checks one value. Every failure is one `OptionsError`
 * naming where, the option, what is accepted and what was got.
 */
import { OptionsError } from "../errors/options.error.js";
import { DefinitionError } from "../errors/tool-definition.error.js";
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
      `${where}: ${option} must be a positive number of milliseconds up to ${MAX_TIMEOUT_MS}, or left unset to ` +
        `wait forever; got ${describeValue(value)}`,
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
    throw new OptionsError(
      where,
      option,
      `${where}: ${option} must be one of ` +
        `${list}${fallback !== undefined ? ` (default ${JSON.stringify(fallback)})` : ""}, got ` +
        `${describeValue(value)}`,
    );
  }
  return value as T;
}

/** An optional function option. */
export function checkFunction<F extends (...args: never[]) => unknown>(
  value: unknown,
  where: string,
  option: string,
  shape: string,
): F | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "function")
    throw new OptionsError(where, option, `${where}: ${option} must be a function ${shape}, got ${describeValue(value)}`);
  return value as F;
}

/** A TCP port option: an integer 0-65535 (0 = ephemeral); `undefined` gives `fallback`. */
export function checkPort(value: unknown, where: string, option = "port", fallback = 0): number {
  if (value === undefined) return fallback;
  if (!isPort(value))
    throw new OptionsError(where, option, `${where}: ${option} must be an integer 0-65535 (0 = ephemeral), got ${describeValue(value)}`);
  return value;
}

/** The one port rule: an integer 0-65535. For callers that throw their own error (the `agentkit` program's `UsageError`). */
export function isPort(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 65535;
}

/** The first key of `options` not in `accepted`, or `undefined`. */
export function unknownKey(options: object, accepted: Iterable<string>): string | undefined {
  const known = new Set(accepted);
  return Object.keys(options).find((key) => !known.has(key));
}

/** The one "unknown option" message: `${where}: unknown option 'x' (hint). Accepted options: a, b`. */
export function unknownOptionMessage(where: string, key: string, accepted: Iterable<string>, hint?: string): string {
  return `${where}: unknown option '${key}'${hint ? ` (${hint})` : ""}. Accepted options: ${[...accepted].join(", ")}`;
}

/** Refuse keys the caller does not accept, naming the first unknown one and the accepted set. */
export function checkKnownKeys(
  options: object,
  accepted: readonly string[],
  where: string,
  hints: Readonly<Record<string, string>> = {},
): void {
  const key = unknownKey(options, accepted);
  if (key !== undefined) throw new OptionsError(where, key, unknownOptionMessage(where, key, accepted, hints[key]));
}

/** An options argument that must be an object (not `null`, not an array); `shape` shows what one looks like. */
export function checkOptionsObject(options: unknown, where: string, shape: string): Record<string, unknown> {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new OptionsError(where, "options", `${where}: options must be an object ${shape}, got ${describeValue(options)}`);
  }
  return options as Record<string, unknown>;
}

/** The rule for one option: returns the checked value (a default filled in) or throws `OptionsError`. */
export type OptionRule<T> = (value: unknown, where: string, option: string) => T;

/** A constructor's options, declared: one rule per accepted key. */
export type OptionSpec = Readonly<Record<string, OptionRule<unknown>>>;

/** What `checkOptions` returns for a spec: each key's checked value. */
export type CheckedOptions<S extends OptionSpec> = { readonly [K in keyof S]: ReturnType<S[K]> };

/**
 * Check `options` against `spec` at once: an object (`undefined` is no
 * options; `null` is refused), no key outside the spec (`hints` adds a word
 * for a known wrong key), each value by its rule. Returns the checked values,
 * frozen. Throws `OptionsError` for the first failure.
 */
export function checkOptions<S extends OptionSpec>(
  options: unknown,
  where: string,
  spec: S,
  hints: Readonly<Record<string, string>> = {},
): CheckedOptions<S> {
  const { keys, known, rules } = specParts(spec);
  if (options === null || typeof options !== "object" || Array.isArray(options))
    checkOptionsObject(options === undefined ? {} : options, where, `{ ${keys.join(", ")} }`);
  const given = (options ?? {}) as Record<string, unknown>;
  for (const key in given) {
    if (Object.hasOwn(given, key) && !known.has(key)) checkKnownKeys(given, keys, where, hints);
  }
  const out: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) out[keys[i]!] = rules[i]!(given[keys[i]!], where, keys[i]!);
  return Object.freeze(out) as CheckedOptions<S>;
}

/** A spec's keys, as a list and a set, and its rules in the same order. */
interface SpecParts {
  readonly keys: readonly string[];
  readonly known: ReadonlySet<string>;
  readonly rules: readonly OptionRule<unknown>[];
}

/**
 * Each spec's parts, made on its first check: a spec is declared once (a
 * module constant, not changed after) and checked on every construction (a
 * `RunContext` per run), so its keys are not listed again per call.
 */
const SPEC_PARTS = new WeakMap<OptionSpec, SpecParts>();

function specParts(spec: OptionSpec): SpecParts {
  let parts = SPEC_PARTS.get(spec);
  if (!parts) {
    const keys = Object.keys(spec);
    parts = { keys, known: new Set(keys), rules: keys.map((k) => spec[k]!) };
    SPEC_PARTS.set(spec, parts);
  }
  return parts;
}

/**
 * Check a decorator's options (`@Tool`, `@McpServer`, ...) against `spec`, as
 * `checkOptions` does, when the decorator is applied: every failure is a
 * `DefinitionError` naming the decorated `target` and the key, its message
 * prefixed with `where` (`@McpServer on Engine`). Missing options, or options
 * that are not an object, are refused with `shape` (what a good one looks like).
 */
export function checkDefinition<S extends OptionSpec>(
  options: unknown,
  target: string,
  where: string,
  spec: S,
  shape: string,
): CheckedOptions<S> {
  if (options === undefined) throw new DefinitionError(target, "options", `${where}: options are required (${shape})`);
  if (options === null || typeof options !== "object" || Array.isArray(options))
    throw new DefinitionError(target, "options", `${where}: options must be an object ${shape}, got ${describeValue(options)}`);
  try {
    return checkOptions(options, where, spec);
  } catch (err) {
    if (err instanceof OptionsError) throw new DefinitionError(target, err.option, err.message);
    throw err;
  }
}

/** How an item of a list is named in a message: a class or function by its name, anything else by its type and value. */
function itemLabel(x: unknown): string {
  return typeof x === "function" ? x.name || "an anonymous function" : describeValue(x);
}

/** Run a nested rule; its `OptionsError` is reported under the outer option (`restart`), its text unchanged. */
function nested<T>(run: () => T, option: string): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof OptionsError && err.option !== option) throw new OptionsError(err.where, option, err.message, { cause: err.cause });
    throw err;
  }
}

/** The rules a spec is written in; each names what it accepts in its message. */
export const opt = {
  /** `undefined` (wait forever) or milliseconds in (0, MAX_TIMEOUT_MS]. */
  timeoutMs: (): OptionRule<number | undefined> => (v, where, option) => checkTimeoutMs(v, where, option),
  /** An integer 0-65535; `undefined` gives `fallback` (0, ephemeral). */
  port:
    (fallback = 0): OptionRule<number> =>
    (v, where, option) =>
      checkPort(v, where, option, fallback),
  /** A positive integer; `undefined` gives `fallback`, or is refused without one. */
  positiveInt:
    (fallback?: number): OptionRule<number> =>
    (v, where, option) =>
      checkPositiveInt(v, where, option, fallback),
  /** A required non-empty string; `hint` says what a good one looks like. */
  nonEmptyString:
    (hint?: string): OptionRule<string> =>
    (v, where, option) =>
      checkNonEmptyString(v, where, option, hint),
  /** One of `accepted`; `undefined` gives `fallback`, or is refused without one. */
  oneOf:
    <T extends string>(accepted: readonly T[], fallback?: T): OptionRule<T> =>
    (v, where, option) =>
      checkOneOf(v, accepted, where, option, fallback),
  /** `undefined`, or an integer `>= min` (`maxRetries` from 0, `maxTokens` from 1). */
  int:
    (min: number): OptionRule<number | undefined> =>
    (v, where, option) => {
      if (v === undefined) return undefined;
      if (typeof v !== "number" || !Number.isInteger(v) || v < min)
        throw new OptionsError(where, option, `${where}: '${option}' must be an integer >= ${min}, got ${describeValue(v)}`);
      return v;
    },
  /** `undefined`, or a string; `hint` says what a good one looks like, and `nonEmpty` refuses `""`. */
  string:
    (hint = "a string", nonEmpty = false): OptionRule<string | undefined> =>
    (v, where, option) => {
      if (v === undefined) return undefined;
      if (typeof v !== "string" || (nonEmpty && v === ""))
        throw new OptionsError(where, option, `${where}: '${option}' must be ${hint}, got ${describeValue(v)}`);
      return v;
    },
  /** A number of milliseconds from 0 (a cache TTL, a backoff); `undefined` gives `fallback`. */
  nonNegativeMs:
    <T extends number | undefined>(fallback: T): OptionRule<number | T> =>
    (v, where, option) => {
      if (v === undefined) return fallback;
      if (typeof v !== "number" || !(Number.isFinite(v) && v >= 0))
        throw new OptionsError(where, option, `${where}: ${option} must be a non-negative number of milliseconds, got ${String(v)}`);
      return v;
    },
  /** `undefined`, or `true`/`false`. */
  boolean: (): OptionRule<boolean | undefined> => (v, where, option) => {
    if (v === undefined || typeof v === "boolean") return v;
    throw new OptionsError(where, option, `${where}: '${option}' must be true or false, got ${describeValue(v)}`);
  },
  /** An optional function; `shape` is its signature in words. */
  fn:
    <F extends (...args: never[]) => unknown>(shape: string): OptionRule<F | undefined> =>
    (v, where, option) =>
      checkFunction<F>(v, where, option, shape),
  /** `undefined`, or what `rule` accepts. */
  optional:
    <T>(rule: OptionRule<T>): OptionRule<T | undefined> =>
    (v, where, option) =>
      v === undefined ? undefined : rule(v, where, option),
  /**
   * `undefined`, or a value `test` accepts; `accepted` says what that is in
   * words ("an array of strings"), for the message.
   */
  that:
    <T>(test: (v: unknown) => boolean, accepted: string): OptionRule<T | undefined> =>
    (v, where, option) => {
      if (v === undefined) return undefined;
      if (!test(v)) throw new OptionsError(where, option, `${where}: '${option}' must be ${accepted}, got ${describeValue(v)}`);
      return v as T;
    },
  /** Required: what `rule` accepts, `undefined` refused with `hint` (what a good value looks like). */
  required:
    <T>(rule: OptionRule<T | undefined>, hint: string): OptionRule<T> =>
    (v, where, option) => {
      if (v === undefined) throw new OptionsError(where, option, `${where}: '${option}' is required (${hint})`);
      return rule(v, where, option) as T;
    },
  /** `undefined`, or an array of strings (each non-empty with `nonEmpty`), returned as a frozen copy. */
  stringArray:
    (nonEmpty = false): OptionRule<readonly string[] | undefined> =>
    (v, where, option) => {
      if (v === undefined) return undefined;
      if (!Array.isArray(v) || v.some((x) => typeof x !== "string" || (nonEmpty && x === ""))) {
        throw new OptionsError(
          where,
          option,
          `${where}: '${option}' must be an array of ${nonEmpty ? "non-empty " : ""}strings, got ${describeValue(v)}`,
        );
      }
      return Object.freeze([...(v as string[])]);
    },
  /**
   * `undefined`, or an array whose every item `test` accepts; `item` says what
   * one is ("a @Tool class or a Tool object"). A bad item is named by its
   * index and shown (`tools[1] (Plain) is not a @Tool class or a Tool object`).
   */
  list:
    <T>(test: (x: unknown) => boolean, item: string): OptionRule<readonly T[] | undefined> =>
    (v, where, option) => {
      if (v === undefined) return undefined;
      if (!Array.isArray(v))
        throw new OptionsError(where, option, `${where}: '${option}' must be an array, each item ${item}; got ${describeValue(v)}`);
      const i = v.findIndex((x) => !test(x));
      if (i >= 0) throw new OptionsError(where, option, `${where}: ${option}[${i}] (${itemLabel(v[i])}) is not ${item}`);
      return v as readonly T[];
    },
  /** `undefined`, or an object of string values (`env`, `headers`), returned as a copy; a bad entry is named (`'env.A'`). */
  stringRecord: (): OptionRule<Record<string, string> | undefined> => (v, where, option) => {
    if (v === undefined) return undefined;
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      throw new OptionsError(
        where,
        option,
        `${where}: '${option}' must be an object of strings, got ${v === null ? "null" : Array.isArray(v) ? "an array" : typeof v}`,
      );
    }
    const out: Record<string, string> = {};
    for (const [k, x] of Object.entries(v)) {
      if (typeof x !== "string") throw new OptionsError(where, option, `${where}: '${option}.${k}' must be a string, got ${typeof x}`);
      out[k] = x;
    }
    return out;
  },
  /** `undefined`, or an object checked against its own `spec` (unknown keys refused, named `option.key`). */
  object:
    <S extends OptionSpec>(spec: S): OptionRule<CheckedOptions<S> | undefined> =>
    (v, where, option) => {
      if (v === undefined) return undefined;
      if (v === null || typeof v !== "object" || Array.isArray(v)) {
        throw new OptionsError(
          where,
          option,
          `${where}: '${option}' must be an object { ${Object.keys(spec).join(", ")} }, got ${describeValue(v)}`,
        );
      }
      const inner = `${where}: '${option}'`;
      const key = unknownKey(v, Object.keys(spec));
      if (key !== undefined) throw new OptionsError(where, option, unknownOptionMessage(inner, key, Object.keys(spec)));
      const out: Record<string, unknown> = {};
      for (const [k, rule] of Object.entries(spec))
        out[k] = nested(() => rule((v as Record<string, unknown>)[k], where, `${option}.${k}`), option);
      return Object.freeze(out) as CheckedOptions<S>;
    },
  /** Accepted as given: the caller checks it further (an object with its own rules). */
  any:
    <T = unknown>(): OptionRule<T> =>
    (v) =>
      v as T,
} as const;
