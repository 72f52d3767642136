/** @module test/cli/codex-cli.test */
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { asCodexMcp, CodexCliCognition } from "../../src/cli/index.js";
import { FakeOpenAI } from "./kit/fake-openai.js";
import { EngineFixture } from "./kit/engine-fixture.js";
import { hermeticCodex } from "./kit/cognitions.js";
import { E2E_TIMEOUT_MS, Hermetic } from "./kit/hermetic.js";

const checker = { check: (name: string) => `check ${name}: PASSED (from the injected checker)` };

const codex = hermeticCodex;

const engineSpec = (engine: EngineFixture, token = engine.token) => ({
  name: "engine",
  transport: "http" as const,
  url: engine.url,
  authHeaders: { Authorization: `Bearer ${token}` },
  autoApprove: ["mcp__engine__run_check"],
  mcpNames: { run_check: "mcp__engine__run_check" },
});

describe("CodexCliCognition against the real codex binary", { timeout: E2E_TIMEOUT_MS }, () => {
  it("runs an MCP tool through asCodexMcp and the result reaches the fake", async () => {
    await using h = Hermetic.create();
    await using engine = await EngineFixture.start(checker);
    await using api = await FakeOpenAI.start([
      { functionCalls: [{ namespace: "mcp__engine", name: "run_check", arguments: { name: "lint" } }] },
      { text: "all checks passed" },
    ]);
    const ctx = makeTestCtx();
    const result = await new Agent({ name: "dev", cognition: codex(h, api, asCodexMcp(engineSpec(engine))) }).run("check lint", ctx);
    expect(result.error).toBeUndefined();
    expect(result.stopReason).toBe("complete");
    expect(result.output).toBe("all checks passed");
    expect(engine.calls).toEqual([{ name: "run_check", arguments: { name: "lint" } }]);
    expect(
      api
        .functionOutputs()
        .map((o) => o.text)
        .join("\n"),
    ).toContain("check lint: PASSED (from the injected checker)");
    expect(result.toolCalls).toMatchObject([
      { name: "mcp__engine__run_check", arguments: { name: "lint" }, result: "check lint: PASSED (from the injected checker)", ok: true },
    ]);
    expect(ctx.eventsNamed("tool.call").map((e) => e.data.tool)).toEqual(["mcp__engine__run_check"]);
    expect(result.usage.inputTokens).toBe(20);
  });

  it("a wrong token fails the run with codex's own message (required = true)", async () => {
    await using h = Hermetic.create();
    await using engine = await EngineFixture.start(checker);
    await using api = await FakeOpenAI.start([{ text: "ran without tools" }]);
    const result = await new Agent({ name: "dev", cognition: codex(h, api, asCodexMcp(engineSpec(engine, "WRONG"))) }).run(
      "check lint",
      makeTestCtx(),
    );
    expect(result.stopReason).toBe("error");
    expect(result.error!.message).toMatch(/^codex exited with code 1: .*required MCP servers failed to initialize: engine/s);
    expect(api.responseRequests).toHaveLength(0);
  });

  it("leaves a tool that is not auto-approved to approval, which codex exec refuses", async () => {
    await using h = Hermetic.create();
    await using engine = await EngineFixture.start(checker);
    await using api = await FakeOpenAI.start([
      { functionCalls: [{ namespace: "mcp__engine", name: "run_check", arguments: { name: "lint" } }] },
      { text: "could not run it" },
    ]);
    const result = await new Agent({ name: "dev", cognition: codex(h, api, asCodexMcp({ ...engineSpec(engine), autoApprove: [] })) }).run(
      "check lint",
      makeTestCtx(),
    );
    expect(result.error).toBeUndefined();
    expect(engine.calls).toEqual([]);
    expect(result.toolCalls).toMatchObject([
      { name: "mcp__engine__run_check", ok: false, result: "MCP tool call requires approval, but approval policy is never" },
    ]);
    expect(
      api
        .functionOutputs()
        .map((o) => o.text)
        .join("\n"),
    ).toContain("requires approval");
  });

  it("passes the agent's prompt as developer instructions", async () => {
    await using h = Hermetic.create();
    await using api = await FakeOpenAI.start([{ text: "ok" }]);
    const result = await new Agent({ name: "dev", prompt: "You are terse. Marker: 7f3a.", cognition: codex(h, api) }).run(
      "hello",
      makeTestCtx(),
    );
    expect(result.error).toBeUndefined();
    expect(JSON.stringify(api.responseRequests[0]!.input)).toContain("You are terse. Marker: 7f3a.");
  });

  it("args(): exec --json, each config entry as -c key=<TOML>, then the task after --", () => {
    const c = new CodexCliCognition({
      model: "gpt-5-codex",
      sandbox: "workspace-write",
      config: {
        "mcp_servers.engine.url": "http://127.0.0.1:1/mcp",
        "mcp_servers.engine.required": true,
        "mcp_servers.engine.env": { A: 'q"uote' },
      },
      disable: ["plugins"],
      enable: ["x"],
    });
    expect(c.args("do it", "be terse")).toEqual([
      "exec",
      "--json",
      "--skip-git-repo-check",
      "--ephemeral",
      "-m",
      "gpt-5-codex",
      "-s",
      "workspace-write",
      "-c",
      'mcp_servers.engine.url="http://127.0.0.1:1/mcp"',
      "-c",
      "mcp_servers.engine.required=true",
      "-c",
      'mcp_servers.engine.env={ A = "q\\"uote" }',
      "-c",
      'developer_instructions="be terse"',
      "--enable",
      "x",
      "--disable",
      "plugins",
      "--",
      "do it",
    ]);
    expect(new CodexCliCognition({ model: "m", ephemeral: false }).args("t")).toEqual([
      "exec",
      "--json",
      "--skip-git-repo-check",
      "-m",
      "m",
      "--",
      "t",
    ]);
    expect(() => new CodexCliCognition({ model: "m", config: { "a b": 1 } })).toThrow(expect.objectContaining({ code: "toml_encode" }));
    expect(() => new CodexCliCognition({ model: "m", sandbox: "none" as never })).toThrow(
      'CodexCliCognition: sandbox must be one of "read-only", "workspace-write", "danger-full-access", got string "none"',
    );
  });
});

describe("CodexCliCognition options", () => {
  it("refuses an unknown option by name, with the accepted ones", () => {
    expect(() => new CodexCliCognition({ model: "m", allowedTools: ["x"] } as never)).toThrow(
      expect.objectContaining({
        name: "OptionsError",
        code: "invalid_option",
        where: "CodexCliCognition",
        option: "allowedTools",
        message:
          "CodexCliCognition: unknown option 'allowedTools'. Accepted options: model, binary, cwd, env, inheritEnv, timeoutMs, extraArgs, resumePrompt, config, sandbox, ephemeral, enable, disable",
      }),
    );
  });

  it.each([
    ["enable", "x"],
    ["ephemeral", "yes"],
    ["config", ["a"]],
    ["cwd", ""],
  ])("refuses a wrong %s, naming it", (key, value) => {
    expect(() => new CodexCliCognition({ model: "m", [key]: value } as never)).toThrow(
      expect.objectContaining({ code: "invalid_option", where: "CodexCliCognition", option: key }),
    );
  });
});
