/**
 * @module test/core/gate/gate-recorder.test
 * `GateRecorder`'s options (src/gate/gate-recorder.ts): one declared spec,
 * an unknown key refused by name, each bad value named under the owner's `where`.
 */
import { describe, expect, it } from "vitest";
import { GateRecorder } from "../../../src/gate/index.js";

describe("GateRecorder options", () => {
  it("refuses an unknown option by name, under its owner's name, with the accepted ones", () => {
    expect(() => new GateRecorder({ where: "HookServer", auditFile: "/x" } as never)).toThrow(
      expect.objectContaining({ name: "OptionsError", code: "invalid_option", where: "HookServer", option: "auditFile", message: "HookServer: unknown option 'auditFile'. Accepted options: ctx, auditPath, audit, decisions, where" }),
    );
  });

  it.each([
    ["ctx", {}],
    ["decisions", "x"],
    ["audit", {}],
    ["auditPath", ""],
  ])("refuses a wrong %s, naming it", (key, value) => {
    expect(() => new GateRecorder({ [key]: value } as never)).toThrow(expect.objectContaining({ code: "invalid_option", where: "approvals", option: key }));
  });

  it("refuses auditPath and audit together", () => {
    expect(() => new GateRecorder({ auditPath: "/tmp/a.jsonl", audit: { append: async () => {} } })).toThrow(
      expect.objectContaining({ where: "approvals", option: "audit", message: "approvals: give auditPath or audit, not both" }),
    );
  });
});
