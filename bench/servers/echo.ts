/**
 * @module bench/servers/echo
 * The one tool every contender serves: `echo({ i, text })` answers with the
 * JSON of its own arguments, so a caller can check each result is its own.
 */

/** The tool's name. */
export const ECHO = "echo";
/** Its description. */
export const ECHO_DESCRIPTION = "Echo the arguments back as JSON text.";
/** Its input schema (JSON Schema; agentkit enforces it, the low-level SDK server does not validate). */
export const ECHO_SCHEMA = {
  type: "object",
  properties: { i: { type: "integer" }, text: { type: "string" } },
  required: ["i", "text"],
  additionalProperties: false,
} as const;

/** The arguments of call `i`: about 60 bytes, distinct per call. */
export function echoArgs(i: number): { i: number; text: string } {
  return { i, text: `call-${i}-${"x".repeat(40)}` };
}

/** What a correct server answers for `args`. */
export function echoText(args: { i: number; text: string }): string {
  return JSON.stringify({ i: args.i, text: args.text });
}
