/**
 * @module test/core/agents/react-cognition.test
 * `ReActCognition` (src/agents/react-cognition.ts) driven by `FakeLLM`: tool
 * calls run and their results are fed back (checked on `FakeLLM.requests`),
 * the stop reasons, and gating — who is asked when, what each decision does,
 * what the model is told, and the `gate.check` events.
 */
import "reflect-metadata";
import { describe, expect, it } from "vitest";
import {
  Agent,
  Cancelled,
  ReActCognition,
  tool,
  type Asker,
  type Autonomy,
  type Decision,
  type LLM,
  type LLMRequest,
  type Tool,
} from "../../../src/index.js";
import { resultText } from "../../../src/tools/result-text.js";
import { FakeLLM, Turn, makeTestCtx } from "../../../src/testing/index.js";
import { askerAnswering } from "../../helpers/asker.js";

const TARGET = { type: "object", properties: { target: { type: "string" } }, required: ["target"], additionalProperties: false } as const;

/** A tool named `name` returning `value`, recording the arguments it ran with. */
function toolReturning(name: string, value: unknown, declarations: { sideEffecting?: boolean; requiresApproval?: boolean } = {}) {
  const ran: Array<Record<string, unknown>> = [];
  const t = tool({ name, description: `The ${name} tool.`, input: TARGET, ...declarations }, (input: Record<string, unknown>) => {
    ran.push({ ...input });
    return value;
  });
  return { tool: t, ran };
}

/** A one-call script: call `name` with `args`, then say `final`. */
function callThenSay(name: string, args: Record<string, unknown>, final = "done"): FakeLLM {
  return FakeLLM.script([new Turn({ toolCalls: [{ id: "c1", name, arguments: args }] }), new Turn({ content: final })]);
}

/** Run an agent over `tools` with `llm` in a recording context. */
async function runAgent(tools: Tool[], llm: LLM, options: { autonomy?: Autonomy; asker?: Asker; maxSteps?: number; prompt?: string } = {}) {
  const ctx = makeTestCtx({ llm, autonomy: options.autonomy, asker: options.asker });
  const agent = new Agent({
    name: "dev",
    model: "fake-1",
    prompt: options.prompt,
    cognition: new ReActCognition({ tools, maxSteps: options.maxSteps }),
  });
  const result = await agent.run("do the thing", ctx);
  return { ctx, result };
}

/** The tool message the model was shown for call `id` in `request`. */
function toolMessage(request: LLMRequest, id: string) {
  return request.messages.find((m) => m.role === "tool" && m.toolCallId === id);
}

describe("the loop", () => {
  it("runs the tool the model calls and feeds the result back", async () => {
    const check = toolReturning("run_check", { passed: true }, { sideEffecting: false });
    const llm = callThenSay("run_check", { target: "lint" }, "lint passed");
    const { result } = await runAgent([check.tool], llm, { prompt: "Use the tools." });
    expect(result.output).toBe("lint passed");
    expect(result.stopReason).toBe("complete");
    expect(result.steps).toBe(2);
    expect(check.ran).toEqual([{ target: "lint" }]);
    expect(result.toolCalls).toEqual([{ id: "c1", name: "run_check", arguments: { target: "lint" }, result: '{"passed":true}', ok: true }]);
    expect(llm.requests).toHaveLength(2);
    const [first, second] = llm.requests;
    expect(first!.model).toBe("fake-1");
    expect(first!.tools).toEqual([check.tool.schema]);
    expect(first!.messages).toEqual([
      { role: "system", content: "Use the tools." },
      { role: "user", content: "do the thing" },
    ]);
    expect(second!.messages).toEqual([
      { role: "system", content: "Use the tools." },
      { role: "user", content: "do the thing" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "run_check", arguments: { target: "lint" } }] },
      { role: "tool", content: '{"passed":true}', toolCallId: "c1", name: "run_check" },
    ]);
  });

  it("runs several calls of one turn in order, each answered by id", async () => {
    const a = toolReturning("a", "A", { sideEffecting: false });
    const b = toolReturning("b", "B", { sideEffecting: false });
    const llm = FakeLLM.script([
      new Turn({
        content: "two at once",
        toolCalls: [
          { id: "x", name: "b", arguments: { target: "1" } },
          { id: "y", name: "a", arguments: { target: "2" } },
        ],
      }),
      new Turn({ content: "ok" }),
    ]);
    const { result } = await runAgent([a.tool, b.tool], llm);
    expect(result.toolCalls.map((c) => [c.id, c.name, c.result])).toEqual([
      ["x", "b", "B"],
      ["y", "a", "A"],
    ]);
    const msgs = llm.requests[1]!.messages.slice(-3);
    expect(msgs.map((m) => [m.role, m.content, m.toolCallId])).toEqual([
      ["assistant", "two at once", undefined],
      ["tool", "B", "x"],
      ["tool", "A", "y"],
    ]);
  });

  it("omits the system message when the agent has no prompt, and hides schema-less tools from the model", async () => {
    const hidden: Tool = { ...toolReturning("hidden", 1).tool, name: "hidden", schema: null, run: async () => 1 };
    const llm = FakeLLM.script([new Turn({ content: "hi" })]);
    await runAgent([hidden, toolReturning("shown", 2).tool], llm);
    expect(llm.requests[0]!.messages).toEqual([{ role: "user", content: "do the thing" }]);
    expect(llm.requests[0]!.tools.map((t) => t.name)).toEqual(["shown"]);
  });

  it("emits agent.start, llm.request, llm.turn, tool.call, tool.result, agent.end in order", async () => {
    const check = toolReturning("run_check", "ok", { sideEffecting: false });
    const { ctx } = await runAgent([check.tool], callThenSay("run_check", { target: "lint" }));
    expect(ctx.events).toEqual([
      { event: "agent.start", data: { agent: "dev", task: "do the thing" } },
      { event: "llm.request", data: { step: 1, model: "fake-1" } },
      { event: "llm.turn", data: { step: 1, content: "", toolCalls: ["run_check"] } },
      { event: "tool.call", data: { id: "c1", tool: "run_check" } },
      // An ungated call is recorded too, as the approval server records one (source autonomy, nobody asked).
      {
        event: "gate.check",
        data: expect.objectContaining({
          tool: "run_check",
          via: "react",
          allowed: true,
          source: "autonomy",
          asked: false,
          questionId: null,
        }),
      },
      { event: "tool.result", data: { id: "c1", tool: "run_check", ok: true } },
      { event: "llm.request", data: { step: 2, model: "fake-1" } },
      { event: "llm.turn", data: { step: 2, content: "done", toolCalls: [] } },
      { event: "agent.end", data: { agent: "dev", stopReason: "complete", steps: 2 } },
    ]);
  });

  it("sums token usage over turns", async () => {
    const llm = FakeLLM.script([
      new Turn({ toolCalls: [{ id: "1", name: "a", arguments: { target: "x" } }], usage: { input: 10, output: 2 } }),
      new Turn({ content: "ok", usage: { input: 15, output: 3, cached: 1 } }),
    ]);
    const { result } = await runAgent([toolReturning("a", 1).tool], llm);
    expect(result.usage).toEqual({ input: 25, output: 5, cached: 1 });
  });

  it("renders results: strings as-is, undefined as empty, others as JSON", () => {
    expect(resultText("plain")).toBe("plain");
    expect(resultText(undefined)).toBe("");
    expect(resultText({ a: [1] })).toBe('{"a":[1]}');
    expect(resultText(null)).toBe("null");
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(resultText(cyclic)).toBe("[object Object]");
  });
});

describe("what the model is told when a call goes wrong", () => {
  it("an unknown tool, with the available names", async () => {
    const llm = callThenSay("deploy_everything", {});
    const { result, ctx } = await runAgent([toolReturning("b_tool", 1).tool, toolReturning("a_tool", 2).tool], llm);
    const text = "unknown tool 'deploy_everything'. Available tools: ['a_tool', 'b_tool']";
    expect(result.toolCalls[0]).toMatchObject({ name: "deploy_everything", ok: false, result: text });
    expect(toolMessage(llm.requests[1]!, "c1")!.content).toBe(text);
    expect(result.stopReason).toBe("complete");
    expect(ctx.eventsNamed("tool.result")).toEqual([{ event: "tool.result", data: { id: "c1", tool: "deploy_everything", ok: false } }]);
  });

  it("a ToolArgumentError, verbatim, and the body does not run", async () => {
    const check = toolReturning("run_check", "ran", { sideEffecting: false });
    const llm = callThenSay("run_check", { target: "lint", verbose: true });
    const { result } = await runAgent([check.tool], llm);
    const text = "tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['target']";
    expect(toolMessage(llm.requests[1]!, "c1")!.content).toBe(text);
    expect(result.toolCalls[0]!.ok).toBe(false);
    expect(check.ran).toEqual([]);
  });

  it("a tool that throws: its error, named", async () => {
    const burn = tool({ name: "burn", description: "Burn.", sideEffecting: false }, () => {
      throw new RangeError("the database is on fire");
    });
    const llm = callThenSay("burn", {});
    const { result } = await runAgent([burn], llm);
    expect(toolMessage(llm.requests[1]!, "c1")!.content).toBe("tool 'burn' failed: RangeError: the database is on fire");
    expect(result.stopReason).toBe("complete");
  });
});

describe("stop reasons", () => {
  it("max_steps after 10 model turns by default", async () => {
    const loop = toolReturning("again", "more", { sideEffecting: false });
    const turns = Array.from(
      { length: 12 },
      (_, i) => new Turn({ content: `turn ${i + 1}`, toolCalls: [{ id: `c${i}`, name: "again", arguments: { target: "x" } }] }),
    );
    const llm = FakeLLM.script(turns);
    const { result } = await runAgent([loop.tool], llm);
    expect(result.stopReason).toBe("max_steps");
    expect(result.steps).toBe(10);
    expect(result.output).toBe("turn 10");
    expect(llm.requests).toHaveLength(10);
    expect(loop.ran).toHaveLength(10);
    expect(new ReActCognition({ tools: [] }).maxSteps).toBe(10);
  });

  it("max_steps honours maxSteps", async () => {
    const loop = toolReturning("again", "more", { sideEffecting: false });
    const llm = FakeLLM.script(
      Array.from({ length: 5 }, (_, i) => new Turn({ toolCalls: [{ id: `c${i}`, name: "again", arguments: { target: "x" } }] })),
    );
    const { result } = await runAgent([loop.tool], llm, { maxSteps: 2 });
    expect([result.stopReason, result.steps, llm.requests.length]).toEqual(["max_steps", 2, 2]);
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses maxSteps %s", (maxSteps) => {
    expect(() => new ReActCognition({ tools: [], maxSteps })).toThrow(
      `ReActCognition: maxSteps must be a positive integer, got number ${maxSteps}`,
    );
  });

  it("refuses an unknown option by name, with the accepted ones", () => {
    expect(() => new ReActCognition({ tools: [], maxTurns: 3 } as never)).toThrow(
      expect.objectContaining({
        name: "OptionsError",
        code: "invalid_option",
        where: "ReActCognition",
        option: "maxTurns",
        message: "ReActCognition: unknown option 'maxTurns'. Accepted options: tools, maxSteps, approvalTimeoutMs, auditPath",
      }),
    );
  });

  it.each([[undefined], [3], ["abc"]])("refuses tools that are not an iterable of tools (%j)", (tools) => {
    expect(() => new ReActCognition({ tools } as never)).toThrow(
      expect.objectContaining({ code: "invalid_option", where: "ReActCognition", option: "tools" }),
    );
  });

  it("refuses two tools with one name", () => {
    expect(() => new ReActCognition({ tools: [toolReturning("x", 1).tool, toolReturning("x", 2).tool] })).toThrow(
      "ReActCognition: two tools are named 'x'; give one a prefix",
    );
  });

  it("cancelled mid-run by a tool: no further model turn, later calls of the turn not run", async () => {
    const stop = tool({ name: "stop", description: "Stop.", sideEffecting: false }, (_i: unknown, ctx) => {
      ctx.cancel();
      return "stopping";
    });
    const after = toolReturning("after", "ran", { sideEffecting: false });
    const llm = FakeLLM.script([
      new Turn({
        content: "working",
        toolCalls: [
          { id: "1", name: "stop", arguments: {} },
          { id: "2", name: "after", arguments: { target: "x" } },
        ],
      }),
      new Turn({ content: "never" }),
    ]);
    const { result } = await runAgent([stop, after.tool], llm);
    expect(result.stopReason).toBe("cancelled");
    expect(result.steps).toBe(1);
    expect(result.output).toBe("working");
    expect(after.ran).toEqual([]);
    expect(llm.requests).toHaveLength(1);
    expect(llm.remaining).toBe(1);
  });

  it("cancelled before the run: the model is never asked", async () => {
    const llm = FakeLLM.script([new Turn({ content: "never" })]);
    const ctx = makeTestCtx({ llm });
    ctx.cancel();
    const result = await new Agent({ name: "dev", cognition: new ReActCognition({ tools: [] }) }).run("x", ctx);
    expect([result.stopReason, result.steps, llm.requests.length]).toEqual(["cancelled", 0, 0]);
  });

  it("cancelled while the model is thinking (the request carries the run's signal)", async () => {
    const llm: LLM = {
      complete: (req) =>
        new Promise((_resolve, reject) => {
          req.signal!.addEventListener("abort", () => reject(req.signal!.reason), { once: true });
        }),
    };
    const ctx = makeTestCtx({ llm });
    const running = new Agent({ name: "dev", cognition: new ReActCognition({ tools: [] }) }).run("x", ctx);
    setTimeout(() => ctx.cancel(), 5);
    const result = await running;
    expect(result.stopReason).toBe("cancelled");
    expect(result.error).toBeUndefined();
  });

  it("a tool that throws Cancelled tells the model so", async () => {
    const t = tool({ name: "slow", description: "Slow.", sideEffecting: false }, () => {
      throw new Cancelled();
    });
    const llm = callThenSay("slow", {});
    const { result } = await runAgent([t], llm);
    expect(result.toolCalls[0]!.result).toBe("the run was cancelled; 'slow' was not completed");
  });

  it("error when the model fails, with the error and what was said so far", async () => {
    const check = toolReturning("run_check", "ok", { sideEffecting: false });
    const llm = FakeLLM.script([
      new Turn({ content: "checking", toolCalls: [{ id: "1", name: "run_check", arguments: { target: "x" } }] }),
    ]);
    const { result } = await runAgent([check.tool], llm);
    expect(result.stopReason).toBe("error");
    expect(result.steps).toBe(2);
    expect(result.output).toBe("checking");
    expect(result.error!.message).toBe("FakeLLM: script exhausted after 1 turn(s); request 2 has no scripted answer");
    expect(result.toolCalls).toHaveLength(1);
  });

  it("error when the model throws a non-Error", async () => {
    const llm: LLM = { complete: () => Promise.reject("rate limited") };
    const result = await new Agent({ name: "dev", cognition: new ReActCognition({ tools: [] }) }).run("x", makeTestCtx({ llm }));
    expect(result.stopReason).toBe("error");
    expect(result.error).toBeInstanceOf(Error);
    expect(result.error!.message).toBe("rate limited");
  });

  it("error when the context has no model", async () => {
    const result = await new Agent({ name: "dev", cognition: new ReActCognition({ tools: [] }) }).run("x", makeTestCtx());
    expect(result.stopReason).toBe("error");
    expect(result.steps).toBe(0);
    expect(result.error).toMatchObject({
      name: "OptionsError",
      code: "invalid_option",
      option: "llm",
      message: "agent 'dev': ReActCognition needs ctx.llm (makeTestCtx({ llm }) or new RunContext({ llm }))",
    });
  });
});

describe("gating", () => {
  const approve: Decision = { kind: "approve", actor: "ops", note: "looks fine" };

  it('under "auto" a side-effecting call runs without asking, recorded as source autonomy', async () => {
    const deploy = toolReturning("deploy", "deployed");
    const asker = askerAnswering(approve);
    const { result, ctx } = await runAgent([deploy.tool], callThenSay("deploy", { target: "prod" }), { asker });
    expect(asker.seen).toEqual([]);
    expect(deploy.ran).toEqual([{ target: "prod" }]);
    expect(result.toolCalls[0]!.ok).toBe(true);
    expect(ctx.eventsNamed("gate.check").map((e) => e.data)).toEqual([
      {
        tool: "deploy",
        id: "c1",
        questionId: null,
        via: "react",
        allowed: true,
        source: "autonomy",
        asked: false,
        kind: null,
        actor: null,
        reason: `autonomy "auto" does not gate 'deploy'; no one was asked`,
        at: expect.any(String),
      },
    ]);
  });

  it("the Asker is shown what the tool declares about itself (description, caps, declarations)", async () => {
    const deploy = toolReturning("deploy", "deployed", { requiresApproval: true });
    const asker = askerAnswering(approve);
    await runAgent([deploy.tool], callThenSay("deploy", { target: "prod" }), { asker });
    expect(asker.seen[0]!.toolFacts).toEqual({ description: "The deploy tool.", sideEffecting: true, requiresApproval: true });
  });

  it('under "gated" every side-effecting call asks ctx.asker; read-only calls do not', async () => {
    const deploy = toolReturning("deploy", "deployed");
    const read = toolReturning("read", "contents", { sideEffecting: false });
    const asker = askerAnswering(approve);
    const llm = FakeLLM.script([
      new Turn({
        toolCalls: [
          { id: "r", name: "read", arguments: { target: "a" } },
          { id: "d1", name: "deploy", arguments: { target: "staging" } },
          { id: "d2", name: "deploy", arguments: { target: "prod" } },
        ],
      }),
      new Turn({ content: "done" }),
    ]);
    await runAgent([deploy.tool, read.tool], llm, { autonomy: "gated", asker });
    const toolFacts = { description: "The deploy tool.", sideEffecting: true, requiresApproval: false };
    expect(asker.seen).toEqual([
      { question: "Allow deploy?", toolCall: { id: "d1", name: "deploy", arguments: { target: "staging" } }, toolFacts, source: "react" },
      { question: "Allow deploy?", toolCall: { id: "d2", name: "deploy", arguments: { target: "prod" } }, toolFacts, source: "react" },
    ]);
    expect(read.ran).toHaveLength(1);
    expect(deploy.ran).toHaveLength(2);
  });

  it.each<Autonomy>(["auto", "gated"])("requiresApproval asks under %s, even for a read-only tool", async (autonomy) => {
    const record = toolReturning("read_record", "secret", { sideEffecting: false, requiresApproval: true });
    const asker = askerAnswering(approve);
    await runAgent([record.tool], callThenSay("read_record", { target: "c1" }), { autonomy, asker });
    expect(asker.seen).toHaveLength(1);
    expect(record.ran).toEqual([{ target: "c1" }]);
  });

  it("approve runs, and the decision is emitted as gate.check without the arguments", async () => {
    const deploy = toolReturning("deploy", "deployed");
    const { result, ctx } = await runAgent([deploy.tool], callThenSay("deploy", { target: "prod" }), {
      autonomy: "gated",
      asker: askerAnswering(approve),
    });
    expect(result.toolCalls[0]).toMatchObject({ ok: true, result: "deployed", arguments: { target: "prod" } });
    expect(ctx.eventsNamed("gate.check")).toEqual([
      {
        event: "gate.check",
        data: {
          tool: "deploy",
          id: "c1",
          questionId: expect.any(String),
          via: "react",
          allowed: true,
          source: "asker",
          asked: true,
          kind: "approve",
          actor: "ops",
          reason: "approved by ops: looks fine",
          at: expect.any(String),
        },
      },
    ]);
    expect(ctx.events.map((e) => e.event)).toEqual([
      "agent.start",
      "llm.request",
      "llm.turn",
      "tool.call",
      "gate.check",
      "tool.result",
      "llm.request",
      "llm.turn",
      "agent.end",
    ]);
  });

  it("modify runs with the edited arguments (recorded as run)", async () => {
    const deploy = toolReturning("deploy", "deployed");
    const asker = askerAnswering({ kind: "modify", actor: "ops", value: { target: "staging" } });
    const llm = callThenSay("deploy", { target: "prod" });
    const { result, ctx } = await runAgent([deploy.tool], llm, { autonomy: "gated", asker });
    expect(deploy.ran).toEqual([{ target: "staging" }]);
    expect(result.toolCalls[0]).toMatchObject({ ok: true, arguments: { target: "staging" } });
    expect(ctx.eventsNamed("gate.check")[0]!.data).toMatchObject({
      allowed: true,
      kind: "modify",
      actor: "ops",
      reason: "approved with changes by ops",
    });
    // The model's own message history keeps the call as it made it.
    expect(llm.requests[1]!.messages[1]!.toolCalls![0]!.arguments).toEqual({ target: "prod" });
  });

  it("modify with edited arguments that are invalid: the tool's validation still applies", async () => {
    const deploy = toolReturning("deploy", "deployed");
    const asker = askerAnswering({ kind: "modify", value: { target: 7 } });
    const llm = callThenSay("deploy", { target: "prod" });
    const { result } = await runAgent([deploy.tool], llm, { autonomy: "gated", asker });
    expect(deploy.ran).toEqual([]);
    expect(result.toolCalls[0]!.result).toBe(
      "tool 'deploy' call rejected: argument 'target' must be string, got number 7. Accepted arguments: ['target']",
    );
  });

  it.each<[Decision, string]>([
    [{ kind: "reject", actor: "ci", note: "/etc is out of scope" }, "tool 'deploy' was not run: rejected by ci: /etc is out of scope"],
    [
      { kind: "expired", actor: "pager" },
      "tool 'deploy' was not run: approval for 'deploy' expired: nobody answered before the Asker's own deadline (no timeoutMs is set)",
    ],
  ])("%j is reported back to the model as the tool result, naming who and why", async (decision, text) => {
    const deploy = toolReturning("deploy", "deployed");
    const llm = callThenSay("deploy", { target: "prod" }, "ok, not deploying");
    const { result, ctx } = await runAgent([deploy.tool], llm, { autonomy: "gated", asker: askerAnswering(decision) });
    expect(deploy.ran).toEqual([]);
    expect(result.toolCalls[0]).toMatchObject({ ok: false, result: text });
    expect(toolMessage(llm.requests[1]!, "c1")).toEqual({ role: "tool", content: text, toolCallId: "c1", name: "deploy" });
    expect(result.stopReason).toBe("complete");
    expect(ctx.eventsNamed("gate.check")).toEqual([
      {
        event: "gate.check",
        data: {
          tool: "deploy",
          id: "c1",
          questionId: expect.any(String),
          via: "react",
          allowed: false,
          source: "asker",
          asked: true,
          kind: decision.kind,
          actor: decision.actor,
          reason: decision.kind === "reject" ? decision.note : text.slice("tool 'deploy' was not run: ".length),
          at: expect.any(String),
        },
      },
    ]);
    expect(ctx.eventsNamed("tool.result")[0]!.data).toEqual({ id: "c1", tool: "deploy", ok: false });
  });

  it("an Asker that throws is a refusal (source error), not a crash", async () => {
    const deploy = toolReturning("deploy", "deployed");
    const asker: Asker = {
      ask: async () => {
        throw new Error("approval queue unreachable");
      },
    };
    const llm = callThenSay("deploy", { target: "prod" });
    const { result, ctx } = await runAgent([deploy.tool], llm, { autonomy: "gated", asker });
    const reason = "approval for 'deploy' failed: the Asker threw Error: approval queue unreachable; denied (not a policy decision)";
    const text = `tool 'deploy' was not run: ${reason}`;
    expect(deploy.ran).toEqual([]);
    expect(toolMessage(llm.requests[1]!, "c1")!.content).toBe(text);
    expect(ctx.eventsNamed("gate.check")).toEqual([
      {
        event: "gate.check",
        data: {
          tool: "deploy",
          id: "c1",
          questionId: expect.any(String),
          via: "react",
          allowed: false,
          source: "error",
          asked: true,
          kind: null,
          actor: null,
          reason,
          at: expect.any(String),
        },
      },
    ]);
    expect(result.stopReason).toBe("complete");
  });

  it("an Asker that throws synchronously is handled the same way", async () => {
    const asker: Asker = {
      ask: () => {
        throw new Error("sync boom");
      },
    };
    const { result } = await runAgent([toolReturning("deploy", 1).tool], callThenSay("deploy", { target: "p" }), {
      autonomy: "gated",
      asker,
    });
    expect(result.toolCalls[0]!.result).toBe(
      "tool 'deploy' was not run: approval for 'deploy' failed: the Asker threw Error: sync boom; denied (not a policy decision)",
    );
  });

  it("no Asker at all: refused (default deny), the Asker not asked", async () => {
    const deploy = toolReturning("deploy", "deployed");
    const { result, ctx } = await runAgent([deploy.tool], callThenSay("deploy", { target: "prod" }), { autonomy: "gated" });
    const reason =
      "approval for 'deploy' failed: it needs approval and there is no Asker to ask (pass asker to the RunContext); denied (not a policy decision)";
    const text = `tool 'deploy' was not run: ${reason}`;
    expect(result.toolCalls[0]).toMatchObject({ ok: false, result: text });
    expect(ctx.eventsNamed("gate.check")[0]!.data).toEqual({
      tool: "deploy",
      id: "c1",
      questionId: null,
      via: "react",
      allowed: false,
      source: "error",
      asked: false,
      kind: null,
      actor: null,
      reason,
      at: expect.any(String),
    });
  });

  it("an Asker answering with a non-Decision is a refusal", async () => {
    const asker: Asker = { ask: async () => undefined as never };
    const { result } = await runAgent([toolReturning("deploy", 1).tool], callThenSay("deploy", { target: "p" }), {
      autonomy: "gated",
      asker,
    });
    expect(result.toolCalls[0]!.result).toBe(
      "tool 'deploy' was not run: approval for 'deploy' failed: the Asker returned undefined instead of a Decision; denied (not a policy decision)",
    );
  });

  it("cancelling the run while the Asker is still deciding ends the run at once", async () => {
    const deploy = toolReturning("deploy", "deployed");
    let asked!: () => void;
    const askedNow = new Promise<void>((r) => (asked = r));
    const asker: Asker = {
      ask: () => {
        asked();
        return new Promise<Decision>(() => {}); // a person who never answers
      },
    };
    const llm = callThenSay("deploy", { target: "prod" });
    const ctx = makeTestCtx({ llm, autonomy: "gated", asker });
    const running = new Agent({ name: "dev", cognition: new ReActCognition({ tools: [deploy.tool] }) }).run("x", ctx);
    await askedNow;
    ctx.cancel();
    const result = await running;
    expect(result.stopReason).toBe("cancelled");
    expect(deploy.ran).toEqual([]);
    expect(llm.requests).toHaveLength(1);
    expect(ctx.eventsNamed("gate.check")[0]!.data).toMatchObject({
      allowed: false,
      source: "error",
      asked: true,
      reason: "approval for 'deploy' failed: the run was cancelled while waiting for approval; denied (not a policy decision)",
    });
  });
});
