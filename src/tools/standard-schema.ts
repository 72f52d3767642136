/**
 * @module tools/standard-schema
 * A tool's `input` given as a Standard Schema (zod 4, valibot, arktype, ...):
 * recognising one, deriving the JSON Schema a model is shown with the
 * library's own converter, and validating a call with the library. No
 * schema library is imported here: a schema carries its own `validate` and,
 * under the Standard JSON Schema spec, its own converter; valibot's converter
 * is a separate package, loaded by `valibot-json-schema.ts`.
 */
import { MissingPeerError } from "../errors/missing-peer.error.js";
import { OptionsError } from "../errors/options.error.js";
import { valibotJsonSchema } from "./valibot-json-schema.js";

/** One problem a Standard Schema found: its message and where (`["items", 0, "id"]`, or segments `{ key }`). */
export interface StandardSchemaIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** What a Standard Schema's `validate` answers: the (parsed) value, or issues. */
export type StandardSchemaResult<Output> =
  { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardSchemaIssue> };

/**
 * A Standard Schema v1 (https://standardschema.dev), the interface zod (3.24+
 * and 4), valibot (1.0+) and arktype (2.0+) schemas implement. Declared here
 * (the spec invites copying it) so agentkit's types need no schema package.
 * `jsonSchema` is the Standard JSON Schema converter (zod 4.2+, arktype 2.1.28+).
 *
 * MCP SDK: its `StandardSchemaV1` is the same published interface; both
 * accept the same schemas, and this one needs no MCP package to compile.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    /** Validates `value`: its (parsed) value, or its issues. */
    readonly validate: (value: unknown) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    readonly jsonSchema?: {
      /** The JSON Schema of the input for `options.target` (agentkit asks for `draft-2020-12`). */
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}

/** The value a tool body receives for a Standard Schema `input`: the schema's output type (after defaults and transforms). */
export type StandardSchemaOutput<S extends StandardSchemaV1> = NonNullable<S["~standard"]["types"]>["output"];

/** The JSON Schema dialect asked of a library's converter: MCP's default (2025-11-25). */
const TARGET = "draft-2020-12";

/** True when `input` carries a `~standard` member (a Standard Schema, or something claiming to be one). */
export function claimsStandardSchema(input: unknown): boolean {
  return (typeof input === "object" || typeof input === "function") && input !== null && "~standard" in input;
}

/**
 * True when `input` is a Standard Schema v1 (version 1, a `validate` function). Arktype's schemas are functions, so
 * this is asked before "is it a class".
 */
export function isStandardSchema(input: unknown): input is StandardSchemaV1 {
  if (!claimsStandardSchema(input)) return false;
  const std = (input as { "~standard": unknown })["~standard"] as { version?: unknown; validate?: unknown } | null;
  return typeof std === "object" && std !== null && std.version === 1 && typeof std.validate === "function";
}

const ACCEPTED = "Accepted: a zod 4 (4.2 or later), valibot or arktype schema, a JSON Schema object, or a class-validator DTO class";

/**
 * The JSON Schema of a Standard Schema's input, from the library's own
 * converter (`~standard.jsonSchema`, or valibot's `@valibot/to-json-schema`).
 * Throws `OptionsError` saying why when it cannot be derived (an unknown
 * vendor without a converter, zod 3, a type JSON cannot carry such as a
 * Date); `MissingPeerError` when valibot's converter is not installed.
 */
export function standardJsonSchema(schema: unknown): Record<string, unknown> {
  if (!isStandardSchema(schema)) {
    throw new OptionsError(
      "@Tool",
      "input",
      `input has a '~standard' member but is not a Standard Schema v1 (it needs version 1 and a validate function). ${ACCEPTED}`,
    );
  }
  const std = schema["~standard"];
  const vendor = String(std.vendor);
  let json: unknown;
  try {
    if (typeof std.jsonSchema?.input === "function") json = std.jsonSchema.input({ target: TARGET });
    else if (vendor === "valibot") json = valibotJsonSchema(schema, TARGET);
    else if (vendor === "zod") {
      throw new OptionsError(
        "@Tool",
        "input",
        `this zod schema has no JSON Schema converter (zod 3, or zod 4 before 4.2): upgrade with npm install zod@^4.2. ${ACCEPTED}`,
      );
    } else {
      throw new OptionsError(
        "@Tool",
        "input",
        `a Standard Schema from '${vendor}' without a JSON Schema converter ('~standard.jsonSchema'), so the ` +
          `schema a model is shown cannot be derived from it. ${ACCEPTED}`,
      );
    }
  } catch (err) {
    if (err instanceof OptionsError || err instanceof MissingPeerError) throw err;
    throw new OptionsError(
      "@Tool",
      "input",
      `the ${vendor} schema cannot be converted to JSON Schema (${(err as Error).message}); a tool's arguments ` +
        `arrive as JSON, so use types JSON carries`,
      { cause: err },
    );
  }
  return json as Record<string, unknown>;
}

/** The value at `path` inside `value` (undefined when absent). */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const k of path) v = v && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/** An issue's path as keys (`{ key }` segments unwrapped). */
export function issuePath(issue: StandardSchemaIssue): PropertyKey[] {
  return (issue.path ?? []).map((p) => (typeof p === "object" && p !== null ? p.key : p));
}

/**
 * Validate `value` (already a JSON object that matched the derived JSON
 * Schema) with the library itself: its refinements and transforms. Returns
 * the library's output, or the issues with the value each names. A schema
 * that validates asynchronously (an async refinement) is refused: argument
 * checks run before anyone is asked to approve a call, synchronously.
 */
export function standardValidate(
  toolName: string,
  schema: StandardSchemaV1,
  value: unknown,
):
  | { readonly ok: true; readonly value: unknown }
  | {
      readonly ok: false;
      readonly issues: ReadonlyArray<{ readonly path: PropertyKey[]; readonly message: string; readonly value: unknown }>;
    } {
  const result = schema["~standard"].validate(value);
  if (typeof (result as { then?: unknown }).then === "function") {
    (result as Promise<unknown>).then(undefined, () => undefined);
    throw new OptionsError(
      toolName,
      "input",
      `tool '${toolName}': its ${schema["~standard"].vendor} input schema validates asynchronously (an async ` +
        `refinement); tool arguments are checked synchronously, so move the async check into the tool's body`,
    );
  }
  const r = result as StandardSchemaResult<unknown>;
  if (!r.issues) return { ok: true, value: r.value };
  return {
    ok: false,
    issues: r.issues.map((i) => ({ path: issuePath(i), message: String(i.message), value: valueAt(value, issuePath(i)) })),
  };
}
