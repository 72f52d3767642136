/**
 * @module tools/tool-options
 * Checking `@Tool`/`tool()` options when they are applied, not on first use.
 */
import { DefinitionError } from "../errors/tool-definition.error.js";
import { snakeCase } from "../util/format.js";
import { copyJsonSchema, dtoToJsonSchema, EMPTY_SCHEMA, isDtoClass, type ToolInput } from "./schema.js";
import { compileJsonSchema } from "./validate.js";
import type { JsonSchema, ToolDeclarations } from "./tool.js";

/** Options shared by `@Tool` and `tool()`. */
export interface ToolOptions extends ToolDeclarations {
  /** Default: the class or function name in snake_case. */
  readonly name?: string;
  /** Required: what the tool does, shown to the model. */
  readonly description: string;
  /** A class-validator DTO class or a JSON Schema object; omitted means "no arguments". */
  readonly input?: ToolInput;
  /**
   * A JSON Schema (`type: "object"`) of the tool's structured result. Served
   * as the tool's `outputSchema`; a plain object the tool returns then goes
   * out as `structuredContent` (and as JSON text).
   */
  readonly outputSchema?: JsonSchema;
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
}

const KNOWN = new Set(["name", "description", "input", "sideEffecting", "requiresApproval", "caps", "scopes", "outputSchema"]);

/** One OAuth scope token (RFC 6749 §3.3: %x21 / %x23-5B / %x5D-7E). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * Validate options for `target` (a class or function name) and resolve
 * defaults. Throws `DefinitionError` naming the target and the key.
 */
export function resolveToolOptions(target: string, kind: "@Tool" | "tool()", options: ToolOptions | undefined, fallbackName: string): ResolvedToolOptions {
  const where = `${kind} on ${target}`;
  if (!options || typeof options !== "object") {
    throw new DefinitionError(target, "options", `${where}: options are required ({ description, input?, ... })`);
  }
  for (const k of Object.keys(options)) {
    if (!KNOWN.has(k)) throw new DefinitionError(target, k, `${where}: unknown option '${k}'. Accepted options: name, description, input, sideEffecting, requiresApproval, caps, scopes, outputSchema`);
  }
  const name = options.name ?? snakeCase(fallbackName);
  if (typeof name !== "string" || name.trim() === "" || name !== name.trim() || name.length > 128 || /[\u0000-\u001f]/.test(name)) {
    throw new DefinitionError(target, "name", `${where}: 'name' must be a non-empty string of at most 128 characters without surrounding whitespace or control characters, got ${JSON.stringify(name)}`);
  }
  if (typeof options.description !== "string" || options.description.trim() === "") {
    throw new DefinitionError(target, "description", `${where}: 'description' is required (a non-empty string the model reads to decide when to call the tool)`);
  }
  for (const k of ["sideEffecting", "requiresApproval"] as const) {
    if (options[k] !== undefined && typeof options[k] !== "boolean") {
      throw new DefinitionError(target, k, `${where}: '${k}' must be a boolean, got ${JSON.stringify(options[k])}`);
    }
  }
  const caps = options.caps ?? [];
  if (!Array.isArray(caps) || caps.some((c) => typeof c !== "string" || c.trim() === "")) {
    throw new DefinitionError(target, "caps", `${where}: 'caps' must be an array of non-empty strings (e.g. ["egress"]), got ${JSON.stringify(options.caps)}`);
  }
  const scopes = options.scopes ?? [];
  if (!Array.isArray(scopes) || scopes.some((c) => typeof c !== "string" || c === "" || !SCOPE_TOKEN.test(c))) {
    throw new DefinitionError(target, "scopes", `${where}: 'scopes' must be an array of OAuth scope names (printable ASCII, no spaces, quotes or backslashes; e.g. ["deploy:write"]), got ${JSON.stringify(options.scopes)}`);
  }
  let parameters: JsonSchema;
  try {
    parameters = options.input === undefined ? EMPTY_SCHEMA : isDtoClass(options.input) ? dtoToJsonSchema(options.input) : copyJsonSchema(options.input);
    // A raw schema that is not valid JSON Schema is refused now, not on the first call.
    if (!isDtoClass(options.input)) compileJsonSchema(parameters);
  } catch (err) {
    throw new DefinitionError(target, "input", `${where}: invalid 'input': ${(err as Error).message}`);
  }
  let outputSchema: JsonSchema | undefined;
  if (options.outputSchema !== undefined) {
    const o = options.outputSchema as { type?: unknown } | null;
    if (!o || typeof o !== "object" || Array.isArray(o) || o.type !== "object") {
      throw new DefinitionError(target, "outputSchema", `${where}: 'outputSchema' must be a JSON Schema object with type "object" (MCP structured content is an object), got ${JSON.stringify(options.outputSchema)}`);
    }
    try {
      outputSchema = copyJsonSchema(options.outputSchema);
      compileJsonSchema(outputSchema);
    } catch (err) {
      throw new DefinitionError(target, "outputSchema", `${where}: invalid 'outputSchema': ${(err as Error).message}`);
    }
  }
  return Object.freeze({
    ...(outputSchema ? { outputSchema } : {}),
    name,
    description: options.description,
    input: options.input,
    parameters,
    sideEffecting: options.sideEffecting ?? true,
    requiresApproval: options.requiresApproval ?? false,
    caps: Object.freeze([...caps]),
    scopes: Object.freeze([...new Set(scopes)]),
  });
}
