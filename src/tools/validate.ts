/**
 * @module tools/validate
 * Argument validation before `run`: precise `ToolArgumentError`s, no implicit
 * type conversion. Synchronous, so the call path adds no awaits.
 */
import { MAX_ARGUMENT_DEPTH } from "../util/nesting.js";
import type { ValidationError } from "class-validator";
import type { Ajv, ErrorObject, Options as AjvOptions, ValidateFunction } from "ajv";
import { ToolArgumentError, type InvalidArgument } from "../errors/tool-argument.error.js";
import { describeValue } from "../util/format.js";
import { isDtoClass, schemaProperties, type DtoClass, type ToolInput } from "./schema.js";
import { isStandardSchema, standardValidate, type StandardSchemaV1 } from "./standard-schema.js";
import { ajv2019, ajv2020, ajvDraft07, ajvFormats, classTransformer, classValidator } from "./validation-libraries.js";
import type { JsonSchema } from "./tool.js";

// addUsedSchema: false -- two tools may carry schemas with the same $id; neither is added to a shared namespace.
const AJV_OPTIONS: AjvOptions = {
  allErrors: true,
  strict: false,
  logger: false,
  coerceTypes: false,
  useDefaults: false,
  addUsedSchema: false,
};
const engines = new Map<string, Ajv>();

/** One ajv per JSON Schema dialect: draft-07 (and earlier-compatible) by default, 2019-09 and 2020-12 by `$schema`. */
function ajvFor(schema: JsonSchema): Ajv {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  const dialect = declared.includes("2020-12") ? "2020-12" : declared.includes("2019-09") ? "2019-09" : "draft-07";
  let ajv = engines.get(dialect);
  if (!ajv) {
    const Engine = dialect === "2020-12" ? ajv2020().Ajv2020 : dialect === "2019-09" ? ajv2019().Ajv2019 : ajvDraft07().Ajv;
    ajv = ajvFormats()(new Engine(AJV_OPTIONS) as Ajv);
    engines.set(dialect, ajv);
  }
  return ajv;
}

/**
 * Compile a raw JSON Schema with the ajv of its dialect. Throws ajv's error
 * when the schema is not valid JSON Schema (callers turn that into a
 * `DefinitionError` when options are applied).
 */
export function compileJsonSchema(schema: JsonSchema): ValidateFunction {
  return ajvFor(schema).compile(schema as object);
}

/**
 * Check `value` against a schema seen once (a question's `requestedSchema`):
 * `undefined` when it matches, else ajv's errors as one line. The compiled
 * schema is dropped again, so a stream of distinct schemas does not grow
 * ajv's cache.
 */
export function schemaMismatch(schema: JsonSchema, value: unknown): string | undefined {
  const ajv = ajvFor(schema);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema as object);
  } catch (err) {
    return `the schema is not valid JSON Schema (${(err as Error).message})`;
  }
  try {
    return validate(value) ? undefined : ajv.errorsText(validate.errors, { dataVar: "answer" });
  } finally {
    ajv.removeSchema(schema as object);
  }
}

/** Validates one tool's arguments; returns the value `run` receives (a DTO instance for DTO tools). */
export type ArgumentValidator = (args: unknown) => Record<string, unknown>;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * What JSON Schema validation cannot see: numbers that are not finite (a
 * request's `1e400` parses to Infinity, which ajv's integer check lets
 * through) and nesting deep enough to overflow a recursive validator. Walks
 * iteratively; returns the offending places.
 */
function structuralProblems(value: Record<string, unknown>): InvalidArgument[] {
  const out: InvalidArgument[] = [];
  const stack: Array<[unknown, string, number]> = [[value, "", 0]];
  while (stack.length) {
    const [v, path, depth] = stack.pop()!;
    if (typeof v === "number" && !Number.isFinite(v))
      out.push({
        argument: path || "(arguments)",
        expected: "a finite number (JSON has no Infinity or NaN)",
        received: `number ${String(v)}`,
      });
    else if (v && typeof v === "object") {
      if (depth >= MAX_ARGUMENT_DEPTH) {
        out.push({
          argument: path || "(arguments)",
          expected: `nested at most ${MAX_ARGUMENT_DEPTH} levels deep`,
          received: "deeper nesting",
        });
        break;
      }
      for (const [k, child] of Object.entries(v)) stack.push([child, path ? `${path}/${k}` : k, depth + 1]);
    }
  }
  return out;
}

/**
 * Build the validator for a tool. The schema decides unexpected/missing
 * arguments (so DTO and raw-schema tools word them the same); a DTO's
 * class-validator constraints, or ajv for a raw schema, decide the rest. A
 * Standard Schema's derived JSON Schema is checked by ajv first (so its
 * messages read like every other tool's), then the library validates what
 * JSON Schema cannot say (refinements) and its output is what `run` gets.
 */
export function makeValidator(toolName: string, input: ToolInput | undefined, schema: JsonSchema): ArgumentValidator {
  const accepted = schemaProperties(schema);
  if (isDtoClass(input)) return dtoValidator(toolName, input, schema, accepted);
  const checked = jsonValidator(toolName, schema, accepted);
  return isStandardSchema(input) ? (args) => libraryChecked(toolName, input, checked(args), accepted) : checked;
}

/** The library's verdict on arguments that matched its derived JSON Schema: its output, or its issues as a `ToolArgumentError`. */
function libraryChecked(
  toolName: string,
  schema: StandardSchemaV1,
  value: Record<string, unknown>,
  accepted: string[],
): Record<string, unknown> {
  const r = standardValidate(toolName, schema, value);
  if (r.ok) return r.value as Record<string, unknown>;
  const invalid = r.issues.map((i) => ({
    argument: i.path.map(String).join("/") || "(arguments)",
    expected: `valid (${i.message})`,
    received: describeValue(i.value),
  }));
  throw new ToolArgumentError(toolName, [], [], invalid, accepted);
}

function jsonValidator(toolName: string, schema: JsonSchema, accepted: string[]): ArgumentValidator {
  const validate = compileJsonSchema(schema);
  return (args) => {
    const value = args === undefined ? {} : args;
    if (!isPlainObject(value)) throw new ToolArgumentError(toolName, [], [], [], accepted, describeValue(value));
    const structural = structuralProblems(value);
    if (structural.length) throw new ToolArgumentError(toolName, [], [], structural, accepted);
    if (validate(value)) return value;
    throw fromAjvErrors(toolName, validate, value, accepted);
  };
}

function dtoValidator(toolName: string, dto: DtoClass, schema: JsonSchema, accepted: string[]): ArgumentValidator {
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const known = new Set(accepted);
  return (args) => {
    const value = args === undefined ? {} : args;
    if (!isPlainObject(value)) throw new ToolArgumentError(toolName, [], [], [], accepted, describeValue(value));
    const structural = structuralProblems(value);
    if (structural.length) throw new ToolArgumentError(toolName, [], [], structural, accepted);
    const unexpected = Object.keys(value).filter((k) => !known.has(k));
    const missing = required.filter((k) => !Object.hasOwn(value, k) || value[k] === undefined);
    const instance = classTransformer().plainToInstance(dto as new () => object, value, { enableImplicitConversion: false });
    const errors = classValidator().validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
    // @IsOptional lets null through; the schema the model is shown does not.
    const invalid: InvalidArgument[] = nullsRefused(value, schema, schema);
    const flagged = new Set(invalid.map((i) => i.argument));
    for (const e of flatten(errors)) {
      if (flagged.has(e.path)) continue;
      const nested = e.path.includes("/");
      // Top-level unexpected and missing arguments were found above, from the schema.
      if (e.constraints?.whitelistValidation) {
        if (nested && !unexpected.includes(e.path)) unexpected.push(e.path);
        continue;
      }
      if (e.constraints?.unknownValue) continue;
      if (e.value === undefined) {
        // An error on an absent property means it is required (optional ones carry @IsOptional).
        if (nested && !missing.includes(e.path)) missing.push(e.path);
        if (nested || missing.includes(e.path)) continue;
      }
      const expected = Object.values(e.constraints ?? {})
        .map((m) => expectedFromMessage(e.property, m))
        .join(" and ");
      invalid.push({ argument: e.path, expected, received: describeValue(e.value) });
    }
    if (unexpected.length || missing.length || invalid.length) {
      // Name faults in schema order, whichever check found them.
      const rank = (i: InvalidArgument) => accepted.indexOf(i.argument.split("/")[0]!);
      throw new ToolArgumentError(
        toolName,
        unexpected,
        missing,
        invalid.sort((a, b) => rank(a) - rank(b)),
        accepted,
      );
    }
    return instance as Record<string, unknown>;
  };
}

function allowsNull(prop: Record<string, unknown>): boolean {
  const types = Array.isArray(prop.type) ? prop.type : [prop.type];
  if (types.includes("null") || prop.nullable === true) return true;
  const alternatives = [...(Array.isArray(prop.anyOf) ? prop.anyOf : []), ...(Array.isArray(prop.oneOf) ? prop.oneOf : [])];
  if (alternatives.some((a) => allowsNull(a as Record<string, unknown>))) return true;
  // A property the schema does not type (no type, no $ref) accepts anything.
  return prop.type === undefined && prop.$ref === undefined && !alternatives.length;
}

function resolveRef(prop: Record<string, unknown>, root: JsonSchema): Record<string, unknown> | undefined {
  if (typeof prop.$ref !== "string" || !prop.$ref.startsWith("#/$defs/")) return undefined;
  return (root.$defs as Record<string, Record<string, unknown>> | undefined)?.[prop.$ref.slice(8)];
}

/** Arguments that are `null` where the (DTO-derived) schema does not allow null, at any depth. */
function nullsRefused(value: unknown, schema: JsonSchema, root: JsonSchema, prefix = ""): InvalidArgument[] {
  if (!isPlainObject(value)) return [];
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const out: InvalidArgument[] = [];
  for (const [k, v] of Object.entries(value)) {
    const prop = Object.hasOwn(props, k) ? props[k]! : undefined;
    if (!prop) continue;
    const path = prefix ? `${prefix}/${k}` : k;
    const target = resolveRef(prop, root);
    if (v === null) {
      if (!allowsNull(prop)) out.push({ argument: path, expected: target ? "an object" : String(prop.type), received: "null" });
    } else if (target) {
      out.push(...nullsRefused(v, target, root, path));
    } else if (Array.isArray(v) && prop.items && typeof prop.items === "object") {
      const item = resolveRef(prop.items as Record<string, unknown>, root);
      if (item) v.forEach((el, i) => out.push(...nullsRefused(el, item, root, `${path}/${i}`)));
    }
  }
  return out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * class-validator messages repeat the property (`strict must be a boolean
 * value`); the error already names the argument, so keep what follows
 * "must be". Other wordings are kept whole.
 */
function expectedFromMessage(property: string, message: string): string {
  const p = escapeRegExp(property);
  const plain = new RegExp(`^(?:nested property )?${p} must be (.+)$`, "s").exec(message);
  if (plain) return plain[1]!;
  const each = new RegExp(`^each value in (?:nested property )?${p} must be (.+)$`, "s").exec(message);
  if (each) return `an array whose every value is ${each[1]}`;
  return `valid (${message})`;
}

function flatten(
  errors: ValidationError[],
  prefix = "",
): Array<{ path: string; property: string; value: unknown; constraints?: Record<string, string> }> {
  const out: Array<{ path: string; property: string; value: unknown; constraints?: Record<string, string> }> = [];
  for (const e of errors) {
    const path = prefix ? `${prefix}/${e.property}` : e.property;
    if (e.constraints) out.push({ path, property: e.property, value: e.value, constraints: e.constraints });
    if (e.children?.length) out.push(...flatten(e.children, path));
  }
  return out;
}

function pointerToPath(p: string): string {
  return p.replace(/^\//, "").replace(/~1/g, "/").replace(/~0/g, "~");
}

function fromAjvErrors(
  toolName: string,
  validate: ValidateFunction,
  value: Record<string, unknown>,
  accepted: string[],
): ToolArgumentError {
  const unexpected: string[] = [];
  const missing: string[] = [];
  const invalid: InvalidArgument[] = [];
  const seen = new Set<string>();
  // Sets beside the lists: a call with 100,000 unexpected keys (1.5 MB, under the
  // body limit) made `includes` quadratic and blocked the event loop ~15 s.
  const unexpectedSeen = new Set<string>();
  const missingSeen = new Set<string>();
  for (const e of (validate.errors ?? []) as ErrorObject[]) {
    const at = pointerToPath(e.instancePath);
    if (e.keyword === "additionalProperties") {
      const name = (e.params as { additionalProperty: string }).additionalProperty;
      const full = at ? `${at}/${name}` : name;
      if (!unexpectedSeen.has(full)) {
        unexpectedSeen.add(full);
        unexpected.push(full);
      }
    } else if (e.keyword === "required") {
      const name = (e.params as { missingProperty: string }).missingProperty;
      const full = at ? `${at}/${name}` : name;
      if (!missingSeen.has(full)) {
        missingSeen.add(full);
        missing.push(full);
      }
    } else {
      const key = `${at}|${e.keyword}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const received = at
        ? describeValue(at.split("/").reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], value))
        : describeValue(value);
      invalid.push({ argument: at || "(arguments)", expected: ajvExpected(e), received });
    }
  }
  return new ToolArgumentError(toolName, unexpected, missing, invalid, accepted);
}

function ajvExpected(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "type":
      return String(p.type);
    case "enum":
      return `one of ${JSON.stringify(p.allowedValues)}`;
    case "const":
      return `${JSON.stringify(p.allowedValue)}`;
    default:
      return `valid (${e.keyword}: ${e.message ?? "failed"})`;
  }
}
