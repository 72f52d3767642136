/**
 * @module models/strict-schema
 * JSON Schema narrowed to what OpenAI's strict function calling accepts, and
 * the arguments it produces widened back. Used only when `strict: true` is
 * asked for; the default sends schemas as they are.
 *
 * Strict mode wants every object to list every property in `required` and to
 * say `additionalProperties: false`. An optional property therefore becomes
 * required-but-nullable, and the `null` the model then sends for "absent" is
 * removed again before the tool sees the arguments (`stripNulls`), so an MCP
 * server validating against its original schema is not surprised.
 */
import type { JsonSchema } from "../tools/tool.js";

/** Keywords strict mode rejects; dropped (they only narrow what the model may send). */
const UNSUPPORTED = new Set([
  "$schema",
  "$id",
  "default",
  "examples",
  "not",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "patternProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "contains",
  "minContains",
  "maxContains",
  "contentEncoding",
  "contentMediaType",
  "readOnly",
  "writeOnly",
  "deprecated",
]);

/** Thrown inside the conversion when a schema has no strict form (a map type, `allOf`): the tool is then sent non-strict. */
class NoStrictForm extends Error {}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function nullable(schema: Json): Json {
  const t = schema.type;
  if (typeof t === "string")
    return t === "null"
      ? schema
      : { ...schema, type: [t, "null"], ...(Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {}) };
  if (Array.isArray(t)) return t.includes("null") ? schema : { ...schema, type: [...t, "null"] };
  return { anyOf: [schema, { type: "null" }] };
}

function convert(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(convert);
  if (!isObj(schema)) return schema;
  if ("allOf" in schema) throw new NoStrictForm("allOf");
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if (UNSUPPORTED.has(k)) continue;
    if (k === "properties" && isObj(v)) out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, convert(s)]));
    else if (k === "$defs" || k === "definitions")
      out[k] = isObj(v) ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, convert(s)])) : v;
    else if (k === "items" || k === "anyOf" || k === "oneOf" || k === "prefixItems") out[k === "oneOf" ? "anyOf" : k] = convert(v);
    else if (k === "additionalProperties" || k === "required") continue;
    else out[k] = v;
  }
  const isObject = schema.type === "object" || (Array.isArray(schema.type) && schema.type.includes("object")) || isObj(schema.properties);
  if (!isObject) return out;
  if (isObj(schema.additionalProperties) || (schema.additionalProperties === true && !isObj(schema.properties)))
    throw new NoStrictForm("map");
  const props = isObj(out.properties) ? (out.properties as Json) : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  out.type ??= "object";
  out.properties = Object.fromEntries(Object.entries(props).map(([p, s]) => [p, required.has(p) ? s : nullable(s as Json)]));
  out.required = Object.keys(props);
  out.additionalProperties = false;
  return out;
}

/**
 * The strict form of `schema`, or `null` when it has none (an object used as
 * a map — `additionalProperties` with a schema — or `allOf`): the caller then
 * sends that tool with `strict: false`. Never mutates its input.
 */
export function strictSchema(schema: JsonSchema): JsonSchema | null {
  try {
    return convert(schema) as JsonSchema;
  } catch (err) {
    if (err instanceof NoStrictForm) return null;
    throw err;
  }
}

/**
 * Arguments from a strict call, with the `null`s that stand for an absent
 * optional property removed (recursively through `properties` and `items`,
 * following the original `schema`). A property the original schema allows
 * to be `null`, or requires, keeps its value.
 */
export function stripNulls(value: unknown, schema: JsonSchema): unknown {
  if (Array.isArray(value)) return isObj(schema.items) ? value.map((v) => stripNulls(v, schema.items as JsonSchema)) : value;
  if (!isObj(value) || !isObj(schema.properties)) return value;
  const props = schema.properties as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    const s = props[k];
    if (v === null && s && !required.has(k) && !allowsNull(s)) continue;
    out[k] = s && isObj(s) ? stripNulls(v, s) : v;
  }
  return out;
}

function allowsNull(s: JsonSchema): boolean {
  const t = s.type;
  if (t === "null" || (Array.isArray(t) && t.includes("null"))) return true;
  const alts = (s.anyOf ?? s.oneOf) as unknown;
  return Array.isArray(alts) && alts.some((a) => isObj(a) && allowsNull(a as JsonSchema));
}
