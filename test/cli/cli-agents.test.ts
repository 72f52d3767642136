/** @module test/cli/cli-agents.test */
import { describe, expect, it } from "vitest";
import { Agent, ReActCognition, tool } from "../../src/index.js";
import { asCliAgents } from "../../src/cli/index.js";
import { optionsError } from "../core/helpers.js";

const noop = { run: async () => ({ output: "", stopReason: "complete" as const, steps: 0, toolCalls: [], usage: {} }) };
const runCheck = tool({ name: "run_check", description: "Run a check.", input: { type: "object", properties: {} } }, () => "ok");
const agent = (over: Partial<ConstructorParameters<typeof Agent>[0]> = {}) =>
  new Agent({ name: "reviewer", description: "Reviews.", prompt: "You review.", cognition: noop, ...over });

describe("asCliAgents", () => {
  it("presents name, description, prompt, tools and model", () => {
    expect(asCliAgents([agent({ model: "haiku" }), { agent: agent({ name: "fixer" }), tools: ["Read", "Edit"] }])).toEqual({
      reviewer: { description: "Reviews.", prompt: "You review.", model: "haiku" },
      fixer: { description: "Reviews.", prompt: "You review.", tools: ["Read", "Edit"] },
    });
    expect(
      asCliAgents([agent({ cognition: new ReActCognition({ tools: [runCheck] }) })], { mcpNames: { run_check: "mcp__engine__run_check" } }),
    ).toEqual({
      reviewer: { description: "Reviews.", prompt: "You review.", tools: ["mcp__engine__run_check"] },
    });
  });

  it("refuses what the CLI cannot take, naming the agent", () => {
    expect(() => asCliAgents([agent({ name: "Code Reviewer" })])).toThrow(
      expect.objectContaining({
        code: "cli_agents",
        message: "asCliAgents: agent name 'Code Reviewer' cannot be a CLI subagent name; use lowercase letters, digits, '-' and '_'",
      }),
    );
    expect(() => asCliAgents([agent(), agent()])).toThrow("asCliAgents: two agents are named 'reviewer'");
    expect(() => asCliAgents([agent({ description: "" })])).toThrow("asCliAgents: agent 'reviewer' has no description");
    expect(() => asCliAgents([agent({ prompt: " " })])).toThrow("asCliAgents: agent 'reviewer' has no prompt");
    expect(() => asCliAgents([agent({ cognition: new ReActCognition({ tools: [runCheck] }) })])).toThrow(
      "asCliAgents: agent 'reviewer' uses tool 'run_check', which is not served to the CLI; serve it (serveRegistry) and pass { mcpNames: spec.mcpNames }, or list the agent's CLI tools explicitly",
    );
  });

  it("checks its options and each { agent, tools, model } entry by one declared spec, refusing an unknown key, a wrong kind and null by name", () => {
    expect(() => asCliAgents([agent()], { mcpName: {} } as never)).toThrow(
      optionsError("asCliAgents: unknown option 'mcpName'. Accepted options: mcpNames"),
    );
    expect(() => asCliAgents([agent()], { mcpNames: ["mcp__engine__run_check"] } as never)).toThrow(
      optionsError("asCliAgents: 'mcpNames' must be an object of strings, got an array"),
    );
    expect(() => asCliAgents([agent()], null as never)).toThrow(
      optionsError("asCliAgents: options must be an object { mcpNames }, got null"),
    );
    expect(() => asCliAgents([{ agent: agent(), modle: "haiku" } as never])).toThrow(
      optionsError("asCliAgents(agents[0]): unknown option 'modle'. Accepted options: agent, tools, model"),
    );
    expect(() => asCliAgents([agent({ name: "a" }), { agent: agent(), tools: "Read" } as never])).toThrow(
      optionsError(`asCliAgents(agents[1]): 'tools' must be an array of non-empty strings, got string "Read"`),
    );
    expect(() => asCliAgents([{ tools: ["Read"] } as never])).toThrow(
      optionsError(`asCliAgents(agents[0]): 'agent' is required (an Agent, e.g. { agent: new Agent({ ... }), tools: ["Read"] })`),
    );
    expect(() => asCliAgents([null as never])).toThrow(
      optionsError("asCliAgents: agents[0] must be an Agent or { agent, tools?, model? }, got null"),
    );
    expect(() => asCliAgents(null as never)).toThrow(
      optionsError("asCliAgents: agents must be an iterable of Agent or { agent, tools?, model? }, got null"),
    );
  });
});
