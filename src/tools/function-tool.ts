/**
 * @module tools/function-tool
 * `tool(options, fn)` and the `Tool` objects built from `@Tool` classes.
 */
import { OptionsError } from "../errors/options.error.js";
import { makeValidator, type ArgumentValidator } from "./validate.js";
import { resolveToolOptions, type ResolvedToolOptions, type ToolOptions } from "./tool-options.js";
import type { RunContext } from "../context/run-context.js";
import type { JsonSchema, Tool, ToolSchema, ToolTaskMode } from "./tool.js";
import type { DtoClass } from "./schema.js";
import type { StandardSchemaOutput, StandardSchemaV1 } from "./standard-schema.js";

/** A tool body: receives validated arguments and the run's context. */
export type ToolFn<I = Record<string, unknown>> = (input: I, ctx: RunContext) => unknown;

/**
 * A `Tool` made from options and a body. Validates arguments synchronously
 * before the body runs (a bad call throws `ToolArgumentError`), then awaits the
 * body once.
 */
export class FunctionTool implements Tool {
  readonly name: string;
  readonly description: string;
  readonly schema: ToolSchema;
  readonly sideEffecting: boolean;
  readonly requiresApproval: boolean;
  readonly caps: readonly string[];
  /** The OAuth scopes a hosted call needs (present only when declared). */
  readonly scopes?: readonly string[];
  /** The structured result's schema, when declared (`outputSchema`). */
  readonly outputSchema?: JsonSchema;
  /** When a served call becomes an MCP task (`"auto"` unless declared). */
  readonly task: ToolTaskMode;
  /** The served result's budget in characters, when declared. */
  readonly maxResultChars?: number;
  /** Claude Code's tool-search hint, when declared. */
  readonly searchHint?: string;
  /** Load up front in Claude Code, when declared. */
  readonly alwaysLoad?: boolean;
  /** Who defined the tool (class or function name), for error messages. */
  readonly owner: string;
  private readonly validate: ArgumentValidator;

  constructor(
    options: ResolvedToolOptions,
    private readonly body: ToolFn<never>,
    owner: string,
  ) {
    this.name = options.name;
    this.description = options.description;
    this.schema = Object.freeze({ name: options.name, description: options.description, parameters: options.parameters });
    this.sideEffecting = options.sideEffecting;
    this.requiresApproval = options.requiresApproval;
    this.caps = options.caps;
    if (options.scopes.length) this.scopes = options.scopes;
    if (options.outputSchema) this.outputSchema = options.outputSchema;
    this.task = options.task;
    if (options.maxResultChars !== undefined) this.maxResultChars = options.maxResultChars;
    if (options.searchHint !== undefined) this.searchHint = options.searchHint;
    if (options.alwaysLoad !== undefined) this.alwaysLoad = options.alwaysLoad;
    this.owner = owner;
    this.validate = makeValidator(options.name, options.input, options.parameters);
    Object.freeze(this);
  }

  /** Validate `args` without running the body: the arguments it would get, or `ToolArgumentError`. */
  checkArguments(args: Record<string, unknown>): Record<string, unknown> {
    return this.validate(args);
  }

  /** Validate `args` and run the body. Throws `ToolArgumentError` for a bad call, or whatever the body throws. */
  run(args: Record<string, unknown>, ctx: RunContext): Promise<unknown> {
    let input: Record<string, unknown>;
    try {
      input = this.validate(args);
    } catch (err) {
      return Promise.reject(err);
    }
    try {
      return Promise.resolve((this.body as ToolFn)(input, ctx));
    } catch (err) {
      return Promise.reject(err);
    }
  }
}

/**
 * Make a tool from a plain function.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * const runCheck = tool(
 *   { description: "Run the named check.", sideEffecting: false, input: z.object({ name: z.string() }) },
 *   async function runCheck({ name }) { return `${name}:ok`; }, // name: string, from the schema
 * );
 * ```
 * `input` is a Standard Schema (zod 4.2+, valibot, arktype: the function's
 * input type is the schema's output type, and the library validates every
 * call), a JSON Schema object, or a class-validator DTO class; omitted, the
 * tool takes no arguments. The name defaults to the function's name in
 * snake_case. Options are checked now; a bad one (an `input` agentkit cannot
 * read among them) throws `DefinitionError` naming the function and the key.
 */
export function tool<S extends StandardSchemaV1>(
  options: ToolOptions<S> & { readonly input: S },
  fn: ToolFn<StandardSchemaOutput<S>>,
): FunctionTool;
/** A tool whose `input` is a JSON Schema or a DTO class (or absent): the function's input type is yours to declare. */
export function tool<I = Record<string, unknown>>(options: ToolOptions<JsonSchema | DtoClass>, fn: ToolFn<I>): FunctionTool;
export function tool(options: ToolOptions, fn: ToolFn<never>): FunctionTool {
  if (typeof fn !== "function")
    throw new OptionsError("tool()", "fn", `tool(): the second argument must be the tool's function, got ${typeof fn}`);
  const owner = fn.name || options?.name || "anonymous function";
  const resolved = resolveToolOptions(owner, "tool()", options, fn.name || "");
  return new FunctionTool(resolved, fn, `function ${owner}`);
}
