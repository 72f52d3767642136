/**
 * @module bin/args
 * Command-line parsing for `agentkit`: `node:util` `parseArgs` with every
 * failure turned into a `UsageError` that says what is accepted.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { describeValue } from "../util/format.js";
import { UsageError } from "./cli.error.js";

/** The option table of one command (`parseArgs`'s `options`). */
export type OptionTable = NonNullable<ParseArgsConfig["options"]>;

/** A parsed command line. */
export interface CommandLine {
  /** Option values by name (strings, booleans, or arrays for `multiple` options). */
  readonly values: Record<string, string | boolean | string[] | undefined>;
  /** Positionals before a `--`. */
  readonly positionals: string[];
  /** Everything after the first `--` (a server command), or `null` when there was no `--`. */
  readonly rest: string[] | null;
}

function optionList(options: OptionTable): string {
  return Object.entries(options)
    .map(([name, o]) => `--${name}${o.type === "string" ? " <value>" : ""}`)
    .join(", ");
}

/**
 * Parse `argv` (the words after the command name) against `options`.
 * Everything after the first bare `--` is returned as `rest`, untouched (it is
 * a server command with flags of its own).
 *
 * @throws UsageError naming the unknown option or the missing value, and listing the accepted options.
 */
export function parseCommandLine(command: string, argv: readonly string[], options: OptionTable): CommandLine {
  const cut = argv.indexOf("--");
  const head = cut < 0 ? [...argv] : argv.slice(0, cut);
  const rest = cut < 0 ? null : argv.slice(cut + 1);
  try {
    const { values, positionals } = parseArgs({ args: head, options, allowPositionals: true, strict: true });
    return { values: values as CommandLine["values"], positionals, rest };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const message = (err as Error).message;
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      const opt = /'([^']+)'/.exec(message)?.[1] ?? "?";
      throw new UsageError(
        `agentkit ${command}: unknown option '${opt}'. Accepted options: ${optionList(options)} (see agentkit ${command} --help)`,
      );
    }
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
      const opt = /'(--?[A-Za-z-]+)/.exec(message)?.[1] ?? "an option";
      throw new UsageError(`agentkit ${command}: option '${opt}' needs a value (see agentkit ${command} --help)`);
    }
    throw new UsageError(`agentkit ${command}: ${message} (see agentkit ${command} --help)`, { cause: err });
  }
}

/**
 * The usage error for a positional argument a command does not take. The
 * word itself is never repeated: a stray word is often a secret typed in the
 * wrong place, and this line lands in terminals and CI logs.
 *
 * @param position which positional it was, from 1.
 */
export function strayArgument(command: string, position: number, hint: string): UsageError {
  return new UsageError(
    `agentkit ${command}: unexpected extra argument #${position} (not repeated here: it may be a secret typed in the wrong place); ${hint}`,
  );
}

/** The value of a string option, or `undefined`. */
export function stringOption(line: CommandLine, name: string): string | undefined {
  const v = line.values[name];
  return typeof v === "string" ? v : undefined;
}

/** The values of a `multiple` string option (`[]` when absent). */
export function listOption(line: CommandLine, name: string): string[] {
  const v = line.values[name];
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
}

/** True when a boolean option was given. */
export function flag(line: CommandLine, name: string): boolean {
  return line.values[name] === true;
}

/**
 * A positive whole number of milliseconds from `--<name>`.
 *
 * @throws UsageError naming the flag, the value and what is accepted.
 */
export function parseMilliseconds(command: string, name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n <= 0) {
    throw new UsageError(
      `agentkit ${command}: --${name} must be a positive whole number of milliseconds (e.g. --${name} 30000), got '${value}'`,
    );
  }
  return n;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * `--header 'Name: value'` options as a record. The value of a malformed
 * header is never echoed (it may be a credential); the message says which
 * `--header` it was, by position.
 *
 * @throws UsageError for a header without `:` or with an invalid name.
 */
export function parseHeaders(command: string, list: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  list.forEach((h, i) => {
    const colon = h.indexOf(":");
    const name = colon < 0 ? "" : h.slice(0, colon).trim();
    if (colon < 0 || !HEADER_NAME.test(name)) {
      throw new UsageError(
        `agentkit ${command}: --header #${i + 1} is not 'Name: value' ` +
          `(${colon < 0 ? "it has no ':'" : "its name is not a valid HTTP header name"}); pass e.g. --header ` +
          `'Authorization: Bearer <token>'`,
      );
    }
    out[name] = h.slice(colon + 1).trim();
  });
  return out;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `--header-env Name=VAR` options as a record of header values read from the
 * environment: header `Name` gets the value of variable `VAR`, verbatim (so
 * a token need not be typed into argv, which any local user can read). The
 * value is never echoed; a message names the option by position, the header
 * and the variable.
 *
 * @throws UsageError for an entry that is not `Name=VAR`, an invalid header or
 * variable name, or a variable that is unset or empty.
 */
export function parseHeaderEnv(command: string, list: readonly string[], env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  const example = "pass e.g. --header-env Authorization=MCP_AUTH with MCP_AUTH='Bearer <token>' in the environment";
  list.forEach((entry, i) => {
    const eq = entry.indexOf("=");
    const name = eq < 0 ? "" : entry.slice(0, eq).trim();
    const variable = eq < 0 ? "" : entry.slice(eq + 1).trim();
    if (eq < 0 || !HEADER_NAME.test(name) || !ENV_NAME.test(variable)) {
      const why =
        eq < 0
          ? "it has no '='"
          : !HEADER_NAME.test(name)
            ? "its header name is not a valid HTTP header name"
            : "its variable is not a valid environment variable name";
      throw new UsageError(`agentkit ${command}: --header-env #${i + 1} is not 'Name=VAR' (${why}); ${example}`);
    }
    const value = env[variable];
    if (value === undefined || value === "") {
      throw new UsageError(
        `agentkit ${command}: --header-env ${name}=${variable}: the environment variable ${variable} is ` +
          `${value === undefined ? "not set" : "empty"}; set it to the header's value (e.g. export ` +
          `${variable}='Bearer <token>')`,
      );
    }
    out[name] = value.trim();
  });
  return out;
}

/**
 * `--env NAME=value` options as a record.
 *
 * @throws UsageError for an entry without `=` or with an empty name.
 */
export function parseEnv(command: string, list: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  list.forEach((e, i) => {
    const eq = e.indexOf("=");
    if (eq <= 0) throw new UsageError(`agentkit ${command}: --env #${i + 1} is not NAME=value; pass e.g. --env TZ=UTC`);
    out[e.slice(0, eq)] = e.slice(eq + 1);
  });
  return out;
}

/**
 * The tool arguments of `--args`: one JSON object.
 *
 * @throws UsageError saying what was wrong (not JSON, and where; or JSON of the wrong type) and what is accepted.
 */
export function parseToolArguments(command: string, text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  const accepted = `Accepted: one JSON object of argument names to values, e.g. --args '{"name": "lint"}' (or --args '{}' for none)`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`agentkit ${command}: --args is not valid JSON (${(err as Error).message}). ${accepted}`, { cause: err });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new UsageError(`agentkit ${command}: --args must be a JSON object, got ${describeValue(value)}. ${accepted}`);
  }
  return value as Record<string, unknown>;
}
