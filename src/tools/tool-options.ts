/**
 * @module tools/tool-options
 * Checking `@Tool`/`tool()` options when they are applied, not on first use.
 */
import { DefinitionError } from "../errors/tool-definition.error.js";
import { checkDefinition, opt, type OptionRule } from "../options/option-checks.js";
import { snakeCase } from "../util/format.js";
import { copyJsonSchema, dtoToJsonSchema, EMPTY_SCHEMA, inputJsonSchema, isDtoClass, type ToolInput } from "./schema.js";
import { compileJsonSchema } from "./validate.js";
import type { JsonSchema, ToolDeclarations, ToolTaskMode } from "./tool.js";

/** Options shared by `@Tool` and `tool()`. */
export interface ToolOptions<In extends ToolInput = ToolInput> extends ToolDeclarations {
  /** Default: the class or function name in snake_case. */
  readonly name?: string;
  /** Required: what the tool does, shown to the model. */
  readonly description: string;
  /**
   * The tool's arguments: a Standard Schema (a zod 4.2+, valibot or arktype
   * schema; `tool()` then types its function's input from it), a
   * class-validator DTO class, or a JSON Schema object with `type: "object"`.
   * Omitted: the tool takes no arguments (its schema is an empty object that
   * admits none, and a call with any argument is refused).
   */
  readonly input?: In;
  /**
   * A JSON Schema (`type: "object"`) of the tool's structured result. Served
   * as the tool's `outputSchema`; a plain object the tool returns then goes
   * out as `structuredContent` (and as JSON text).
   */
  readonly outputSchema?: JsonSchema;
  /** When a served call becomes an MCP task: `"auto"` (default), `"required"` or `"never"` (see `ToolTaskMode`). */
  readonly task?: ToolTaskMode;
}

/** Options after checking: complete, with the derived schema. */
export interface ResolvedToolOptions {
  readonly name: string;
  readonly description: string;
  readonly input?: ToolInput;
  readonly parameters: JsonSchema;
  readonly sideEffecting: boolean;
  readonly requiresApproval: boolean;
  readonly caps: readonly string[];
  /** The OAuth scopes a hosted call needs; empty for none. */
  readonly scopes: readonly string[];
  readonly outputSchema?: JsonSchema;
  /** `"auto"` unless declared. */
  readonly task: ToolTaskMode;
  /** The served result's budget, when declared. */
  readonly maxResultChars?: number;
  /** Claude Code's tool-search hint, when declared. */
  readonly searchHint?: string;
  /** Load up front in Claude Code, when declared. */
  readonly alwaysLoad?: boolean;
}

/** One OAuth scope token (RFC 6749 §3.3: %x21 / %x23-5B / %x5D-7E). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * A served item's name (a tool's, a resource's, a prompt's): non-empty, at most 128 characters, no surrounding
 * whitespace or control characters.
 */
export const itemName: OptionRule<string | undefined> = opt.that<string>(
  (v) => typeof v === "string" && v.trim() !== "" && v === v.trim() && v.length <= 128 && !/[\u0000-\u001f]/.test(v),
  "a non-empty string of at most 128 characters without surrounding whitespace or control characters",
);

const isStringList = (v: unknown, item: (x: string) => boolean): boolean =>
  Array.isArray(v) && v.every((c) => typeof c === "string" && item(c));

/**
 * The `scopes` of a served item (a tool's, a resource's, a prompt's): OAuth
 * scope names a hosted call needs, all of them. One rule, so the fence of a
 * hosted module reads every item's scopes the same way.
 */
export const scopeList: OptionRule<readonly string[] | undefined> = opt.that<readonly string[]>(
  (v) => isStringList(v, (c) => SCOPE_TOKEN.test(c)),
  'an array of OAuth scope names (printable ASCII, no spaces, quotes or backslashes; e.g. ["deploy:write"])',
);

/** `scopes` as checked by `scopeList`, deduplicated and frozen (`[]` for none). */
export function frozenScopes(scopes: readonly string[] | undefined): readonly string[] {
  return Object.freeze([...new Set(scopes ?? [])]);
}

/** What a result budget (`maxResultChars`, `results.maxChars`) accepts, in an error's words. */
export const RESULT_BUDGET =
  "a positive whole number of characters (e.g. 20000; over 50000 Claude Code is told to show results that long whole)";

/** True for a result budget: a positive safe integer. */
export function isResultBudget(v: unknown): v is number {
  return Number.isSafeInteger(v) && (v as number) > 0;
}

/** `@Tool`'s and `tool()`'s options, declared once. */
const TOOL_OPTIONS = {
  name: itemName,
  description: opt.required(
    opt.that<string>((v) => typeof v === "string" && v.trim() !== "", "a non-empty string the model reads to decide when to call the tool"),
    "a non-empty string the model reads to decide when to call the tool",
  ),
  input: opt.any<ToolInput | undefined>(),
  sideEffecting: opt.boolean(),
  requiresApproval: opt.boolean(),
  caps: opt.that<readonly string[]>((v) => isStringList(v, (c) => c.trim() !== ""), 'an array of non-empty strings (e.g. ["egress"])'),
  scopes: scopeList,
  outputSchema: opt.that<JsonSchema>(
    (v) => !!v && typeof v === "object" && !Array.isArray(v) && (v as { type?: unknown }).type === "object",
    'a JSON Schema object with type "object" (MCP structured content is an object)',
  ),
  maxResultChars: opt.that<number>(isResultBudget, RESULT_BUDGET),
  searchHint: opt.that<string>(
    (v) => typeof v === "string" && v.trim() !== "",
    "a non-empty string of words Claude Code's tool search matches",
  ),
  alwaysLoad: opt.boolean(),
  task: opt.that<ToolTaskMode>(
    (v) => v === "auto" || v === "required" || v === "never",
    '"auto" (a task once the call waits for a person or runs long), "required" or "never"',
  ),
} satisfies Record<keyof ToolOptions, OptionRule<unknown>>;

/**
 * Validate options for `target` (a class or function name) and resolve
 * defaults. Throws `DefinitionError` naming the target and the key.
 */
export function resolveToolOptions(
  target: string,
  kind: "@Tool" | "tool()",
  options: ToolOptions | undefined,
  fallbackName: string,
): ResolvedToolOptions {
  const where = `${kind} on ${target}`;
  const o = checkDefinition(options, target, where, TOOL_OPTIONS, "{ description, input?, ... }");
  // The default name (the class or function name in snake_case) is held to the same rule.
  const name = o.name ?? checkDefinition({ name: snakeCase(fallbackName) }, target, where, { name: itemName }, "").name!;
  let parameters: JsonSchema;
  try {
    parameters = o.input === undefined ? EMPTY_SCHEMA : isDtoClass(o.input) ? dtoToJsonSchema(o.input) : inputJsonSchema(o.input);
    // A raw schema that is not valid JSON Schema is refused now, not on the first call.
    if (!isDtoClass(o.input)) compileJsonSchema(parameters);
  } catch (err) {
    throw new DefinitionError(target, "input", `${where}: invalid 'input': ${(err as Error).message}`);
  }
  let outputSchema: JsonSchema | undefined;
  if (o.outputSchema !== undefined) {
    try {
      outputSchema = copyJsonSchema(o.outputSchema);
      compileJsonSchema(outputSchema);
    } catch (err) {
      throw new DefinitionError(target, "outputSchema", `${where}: invalid 'outputSchema': ${(err as Error).message}`);
    }
  }
  return Object.freeze({
    ...(outputSchema ? { outputSchema } : {}),
    name,
    description: o.description,
    input: o.input,
    parameters,
    sideEffecting: o.sideEffecting ?? true,
    requiresApproval: o.requiresApproval ?? false,
    caps: Object.freeze([...(o.caps ?? [])]),
    scopes: frozenScopes(o.scopes),
    task: o.task ?? "auto",
    ...(o.maxResultChars !== undefined ? { maxResultChars: o.maxResultChars } : {}),
    ...(o.searchHint !== undefined ? { searchHint: o.searchHint } : {}),
    ...(o.alwaysLoad !== undefined ? { alwaysLoad: o.alwaysLoad } : {}),
  });
}
