/**
 * @module tools/validate
 * Argument validation before `run`: precise `ToolArgumentError`s, no implicit
 * type conversion. Synchronous, so the call path adds no awaits.
 */
import { plainToInstance } from "class-transformer";
import { validateSync, type ValidationError } from "class-validator";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { ToolArgumentError, type InvalidArgument } from "../errors/tool-argument.error.js";
import { describeValue } from "../util/format.js";
import { isDtoClass, schemaProperties, type DtoClass, type ToolInput } from "./schema.js";
import type { JsonSchema } from "./tool.js";

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
let ajv: Ajv | undefined;
function sharedAjv(): Ajv {
  if (!ajv) {
    ajv = new Ajv({ allErrors: true, strict: false, logger: false, coerceTypes: false, useDefaults: false });
    addFormats(ajv);
  }
  return ajv;
}

/** Validates one tool's arguments; returns the value `run` receives (a DTO instance for DTO tools). */
export type ArgumentValidator = (args: unknown) => Record<string, unknown>;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Build the validator for a tool. The schema decides unexpected/missing
 * arguments (so DTO and raw-schema tools word them the same); a DTO's
 * class-validator constraints, or ajv for a raw schema, decide the rest.
 */
export function makeValidator(toolName: string, input: ToolInput | undefined, schema: JsonSchema): ArgumentValidator {
  const accepted = schemaProperties(schema);
  if (isDtoClass(input)) return dtoValidator(toolName, input, schema, accepted);
  const validate = sharedAjv().compile(schema as object);
  return (args) => {
    const value = args === undefined ? {} : args;
    if (!isPlainObject(value)) throw new ToolArgumentError(toolName, [], [], [], accepted, describeValue(value));
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
    const unexpected = Object.keys(value).filter((k) => !known.has(k));
    const missing = required.filter((k) => !(k in value) || value[k] === undefined);
    const instance = plainToInstance(dto as new () => object, value, { enableImplicitConversion: false });
    const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
    const invalid: InvalidArgument[] = [];
    for (const e of flatten(errors)) {
      if (e.constraints?.whitelistValidation || e.constraints?.unknownValue) continue;
      const top = e.path.split("/")[0]!;
      if (missing.includes(top) && e.path === top) continue;
      invalid.push({ argument: e.path, expected: Object.values(e.constraints ?? {}).join(" and "), received: describeValue(e.value) });
    }
    if (unexpected.length || missing.length || invalid.length) {
      throw new ToolArgumentError(toolName, unexpected, missing, invalid, accepted);
    }
    return instance as Record<string, unknown>;
  };
}

function flatten(errors: ValidationError[], prefix = ""): Array<{ path: string; value: unknown; constraints?: Record<string, string> }> {
  const out: Array<{ path: string; value: unknown; constraints?: Record<string, string> }> = [];
  for (const e of errors) {
    const path = prefix ? `${prefix}/${e.property}` : e.property;
    if (e.constraints) out.push({ path, value: e.value, constraints: e.constraints });
    if (e.children?.length) out.push(...flatten(e.children, path));
  }
  return out;
}

function pointerToPath(p: string): string {
  return p.replace(/^\//, "").replace(/~1/g, "/").replace(/~0/g, "~");
}

function fromAjvErrors(toolName: string, validate: ValidateFunction, value: Record<string, unknown>, accepted: string[]): ToolArgumentError {
  const unexpected: string[] = [];
  const missing: string[] = [];
  const invalid: InvalidArgument[] = [];
  const seen = new Set<string>();
  for (const e of (validate.errors ?? []) as ErrorObject[]) {
    const at = pointerToPath(e.instancePath);
    if (e.keyword === "additionalProperties") {
      const name = (e.params as { additionalProperty: string }).additionalProperty;
      const full = at ? `${at}/${name}` : name;
      if (!unexpected.includes(full)) unexpected.push(full);
    } else if (e.keyword === "required") {
      const name = (e.params as { missingProperty: string }).missingProperty;
      const full = at ? `${at}/${name}` : name;
      if (!missing.includes(full)) missing.push(full);
    } else {
      const key = `${at}|${e.keyword}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const received = at ? describeValue(at.split("/").reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], value)) : describeValue(value);
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
