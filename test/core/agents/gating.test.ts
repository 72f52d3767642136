/**
 * @module test/core/agents/gating.test
 * Gating (src/agents/gating.ts): the `shouldGate` table and how each
 * `Decision` kind maps onto run / refuse, with refusals naming who and why.
 */
import { describe, expect, it } from "vitest";
import { shouldGate, type Autonomy, type Decision } from "../../../src/index.js";
import { decisionOutcome } from "../../../src/agents/gating.js";

describe("shouldGate(tool, { keyStep, autonomy })", () => {
  // [requiresApproval, keyStep (= sideEffecting), autonomy, asks?]
  const table: Array<[boolean, boolean, Autonomy, boolean]> = [
    [false, false, "auto", false],
    [false, true, "auto", false],
    [false, false, "gated", false],
    [false, true, "gated", true],
    [true, false, "auto", true],
    [true, true, "auto", true],
    [true, false, "gated", true],
    [true, true, "gated", true],
  ];
  it.each(table)("requiresApproval=%s keyStep=%s autonomy=%s -> %s", (requiresApproval, keyStep, autonomy, asks) => {
    expect(shouldGate({ requiresApproval }, { keyStep, autonomy })).toBe(asks);
  });
});

describe("decisionOutcome(decision, args, tool)", () => {
  const args = { target: "prod" };

  it("approve runs with the original arguments", () => {
    expect(decisionOutcome({ kind: "approve", actor: "ops" }, args, "deploy")).toEqual({ allowed: true, arguments: args, modified: false });
  });

  it("modify with an object value runs with the edited arguments", () => {
    expect(decisionOutcome({ kind: "modify", value: { target: "staging" } }, args, "deploy")).toEqual({
      allowed: true,
      arguments: { target: "staging" },
      modified: true,
    });
  });

  it.each<[Decision | null | undefined, string]>([
    [{ kind: "reject", actor: "ci", note: "/etc is out of scope" }, "tool 'deploy' was not run: rejected by ci: /etc is out of scope"],
    [{ kind: "reject", actor: "ci" }, "tool 'deploy' was not run: rejected by ci"],
    [{ kind: "reject", note: "not today" }, "tool 'deploy' was not run: rejected by the reviewer: not today"],
    [{ kind: "reject" }, "tool 'deploy' was not run: rejected by the reviewer"],
    [{ kind: "expired" }, "tool 'deploy' was not run: the approval request expired before anyone answered"],
    [{ kind: "expired", actor: "pager" }, "tool 'deploy' was not run: the approval request expired before anyone answered (reported by pager)"],
    [
      { kind: "expired", actor: "pager", note: "no answer within 60s" },
      "tool 'deploy' was not run: the approval request expired before anyone answered (reported by pager: no answer within 60s)",
    ],
    [{ kind: "expired", note: "queue closed" }, "tool 'deploy' was not run: the approval request expired before anyone answered (queue closed)"],
    [{ kind: "modify", actor: "ops" }, "tool 'deploy' was not run: 'modify' from ops carried no object value to run with"],
    [{ kind: "modify", value: ["x"], note: "oops" }, "tool 'deploy' was not run: 'modify' from the reviewer carried no object value to run with: oops"],
    [{ kind: "maybe", actor: "ops" }, 'tool \'deploy\' was not run: refused by ops (decision kind string "maybe")'],
    [{ kind: "APPROVE" }, 'tool \'deploy\' was not run: refused by the reviewer (decision kind string "APPROVE")'],
    [undefined, "tool 'deploy' was not run: the Asker returned undefined instead of a Decision"],
    [null, "tool 'deploy' was not run: the Asker returned null instead of a Decision"],
  ])("refuses %j naming who and why", (decision, reason) => {
    expect(decisionOutcome(decision, args, "deploy")).toEqual({ allowed: false, reason });
  });

  it("default deny: a non-object answer refuses", () => {
    expect(decisionOutcome("approve" as never, args, "deploy")).toEqual({
      allowed: false,
      reason: "tool 'deploy' was not run: the Asker returned string \"approve\" instead of a Decision",
    });
  });
});
