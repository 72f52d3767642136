/**
 * @module test/core/gate/gate-recorder.test
 * `GateRecorder`'s options (src/gate/gate-recorder.ts): one declared spec,
 * an unknown key refused by name, each bad value named under the owner's `where`.
 */
import { describe, expect, it } from "vitest";
import { errorVerdict, GateRecorder, type GateRecord } from "../../../src/gate/index.js";
import { DECISIONS_KEPT } from "../../../src/gate/gate-recorder.js";

describe("GateRecorder options", () => {
  it("refuses an unknown option by name, under its owner's name, with the accepted ones", () => {
    expect(() => new GateRecorder({ where: "HookServer", auditFile: "/x" } as never)).toThrow(
      expect.objectContaining({
        name: "OptionsError",
        code: "invalid_option",
        where: "HookServer",
        option: "auditFile",
        message: "HookServer: unknown option 'auditFile'. Accepted options: ctx, auditPath, audit, decisions, where",
      }),
    );
  });

  it.each([
    ["ctx", {}],
    ["decisions", "x"],
    ["audit", {}],
    ["auditPath", ""],
  ])("refuses a wrong %s, naming it", (key, value) => {
    expect(() => new GateRecorder({ [key]: value } as never)).toThrow(
      expect.objectContaining({ code: "invalid_option", where: "approvals", option: key }),
    );
  });

  it("refuses auditPath and audit together", () => {
    expect(() => new GateRecorder({ auditPath: "/tmp/a.jsonl", audit: { append: async () => {} } })).toThrow(
      expect.objectContaining({ where: "approvals", option: "audit", message: "approvals: give auditPath or audit, not both" }),
    );
  });
});

describe("GateRecorder decisions: a bounded log", () => {
  it(`keeps the newest ${DECISIONS_KEPT} records in memory (the durable sink keeps every one), in a shared array too`, async () => {
    const shared: GateRecord[] = [];
    const recorder = new GateRecorder({ decisions: shared });
    for (let i = 0; i < DECISIONS_KEPT + 5; i++) {
      const subject = { tool: `t${i}`, arguments: {}, via: "approval_server" as const };
      await recorder.record(subject, errorVerdict(subject, "denied", false));
    }
    expect(recorder.decisions).toHaveLength(DECISIONS_KEPT);
    expect(recorder.decisions).toBe(shared);
    expect(recorder.decisions[0]!.tool).toBe("t5");
    expect(recorder.decisions.at(-1)!.tool).toBe(`t${DECISIONS_KEPT + 4}`);
  });
});
