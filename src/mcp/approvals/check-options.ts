/**
 * @module mcp/approvals/check-options
 * Option rules shared by the specs of `ApprovalServer` and `approvalGuard`, run at construction.
 */
import { OptionsError } from "../../errors/options.error.js";
import type { Asker } from "../../contracts/elicitation.js";
import { GATE_SINK_RULES } from "../../gate/index.js";
import type { OptionRule } from "../../options/option-checks.js";
import { describeValue } from "../../util/format.js";

/** A plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Throw an `OptionsError` naming `where` unless `asker` has an `ask` method. */
export function checkAsker(asker: unknown, where: string): Asker {
  if (!asker || typeof (asker as Asker).ask !== "function") {
    throw new OptionsError(
      where,
      "asker",
      `${where}: asker must be an Asker (an object with an ask(request) method), got ${describeValue(asker)}`,
    );
  }
  return asker as Asker;
}

/** The rules for what both seams record to: `asker`, the event target `ctx` and the JSONL `auditPath`. */
export const SEAM_OPTION_RULES = {
  asker: ((v, where) => checkAsker(v, where)) as OptionRule<Asker>,
  ...GATE_SINK_RULES,
} as const;
