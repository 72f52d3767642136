/**
 * @module test/core/agents/agent.test
 * `Agent` (src/agents/agent.ts): options, defaults, the cognition contract,
 * and an agent run that calls a `@Tool` class whose service is injected by
 * type from a child container.
 */
import { optionsError } from "../helpers.js";
import "reflect-metadata";
import { container } from "tsyringe";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, ReActCognition, ToolRegistry, type AgentResult, type Cognition } from "../../../src/index.js";
import type { CognitionInput } from "../../../src/agents/agent.js";
import { FakeLLM, Turn, makeTestCtx } from "../../../src/testing/index.js";
import { CheckService, RunCheck } from "../fixtures/run-check.tool.js";

/** A cognition that answers `result` and records what it was handed. */
function cognitionReturning(result: Partial<AgentResult>): Cognition & { inputs: CognitionInput[] } {
  const inputs: CognitionInput[] = [];
  return {
    inputs,
    async run(input) {
      inputs.push(input);
      return { output: "", stopReason: "complete", steps: 0, toolCalls: [], usage: {}, ...result };
    },
  };
}

afterEach(() => {
  expect(container.isRegistered(RunCheck)).toBe(false);
  expect(container.isRegistered(CheckService)).toBe(false);
});

describe("Agent", () => {
  it("defaults: model 'default', prompt '', description ''", () => {
    const a = new Agent({ name: "dev", cognition: cognitionReturning({}) });
    expect([a.name, a.model, a.prompt, a.description]).toEqual(["dev", "default", "", ""]);
  });

  it("hands the task, itself and the context to its cognition and returns its result", async () => {
    const cog = cognitionReturning({ output: "42", steps: 3 });
    const agent = new Agent({ name: "calc", model: "m", prompt: "p", cognition: cog, description: "adds" });
    const ctx = makeTestCtx();
    const r = await agent.run("6*7", ctx);
    expect(r).toMatchObject({ output: "42", stopReason: "complete", steps: 3 });
    expect(cog.inputs).toEqual([{ task: "6*7", agent, ctx }]);
    expect(ctx.events).toEqual([
      { event: "agent.start", data: { agent: "calc", task: "6*7" } },
      { event: "agent.end", data: { agent: "calc", stopReason: "complete", steps: 3 } },
    ]);
  });

  it("refuses a missing name", () => {
    expect(() => new Agent({ cognition: cognitionReturning({}) } as never)).toThrow(
      optionsError("Agent: 'name' is required (a non-empty string)"),
    );
  });

  it.each([[""], ["  "], [3]])("refuses a name that is not a non-empty string (%j)", (name) => {
    expect(() => new Agent({ name, cognition: cognitionReturning({}) } as never)).toThrow(
      expect.objectContaining({
        code: "invalid_option",
        where: "Agent",
        option: "name",
        message: expect.stringMatching(/^Agent: 'name' must be a non-empty string, got /),
      }),
    );
  });

  it("refuses an unknown option by name, with the accepted ones", () => {
    expect(() => new Agent({ name: "dev", cognition: cognitionReturning({}), system: "be terse" } as never)).toThrow(
      expect.objectContaining({
        name: "OptionsError",
        code: "invalid_option",
        where: "Agent",
        option: "system",
        message: "Agent: unknown option 'system'. Accepted options: name, model, prompt, cognition, description",
      }),
    );
  });

  it.each([
    ["model", 3],
    ["prompt", null],
    ["description", ["a"]],
  ])("refuses a non-string %s", (key, value) => {
    expect(() => new Agent({ name: "dev", cognition: cognitionReturning({}), [key]: value } as never)).toThrow(
      expect.objectContaining({ code: "invalid_option", where: "Agent", option: key }),
    );
  });

  it("refuses a missing cognition", () => {
    expect(() => new Agent({ name: "dev" } as never)).toThrow(
      optionsError("Agent: 'cognition' is required (e.g. new ReActCognition({ tools }))"),
    );
  });

  it("refuses a cognition without run()", () => {
    expect(() => new Agent({ name: "dev", cognition: {} } as never)).toThrow(
      optionsError("Agent: 'cognition' must be a Cognition (an object with run(input)), e.g. new ReActCognition({ tools }), got object {}"),
    );
  });
});

describe("an agent run calling a @Tool class with an injected dependency", () => {
  it("resolves the tool through a child container, runs it, and feeds its result back", async () => {
    const scope = container.createChildContainer();
    scope.registerSingleton(CheckService);
    const registry = ToolRegistry.fromTools([RunCheck], { container: scope });
    const llm = FakeLLM.script([
      new Turn({ toolCalls: [{ id: "1", name: "run_check", arguments: { name: "lint", verbose: true } }] }),
      new Turn({ toolCalls: [{ id: "2", name: "run_check", arguments: { name: "lint", strict: true } }] }),
      new Turn({ content: "lint passed." }),
    ]);
    const ctx = makeTestCtx({ llm });
    const agent = new Agent({
      name: "dev",
      model: "fake",
      prompt: "Use the tools.",
      cognition: new ReActCognition({ tools: registry.tools() }),
    });
    const result = await agent.run("Is lint clean?", ctx);

    expect(result.output).toBe("lint passed.");
    expect(result.stopReason).toBe("complete");
    expect(result.toolCalls.map((c) => [c.name, c.ok, c.result])).toEqual([
      ["run_check", false, "tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']"],
      ["run_check", true, "lint:strict:ok"],
    ]);
    // The singleton in the child container is the one the tool used.
    expect(scope.resolve(CheckService).ran).toEqual(["lint"]);
    // The model saw both results, by call id.
    const last = llm.requests[2]!.messages;
    expect(last.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m.content])).toEqual([
      ["1", "tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']"],
      ["2", "lint:strict:ok"],
    ]);
    // The tool emitted through the run's context.
    expect(ctx.eventsNamed("check.ran")).toEqual([{ event: "check.ran", data: { name: "lint" } }]);
    // The model was shown the DTO-derived schema.
    expect(llm.requests[0]!.tools).toEqual([
      {
        name: "run_check",
        description: "Run the named check.",
        parameters: {
          type: "object",
          properties: { name: { type: "string" }, strict: { type: "boolean" } },
          required: ["name"],
          additionalProperties: false,
        },
      },
    ]);
  });
});
