/**
 * @module test/core/smoke.test
 * Smoke: the two shortest paths through the core — a @Tool class injected by
 * type and validated, and an agent over a function tool.
 */
import "reflect-metadata";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { Agent, ReActCognition, ToolArgumentError, ToolRegistry, tool } from "../../src/index.js";
import { FakeLLM, Turn, makeTestCtx } from "../../src/testing/index.js";
import { RunCheck } from "./fixtures/run-check.tool.js";

describe("smoke", () => {
  it("injects a @Tool class by type and validates its arguments", async () => {
    const c = container.createChildContainer();
    const reg = ToolRegistry.fromTools([RunCheck], { container: c });
    const t = reg.get("run_check")!;
    expect(t.schema!.parameters).toEqual({
      type: "object",
      properties: { name: { type: "string" }, strict: { type: "boolean" } },
      required: ["name"],
      additionalProperties: false,
    });
    expect(await t.run({ name: "lint" }, makeTestCtx())).toBe("lint:lax:ok");
    await expect(t.run({ name: "lint", verbose: true }, makeTestCtx())).rejects.toThrow(
      new ToolArgumentError("run_check", ["verbose"], [], [], ["name", "strict"]).message,
    );
    await expect(t.run({ name: "lint", verbose: true }, makeTestCtx())).rejects.toThrow(
      "tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']",
    );
  });

  it("runs an agent over a function tool", async () => {
    const add = tool(
      {
        description: "Add.",
        input: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a", "b"] },
      },
      function add({ a, b }: { a: number; b: number }) {
        return a + b;
      },
    );
    const llm = FakeLLM.script([
      new Turn({ toolCalls: [{ id: "1", name: "add", arguments: { a: 2, b: 3 } }] }),
      new Turn({ content: "5" }),
    ]);
    const ctx = makeTestCtx({ llm });
    const r = await new Agent({ name: "calc", cognition: new ReActCognition({ tools: [add] }) }).run("2+3", ctx);
    expect(r.output).toBe("5");
    expect(r.stopReason).toBe("complete");
    expect(llm.requests[1]!.messages.at(-1)!.content).toBe("5");
  });
});
