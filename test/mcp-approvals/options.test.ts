/**
 * @module test/mcp-approvals/options.test
 * ApprovalServer refuses option names it does not know, so a Python-style or caller-supplied option cannot be silently dropped.
 */
import { expect, it } from "vitest";
import { OptionsError } from "../../src/index.js";
import { ApprovalServer } from "../../src/mcp/index.js";

const asker = { ask: async () => ({ kind: "approve" as const }) };

it("an unknown option is refused by name, with the accepted set", () => {
  expect(() => new ApprovalServer({ asker, timeout_s: 30 } as never)).toThrow(
    "ApprovalServer: unknown option 'timeout_s'. Accepted options: asker, timeoutMs, autoAllow, autoAllowWhen, autonomy, ctx, auditPath",
  );
});

it("a caller-supplied token is refused, saying why", () => {
  expect(() => new ApprovalServer({ asker, token: "s3cret" } as never)).toThrow(
    /unknown option 'token' \(the bearer token is always generated/,
  );
});

it("each wrong value is one OptionsError naming ApprovalServer, the option and what is accepted", () => {
  const cases: Array<[Record<string, unknown>, string, RegExp]> = [
    [{ autoAllow: ["Read", ""] }, "autoAllow", /^ApprovalServer: autoAllow entries must be non-empty tool names, got string ""/],
    [
      { ctx: 5 },
      "ctx",
      /^ApprovalServer: 'ctx' must be a RunContext \(an object with emit\(event, data\)\), or be left unset, got number 5/,
    ],
    [{ auditPath: "" }, "auditPath", /^ApprovalServer: 'auditPath' must be a file path, got string ""/],
    [{ servers: [{}] }, "servers", /^ApprovalServer: servers must be a list of served registries/],
    [{ maxSessions: 0 }, "maxSessions", /^ApprovalServer: maxSessions must be a positive integer \(default 1000\), got 0/],
  ];
  for (const [given, option, message] of cases) {
    const err = (() => {
      try {
        new ApprovalServer({ asker, ...given } as never);
      } catch (e) {
        return e as OptionsError;
      }
      throw new Error(`accepted ${JSON.stringify(given)}`);
    })();
    expect(err).toBeInstanceOf(OptionsError);
    expect([err.code, err.where, err.option]).toEqual(["invalid_option", "ApprovalServer", option]);
    expect(err.message).toMatch(message);
  }
});
