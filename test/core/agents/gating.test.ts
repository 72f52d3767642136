/**
 * @module test/core/agents/gating.test
 * Gating (src/gate/): the `shouldGate` table and how each
 * `Decision` kind maps onto run / refuse, with refusals naming who and why.
 */
import { describe, expect, it } from "vitest";
import { shouldGate, type Autonomy, type Decision } from "../../../src/index.js";
import { decisionOutcome } from "../../../src/gate/index.js";

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

  it("modify with a plain JSON object runs with a checked copy of it", () => {
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
    // One engine, one vocabulary: the same texts ApprovalServer and approvalGuard give.
    [
      { kind: "expired" },
      "tool 'deploy' was not run: approval for 'deploy' expired: nobody answered before the Asker's own deadline (no timeoutMs is set)",
    ],
    [
      { kind: "expired", actor: "pager" },
      "tool 'deploy' was not run: approval for 'deploy' expired: nobody answered before the Asker's own deadline (no timeoutMs is set)",
    ],
    [
      { kind: "expired", note: "queue closed" },
      "tool 'deploy' was not run: approval for 'deploy' expired: nobody answered before the Asker's own deadline (no timeoutMs is set) (queue closed)",
    ],
    [
      { kind: "modify", actor: "ops" },
      "tool 'deploy' was not run: denied: 'modify' from ops carried no plain JSON object to run with (there is no value)",
    ],
    [
      { kind: "modify", value: ["x"], note: "oops" },
      "tool 'deploy' was not run: denied: 'modify' from the reviewer carried no plain JSON object to run with (the value is an array, not an object) (oops)",
    ],
    [
      { kind: "modify", value: { when: new Date(0) } },
      "tool 'deploy' was not run: denied: 'modify' from the reviewer carried no plain JSON object to run with (value.when is a Date, not plain JSON)",
    ],
    [{ kind: "maybe", actor: "ops" }, "tool 'deploy' was not run: refused by ops (decision kind string \"maybe\")"],
    [{ kind: "APPROVE" }, "tool 'deploy' was not run: refused by the reviewer (decision kind string \"APPROVE\")"],
    [
      undefined,
      "tool 'deploy' was not run: approval for 'deploy' failed: the Asker returned undefined instead of a Decision; denied (not a policy decision)",
    ],
    [
      null,
      "tool 'deploy' was not run: approval for 'deploy' failed: the Asker returned null instead of a Decision; denied (not a policy decision)",
    ],
  ])("refuses %j naming who and why", (decision, reason) => {
    expect(decisionOutcome(decision, args, "deploy")).toEqual({ allowed: false, reason });
  });

  it("default deny: a non-object answer refuses", () => {
    expect(decisionOutcome("approve" as never, args, "deploy")).toEqual({
      allowed: false,
      reason:
        "tool 'deploy' was not run: approval for 'deploy' failed: the Asker returned string \"approve\" instead of a Decision; denied (not a policy decision)",
    });
  });
});
