/**
 * @module tools/schema
 * Turning a tool's `input` (a Standard Schema, a class-validator DTO class or
 * a JSON Schema) into the frozen JSON Schema a model is shown.
 */
import { OptionsError } from "../errors/options.error.js";
import { classTransformerStorage, classValidator, classValidatorJsonSchema } from "./validation-libraries.js";
import { deepFreeze } from "../util/format.js";
import type { JsonSchema } from "./tool.js";
import { claimsStandardSchema, standardJsonSchema, type StandardSchemaV1 } from "./standard-schema.js";

/** A class whose properties carry class-validator decorators. */
export type DtoClass = new (...args: never[]) => object;

/**
 * A tool's input: a Standard Schema (zod 4, valibot, arktype), a DTO class or
 * a raw JSON Schema object.
 */
export type ToolInput = StandardSchemaV1 | DtoClass | JsonSchema;

/** True when `input` is a class (a DTO), not a schema object (an arktype schema is a function too: not a class). */
export function isDtoClass(input: unknown): input is DtoClass {
  return typeof input === "function" && !claimsStandardSchema(input);
}

const options = () => ({
  classTransformerMetadataStorage: classTransformerStorage().defaultMetadataStorage,
  refPointerPrefix: "#/$defs/",
  classValidatorMetadataStorage: classValidator().getMetadataStorage(),
});

function collectRefs(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) for (const n of node) collectRefs(n, into);
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/")) into.add(v.slice(8));
      else collectRefs(v, into);
    }
  }
}

/**
 * Refuse a `@ValidateNested()` property without class-transformer's
 * `@Type(() => Nested)`: the schema would still show the nested class (from
 * `design:type`), but its value would reach `run` unvalidated.
 */
function checkNestedTypes(dto: DtoClass, seen = new Set<DtoClass>()): void {
  if (seen.has(dto)) return;
  seen.add(dto);
  for (const m of classValidator().getMetadataStorage().getTargetValidationMetadatas(dto, "", true, false)) {
    if (m.type !== "nestedValidation") continue;
    const typed = classTransformerStorage().defaultMetadataStorage.findTypeMetadata(dto, m.propertyName);
    if (!typed) {
      throw new OptionsError(
        "@Tool",
        "input",
        `${dto.name}.${m.propertyName} has @ValidateNested() but no @Type(() => ...) from class-transformer; ` +
          `without it the nested value is never validated`,
      );
    }
    const nested: unknown = typed.typeFunction();
    if (typeof nested === "function") checkNestedTypes(nested as DtoClass, seen);
  }
}

/**
 * Derive the JSON Schema of a DTO class: `type: "object"`, `properties`,
 * `required`, `additionalProperties: false`, and `$defs` for nested DTOs, in
 * that key order. Frozen. Throws `OptionsError` for a `@ValidateNested()`
 * property without `@Type(() => ...)`.
 */
export function dtoToJsonSchema(dto: DtoClass): JsonSchema {
  checkNestedTypes(dto);
  const raw = classValidatorJsonSchema().targetConstructorToSchema(dto, options()) as Record<string, unknown>;
  const out: Record<string, unknown> = { type: "object", properties: raw.properties ?? {} };
  if (Array.isArray(raw.required) && raw.required.length) out.required = raw.required;
  out.additionalProperties = false;
  const refs = new Set<string>();
  collectRefs(out.properties, refs);
  if (refs.size) {
    const all = classValidatorJsonSchema().validationMetadatasToSchemas(options()) as Record<string, Record<string, unknown>>;
    const defs: Record<string, unknown> = {};
    const queue = [...refs];
    while (queue.length) {
      const name = queue.shift()!;
      if (defs[name] || !all[name]) continue;
      defs[name] = { ...all[name], additionalProperties: false };
      const more = new Set<string>();
      collectRefs(all[name], more);
      queue.push(...more);
    }
    out.$defs = defs;
  }
  return deepFreeze(JSON.parse(JSON.stringify(out)) as JsonSchema);
}

const INPUT_KINDS = "a Standard Schema (zod 4, valibot, arktype), a class-validator DTO class or a JSON Schema object";

/**
 * The JSON Schema of a tool's `input`: derived from a Standard Schema by its
 * library's converter, or copied from a raw schema (DTO classes go through
 * `dtoToJsonSchema`). Throws `OptionsError` saying what is wrong.
 */
export function inputJsonSchema(input: StandardSchemaV1 | JsonSchema): JsonSchema {
  if (claimsStandardSchema(input)) {
    // Kept with its `$schema` (2020-12, MCP's default dialect): ajv validates by the same dialect.
    return copyJsonSchema(standardJsonSchema(input) as JsonSchema, "the JSON Schema its library derived");
  }
  const proto: unknown = input && typeof input === "object" && !Array.isArray(input) ? Object.getPrototypeOf(input) : null;
  if (proto !== null && proto !== Object.prototype) {
    // A class instance (a zod 3 schema, an unknown library's object) is not JSON Schema; read as one, it would validate nothing.
    const kind = (input as { constructor?: { name?: string } }).constructor?.name || "an object with a prototype";
    throw new OptionsError(
      "@Tool",
      "input",
      `input is a ${kind} instance, not a plain JSON Schema object, and carries no '~standard' member to read it ` +
        `by. Accepted: ${INPUT_KINDS}`,
    );
  }
  return copyJsonSchema(input as JsonSchema);
}

/**
 * A deep, frozen copy of a raw JSON Schema; throws `OptionsError` saying what is
 * wrong when it is not an object schema (the caller names where).
 */
export function copyJsonSchema(schema: JsonSchema, what = "a JSON Schema input"): JsonSchema {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) {
    throw new OptionsError(
      "@Tool",
      "input",
      `input must be ${INPUT_KINDS}, got ${schema === null ? "null" : Array.isArray(schema) ? "an array" : typeof schema}`,
    );
  }
  if (schema.type !== "object") {
    throw new OptionsError(
      "@Tool",
      "input",
      `${what} must have type "object" (tool arguments are a JSON object), got ${JSON.stringify(schema.type) ?? "no type"}`,
    );
  }
  return deepFreeze(JSON.parse(JSON.stringify(schema)) as JsonSchema);
}

/** The schema of a tool that takes no arguments. */
export const EMPTY_SCHEMA: JsonSchema = deepFreeze({ type: "object", properties: {}, additionalProperties: false });

/** Property names of an object schema, in declaration order. */
export function schemaProperties(schema: JsonSchema): string[] {
  const props = schema.properties;
  return props && typeof props === "object" ? Object.keys(props) : [];
}
