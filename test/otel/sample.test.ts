/**
 * @module test/otel/sample.test
 * `samples/observe-run`, built (`npm run build` first) and run with node: it
 * prints one trace as a tree — the run, its two model turns, the tool call
 * and, under it, the person's decision.
 */
import { describe, expect, it } from "vitest";
import { printedFields, runSample } from "../helpers/run-sample.js";

describe("samples/observe-run", () => {
  it("prints the span tree of one approved call", async () => {
    const out = await runSample("observe-run");
    const f = printedFields(out);
    expect(f).toMatchObject({ output: "Deployed.", spans: "5", traces: "1" });
    const tree = out
      .split("\n")
      .filter((l) => /^\s*(invoke_agent|chat|execute_tool|gate) /.test(l))
      .map((l) => l.replace(/ {2}\[.*$/, ""));
    expect(tree).toEqual(["invoke_agent ops", "  chat demo-model", "  execute_tool deploy", "    gate deploy", "  chat demo-model"]);
    expect(out).toContain(
      "gate deploy  [gen_ai.tool.call.id=call_1 agentkit.gate.source=asker agentkit.gate.allowed=true agentkit.gate.actor=alice]",
    );
    expect(out).not.toContain("payments");
  });
});
