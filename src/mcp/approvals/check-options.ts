/**
 * @module mcp/approvals/check-options
 * Option checks shared by `ApprovalServer` and `approvalGuard`, run at construction.
 */
import { OptionsError } from "../../errors/options.error.js";
import type { Asker } from "../../contracts/elicitation.js";
import { describeValue } from "../../util/format.js";

/** A plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Throw a `TypeError` naming `where` unless `asker` has an `ask` method. */
export function checkAsker(asker: unknown, where: string): Asker {
  if (!asker || typeof (asker as Asker).ask !== "function") {
    throw new OptionsError(where, "asker", `${where}: asker must be an Asker (an object with an ask(request) method), got ${describeValue(asker)}`);
  }
  return asker as Asker;
}
