/**
 * @module test/mcp-approvals/options.test
 * ApprovalServer refuses option names it does not know, so a Python-style or caller-supplied option cannot be silently dropped.
 */
import { expect, it } from "vitest";
import { ApprovalServer } from "../../src/mcp/index.js";

const asker = { ask: async () => ({ kind: "approve" as const }) };

it("an unknown option is refused by name, with the accepted set", () => {
  expect(() => new ApprovalServer({ asker, timeout_s: 30 } as never)).toThrow(
    "ApprovalServer: unknown option 'timeout_s'. Accepted options: asker, timeoutMs, autoAllow, autoAllowWhen, autonomy, ctx, auditPath",
  );
});

it("a caller-supplied token is refused, saying why", () => {
  expect(() => new ApprovalServer({ asker, token: "s3cret" } as never)).toThrow(/unknown option 'token' \(the bearer token is always generated/);
});
