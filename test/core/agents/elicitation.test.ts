/**
 * @module test/core/agents/elicitation.test
 * The human-in-the-loop contract (src/contracts/elicitation.ts): structural
 * `ToolCall` / `Decision` / `Asker`, and the `toolCall()` helper.
 */
import { describe, expect, it } from "vitest";
import { toolCall, type Asker, type Decision, type Elicitation, type ToolCall } from "../../../src/index.js";
import type { DecisionKind } from "../../../src/contracts/elicitation.js";

describe("toolCall()", () => {
  it("builds a frozen { id, name, arguments }", () => {
    const c = toolCall("c1", "deploy", { target: "prod" });
    expect(c).toEqual({ id: "c1", name: "deploy", arguments: { target: "prod" } });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it("arguments default to {}", () => {
    expect(toolCall("c2", "ping").arguments).toEqual({});
  });
});

describe("structural types", () => {
  it("a plain object is a ToolCall, a Decision, an Elicitation; any { ask } is an Asker", async () => {
    const call: ToolCall = { id: "1", name: "deploy", arguments: {} };
    const kinds: DecisionKind[] = ["approve", "reject", "modify", "expired"];
    const asker: Asker = {
      ask: async (r: Elicitation): Promise<Decision> => ({
        kind: r.toolCall?.name === "deploy" ? "reject" : "approve",
        actor: "ci",
        note: "n",
      }),
    };
    expect(await asker.ask({ question: "Allow deploy?", toolCall: call, source: "react", timeoutMs: 1000 })).toEqual({
      kind: "reject",
      actor: "ci",
      note: "n",
    });
    expect(kinds).toHaveLength(4);
  });
});
