/**
 * @module test/core/tools/tool-invocation.test
 * The core's one tool invocation (`invokeTool`), and the two rows where the
 * ReAct loop and the served handler used to differ, now one rule:
 * - a cancelled run does not wait for a tool that ignores its signal;
 * - a `ToolArgumentError` a tool's body throws about another (nested) tool
 *   reads as a failure, not as the model's malformed call.
 */
import "reflect-metadata";
import { describe, expect, it } from "vitest";
import { Agent, Cancelled, ReActCognition, RunContext, ToolArgumentError, tool, type Tool } from "../../../src/index.js";
import { invokeTool } from "../../../src/tools/tool-invocation.js";
import { FakeLLM, Turn, makeTestCtx } from "../../../src/testing/index.js";

/** A tool whose body never returns and never looks at its signal; `started` resolves when it runs. */
function toolIgnoringCancel(name: string): { tool: Tool; started: Promise<void> } {
  let started!: () => void;
  const seen = new Promise<void>((r) => (started = r));
  const t = tool({ name, description: "Hangs.", sideEffecting: false }, () => {
    started();
    return new Promise<never>(() => {});
  });
  return { tool: t, started: seen };
}

/** A tool whose body fails with `err`. */
function toolThrowing(name: string, err: unknown): Tool {
  return tool({ name, description: "Fails.", sideEffecting: false }, () => {
    throw err;
  });
}

describe("invokeTool", () => {
  it("runs the tool and hands back its value and the arguments it ran with", async () => {
    const echo = tool(
      { name: "echo", description: "Echo.", sideEffecting: false, input: { type: "object", properties: { x: { type: "string" } } } },
      (a: { x?: string }) => `got ${a.x}`,
    );
    const out = await invokeTool({
      tool: echo,
      name: "echo",
      arguments: { x: "a" },
      ctx: new RunContext(),
      admit: () => ({ allowed: true, arguments: { x: "b" } }),
    });
    expect(out).toEqual({ ok: true, value: "got b", arguments: { x: "b" } });
  });

  it("refuses a malformed call before admission asks anyone", async () => {
    const echo = tool(
      { name: "echo", description: "Echo.", sideEffecting: false, input: { type: "object", properties: { x: { type: "string" } } } },
      () => "ran",
    );
    let asked = 0;
    const out = await invokeTool({
      tool: echo,
      name: "echo",
      arguments: { x: 1 },
      ctx: new RunContext(),
      admit: () => (asked++, { allowed: true }),
    });
    expect([out.ok, !out.ok && out.reason, asked]).toEqual([false, "malformed", 0]);
  });

  it("an admission that throws is a refusal naming it; the tool does not run", async () => {
    let ran = false;
    const t = tool({ name: "deploy", description: "Deploy.", sideEffecting: true }, () => (ran = true));
    const out = await invokeTool({
      tool: t,
      name: "deploy",
      arguments: {},
      ctx: new RunContext(),
      admit: () => Promise.reject(new RangeError("asker unreachable")),
    });
    expect(out).toMatchObject({
      ok: false,
      reason: "refused",
      message: "tool 'deploy' was not run: its guard failed: RangeError: asker unreachable",
    });
    expect(ran).toBe(false);
  });

  it("at the deadline the call ends with the abandoned text and its context is cancelled", async () => {
    const hang = toolIgnoringCancel("slow");
    const ctx = new RunContext();
    const out = await invokeTool({ tool: hang.tool, name: "slow", arguments: {}, ctx, timeoutMs: 20 });
    expect(out).toMatchObject({
      ok: false,
      reason: "timeout",
      running: true,
      message: "tool 'slow' did not return within 0.02s and was abandoned",
    });
    expect(ctx.cancelled).toBe(true);
  });

  it("a cancelled context ends the call at once, saying whether the tool had started", async () => {
    const hang = toolIgnoringCancel("slow");
    const ctx = new RunContext();
    const pending = invokeTool({ tool: hang.tool, name: "slow", arguments: {}, ctx });
    await hang.started;
    ctx.cancel();
    expect(await pending).toMatchObject({
      ok: false,
      reason: "cancelled",
      running: true,
      message: "the run was cancelled while 'slow' was running",
    });
    const before = new RunContext();
    before.cancel();
    expect(await invokeTool({ tool: hang.tool, name: "slow", arguments: {}, ctx: before })).toMatchObject({
      reason: "cancelled",
      running: false,
      message: "the run was cancelled; 'slow' was not run",
    });
  });

  it("a tool's own Cancelled reads as cancelled, not as a failure", async () => {
    const out = await invokeTool({ tool: toolThrowing("stop", new Cancelled()), name: "stop", arguments: {}, ctx: new RunContext() });
    expect(out).toMatchObject({ reason: "cancelled", running: true });
  });
});

describe("the ReAct loop on the one invocation", () => {
  it("a cancelled run does not wait for a tool that ignores its signal", async () => {
    const hang = toolIgnoringCancel("slow");
    const llm = FakeLLM.script([
      new Turn({ content: "", toolCalls: [{ id: "c1", name: "slow", arguments: {} }] }),
      new Turn({ content: "done" }),
    ]);
    const ctx = makeTestCtx({ llm });
    const running = new Agent({ name: "dev", cognition: new ReActCognition({ tools: [hang.tool] }) }).run("x", ctx);
    await hang.started;
    ctx.cancel();
    const result = await running;
    expect([result.stopReason, result.toolCalls[0]!.result]).toEqual(["cancelled", "the run was cancelled; 'slow' was not completed"]);
  });

  it("a nested tool's ToolArgumentError is the calling tool's failure, as the served path words it", async () => {
    const nested = new ToolArgumentError("inner", [], ["id"], [], ["id"]);
    const llm = FakeLLM.script([
      new Turn({ content: "", toolCalls: [{ id: "c1", name: "outer", arguments: {} }] }),
      new Turn({ content: "done" }),
    ]);
    const result = await new Agent({ name: "dev", cognition: new ReActCognition({ tools: [toolThrowing("outer", nested)] }) }).run(
      "x",
      makeTestCtx({ llm }),
    );
    expect(result.toolCalls[0]!.result).toBe(
      "tool 'outer' failed: ToolArgumentError: tool 'inner' call rejected: missing required argument(s) ['id']. Accepted arguments: ['id']",
    );
  });
});
