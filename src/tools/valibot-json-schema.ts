/**
 * @module tools/valibot-json-schema
 * The one place the optional peer `@valibot/to-json-schema` is loaded (when a
 * tool's `input` is a valibot schema, which carries no JSON Schema converter
 * of its own), with the install line in the error when it is missing.
 */
import { MissingPeerError } from "../errors/missing-peer.error.js";
import { lazyPeer } from "../util/optional-peer.js";

/** The install line named by the error when valibot's converter is missing. */
export const VALIBOT_JSON_SCHEMA_INSTALL_LINE = "npm install @valibot/to-json-schema";

type Converter = { toJsonSchema(schema: unknown, config: Record<string, unknown>): Record<string, unknown> };

const converter = lazyPeer<Converter>(
  "@valibot/to-json-schema",
  (cause) =>
    new MissingPeerError(
      "@valibot/to-json-schema",
      VALIBOT_JSON_SCHEMA_INSTALL_LINE,
      `a valibot schema as a tool's input needs valibot's JSON Schema converter (the schema a model is shown comes ` +
        `from it): ${VALIBOT_JSON_SCHEMA_INSTALL_LINE}`,
      { cause },
    ),
);

/**
 * Custom checks have no JSON Schema form; like zod's refinements they are
 * left out of the schema a model is shown, and still run on every call.
 */
const CUSTOM_CHECKS = ["check", "check_items", "partial_check", "raw_check"];

/**
 * The JSON Schema (`target` dialect) of a valibot schema's input. Throws
 * `MissingPeerError` when `@valibot/to-json-schema` is not installed, and
 * the converter's error for a schema JSON cannot carry (a Date, a function).
 */
export function valibotJsonSchema(schema: unknown, target: string): Record<string, unknown> {
  return converter().toJsonSchema(schema, { target, typeMode: "input", ignoreActions: CUSTOM_CHECKS });
}
