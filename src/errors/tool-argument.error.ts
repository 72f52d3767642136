/**
 * @module errors/tool-argument.error
 * The error a tool raises when a call's arguments do not match its schema.
 */
import { AgentkitError } from "./agentkit.error.js";
import { pyList } from "../util/format.js";

/** One argument whose value did not match what the schema expects. */
export interface InvalidArgument {
  /** The argument's name (a JSON pointer-ish path for nested values, e.g. `items/0/id`). */
  readonly argument: string;
  /** What the schema expected, in words (`"boolean"`, `"name must be a string"`). */
  readonly expected: string;
  /** What came, rendered for a reader (`string "yes"`). */
  readonly received: string;
}

/**
 * A call rejected before the tool body ran. The message names the tool, the
 * offending arguments and the accepted set, e.g.
 * `tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']`.
 */
export class ToolArgumentError extends AgentkitError {
  constructor(
    /** The tool's name. */
    readonly tool: string,
    /** Arguments the schema does not accept. */
    readonly unexpected: readonly string[],
    /** Required arguments that were absent. */
    readonly missing: readonly string[],
    /** Arguments present with a wrong type or value. */
    readonly invalid: readonly InvalidArgument[],
    /** The arguments the tool accepts, in schema order. */
    readonly accepted: readonly string[],
    /** Set when the arguments were not a JSON object at all. */
    readonly notAnObject?: string,
  ) {
    super("tool_argument", ToolArgumentError.format(tool, unexpected, missing, invalid, accepted, notAnObject));
  }

  private static format(
    tool: string,
    unexpected: readonly string[],
    missing: readonly string[],
    invalid: readonly InvalidArgument[],
    accepted: readonly string[],
    notAnObject?: string,
  ): string {
    const parts: string[] = [];
    if (notAnObject !== undefined) parts.push(`arguments must be a JSON object, got ${notAnObject}`);
    if (unexpected.length) parts.push(`unexpected argument(s) ${pyList(unexpected)}`);
    if (missing.length) parts.push(`missing required argument(s) ${pyList(missing)}`);
    for (const i of invalid) parts.push(`argument '${i.argument}' must be ${i.expected}, got ${i.received}`);
    return `tool '${tool}' call rejected: ${parts.join("; ")}. Accepted arguments: ${pyList(accepted)}`;
  }
}
