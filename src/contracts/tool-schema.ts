/**
 * @module contracts/tool-schema
 * What a model is shown of a tool, as plain data. Dependency-free on purpose:
 * the model contract (`contracts/llm.ts`) and the tool contract (`tools/tool.ts`)
 * both import it, and neither imports the other through it, so the type-only
 * cycle llm -> tool -> run-context -> llm cannot form.
 */

/** A JSON Schema object (loosely typed: any draft-07/2020-12 document). */
export type JsonSchema = { readonly [key: string]: unknown };

/** What a model is shown of a tool: its name, description and parameter schema (frozen). */
export interface ToolSchema {
  readonly name: string;
  readonly description: string;
  /** A frozen JSON Schema object with `type: "object"`. */
  readonly parameters: JsonSchema;
}
