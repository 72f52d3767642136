/** @module test/cli/cli-agents.test */
import { describe, expect, it } from "vitest";
import { Agent, ReActCognition, tool } from "../../src/index.js";
import { asCliAgents, CliAgentsError } from "../../src/cli/index.js";

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
    expect(asCliAgents([agent({ cognition: new ReActCognition({ tools: [runCheck] }) })], { mcpNames: { run_check: "mcp__engine__run_check" } })).toEqual({
      reviewer: { description: "Reviews.", prompt: "You review.", tools: ["mcp__engine__run_check"] },
    });
  });

  it("refuses what the CLI cannot take, naming the agent", () => {
    expect(() => asCliAgents([agent({ name: "Code Reviewer" })])).toThrow(
      new CliAgentsError("asCliAgents: agent name 'Code Reviewer' cannot be a CLI subagent name; use lowercase letters, digits, '-' and '_'"),
    );
    expect(() => asCliAgents([agent(), agent()])).toThrow("asCliAgents: two agents are named 'reviewer'");
    expect(() => asCliAgents([agent({ description: "" })])).toThrow("asCliAgents: agent 'reviewer' has no description");
    expect(() => asCliAgents([agent({ prompt: " " })])).toThrow("asCliAgents: agent 'reviewer' has no prompt");
    expect(() => asCliAgents([agent({ cognition: new ReActCognition({ tools: [runCheck] }) })])).toThrow(
      "asCliAgents: agent 'reviewer' uses tool 'run_check', which is not served to the CLI; serve it (serveRegistry) and pass { mcpNames: spec.mcpNames }, or list the agent's CLI tools explicitly",
    );
  });
});
