/**
 * @module test/core/control/run-policy.test
 * `RunPolicy` (src/control/run-policy.ts): the lethal-trifecta check with the
 * seed's exact reason text.
 */
import "reflect-metadata";
import { describe, expect, it } from "vitest";
import { RunPolicy, ToolRegistry, tool } from "../../../src/index.js";
import { TRIFECTA, TRIFECTA_REASON } from "../../../src/control/run-policy.js";

/** A do-nothing tool named `name` carrying `caps`. */
function toolWithCaps(name: string, caps: string[], sideEffecting = false) {
  return tool({ name, description: `The ${name} tool.`, caps, sideEffecting }, () => name);
}

const SEED_REASON =
  "lethal trifecta: this tool set combines private-data access, untrusted-content ingestion, and egress in one run — require a human gate or split the run";

describe("RunPolicy.check", () => {
  it("refuses the seed's tool set with the seed's exact reason", () => {
    const registry = ToolRegistry.fromTools([
      toolWithCaps("read_record", ["private_data"]),
      toolWithCaps("fetch_page", ["untrusted_content"]),
      toolWithCaps("notify", ["egress"], true),
    ]);
    const verdict = new RunPolicy().check(registry.tools());
    expect(verdict).toEqual({ allowed: false, reason: SEED_REASON });
    expect(Object.isFrozen(verdict)).toBe(true);
    expect(TRIFECTA_REASON).toBe(SEED_REASON);
  });

  it.each([
    [["private_data"], ["untrusted_content"]],
    [["private_data"], ["egress"]],
    [["untrusted_content", "egress"], []],
    [[], []],
  ])("allows any two legs: %j + %j", (a, b) => {
    expect(new RunPolicy().check([toolWithCaps("a", a), toolWithCaps("b", b)])).toEqual({ allowed: true, reason: null });
  });

  it("one tool carrying all three legs is refused too", () => {
    expect(new RunPolicy().check([toolWithCaps("agent", ["egress", "private_data", "untrusted_content", "other"])]).allowed).toBe(false);
  });

  it("takes any iterable of { caps } (e.g. a registry, or plain objects)", () => {
    const registry = ToolRegistry.fromTools([toolWithCaps("a", ["private_data"]), toolWithCaps("b", ["untrusted_content"])]);
    expect(new RunPolicy().check(registry).allowed).toBe(true);
    expect(new RunPolicy().check([{ caps: ["private_data"] }, { caps: ["untrusted_content"] }, { caps: ["egress"] }]).allowed).toBe(false);
  });

  it("an empty tool set is allowed", () => {
    expect(new RunPolicy().check([])).toEqual({ allowed: true, reason: null });
  });

  it("TRIFECTA names the three legs, frozen", () => {
    expect(TRIFECTA).toEqual(["private_data", "untrusted_content", "egress"]);
    expect(Object.isFrozen(TRIFECTA)).toBe(true);
  });
});
