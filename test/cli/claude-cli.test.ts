import { describe, expect, it } from "vitest";
import { Agent } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { ClaudeCliCognition, McpServerNotConnectedError, type ClaudeCliOptions } from "../../src/cli/index.js";
import { FakeAnthropic } from "./kit/fake-anthropic.js";
import { EngineFixture } from "./kit/engine-fixture.js";
import { CLAUDE_BIN, Hermetic } from "./kit/hermetic.js";

const checker = { check: (name: string) => `check ${name}: PASSED (from the injected checker)` };

function claude(h: Hermetic, api: FakeAnthropic, options: Partial<ClaudeCliOptions> = {}): ClaudeCliCognition {
  return new ClaudeCliCognition({
    model: "fake-model",
    binary: CLAUDE_BIN,
    cwd: h.cwd,
    env: h.claudeEnv(api.url),
    inheritEnv: false,
    settingSources: "",
    strictMcpConfig: true,
    timeoutMs: 60_000,
    ...options,
  });
}

describe("ClaudeCliCognition against the real claude binary", () => {
  it("runs an MCP tool in this process and returns the fake's final text", async () => {
    await using h = Hermetic.create();
    await using engine = await EngineFixture.start(checker);
    await using api = await FakeAnthropic.start([{ toolUses: [{ name: "mcp__engine__run_check", input: { name: "lint" } }] }, { text: "all checks passed" }]);
    const ctx = makeTestCtx();
    const agent = new Agent({ name: "dev", cognition: claude(h, api, { mcpConfig: [engine.mcpConfig()], allowedTools: ["mcp__engine__run_check"], builtinTools: false }) });
    const result = await agent.run("check lint", ctx);
    expect(result.error).toBeUndefined();
    expect(result.stopReason).toBe("complete");
    expect(result.output).toBe("all checks passed");
    expect(engine.calls).toEqual([{ name: "run_check", arguments: { name: "lint" } }]);
    expect(api.toolResults()).toMatchObject([{ type: "tool_result", content: [{ type: "text", text: "check lint: PASSED (from the injected checker)" }] }]);
    expect(result.toolCalls).toMatchObject([{ name: "mcp__engine__run_check", arguments: { name: "lint" }, result: "check lint: PASSED (from the injected checker)", ok: true }]);
    expect(ctx.eventsNamed("tool.call").map((e) => e.data.tool)).toEqual(["mcp__engine__run_check"]);
    expect(ctx.eventsNamed("tool.result").map((e) => e.data.ok)).toEqual([true]);
    expect(ctx.eventsNamed("cli.init")[0]!.data.mcpServers).toEqual([{ name: "engine", status: "connected" }]);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.details?.permissionDenials).toEqual([]);
    // --tools "": the model saw only the served tool
    const offered = api.messageRequests[0]!.tools!.map((t) => t.name);
    expect(offered).toContain("mcp__engine__run_check");
    for (const builtin of ["Bash", "Read", "Write", "Edit", "Task"]) expect(offered).not.toContain(builtin);
  });

  it("fails loudly when an MCP server is not connected (wrong token)", async () => {
    await using h = Hermetic.create();
    await using engine = await EngineFixture.start(checker);
    await using api = await FakeAnthropic.start([{ text: "ran without tools" }]);
    const result = await new Agent({ name: "dev", cognition: claude(h, api, { mcpConfig: [engine.mcpConfig("engine", "WRONG")], builtinTools: false }) }).run("check lint", makeTestCtx());
    expect(result.stopReason).toBe("error");
    expect(result.error).toBeInstanceOf(McpServerNotConnectedError);
    expect(result.error!.message).toBe(
      `claude: MCP server 'engine' is not connected (status "failed"); the run was stopped rather than left to run without its tools. Check that the server is listening at the configured URL and that its token matches.`,
    );
    expect(api.messageRequests).toHaveLength(0);
  });
});
