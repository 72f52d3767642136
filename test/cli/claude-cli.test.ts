/** @module test/cli/claude-cli.test */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent, ReActCognition, tool, CliRunError } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { asCliAgents, ClaudeCliCognition } from "../../src/cli/index.js";
import { hermeticClaude } from "./kit/cognitions.js";
import { FakeAnthropic } from "./kit/fake-anthropic.js";
import { EngineFixture } from "./kit/engine-fixture.js";
import { E2E_TIMEOUT_MS, Hermetic, processesWithHome } from "./kit/hermetic.js";

const checker = { check: (name: string) => `check ${name}: PASSED (from the injected checker)` };

const claude = hermeticClaude;

describe("ClaudeCliCognition against the real claude binary", { timeout: E2E_TIMEOUT_MS }, () => {
  it("runs an MCP tool in this process and returns the fake's final text", async () => {
    await using h = Hermetic.create();
    await using engine = await EngineFixture.start(checker);
    await using api = await FakeAnthropic.start([
      { toolUses: [{ name: "mcp__engine__run_check", input: { name: "lint" } }] },
      { text: "all checks passed" },
    ]);
    const ctx = makeTestCtx();
    const agent = new Agent({
      name: "dev",
      cognition: claude(h, api, { mcpConfig: [engine.mcpConfig()], allowedTools: ["mcp__engine__run_check"], builtinTools: false }),
    });
    const result = await agent.run("check lint", ctx);
    expect(result.error).toBeUndefined();
    expect(result.stopReason).toBe("complete");
    expect(result.output).toBe("all checks passed");
    expect(engine.calls).toEqual([{ name: "run_check", arguments: { name: "lint" } }]);
    expect(api.toolResults()).toMatchObject([
      { type: "tool_result", content: [{ type: "text", text: "check lint: PASSED (from the injected checker)" }] },
    ]);
    expect(result.toolCalls).toMatchObject([
      { name: "mcp__engine__run_check", arguments: { name: "lint" }, result: "check lint: PASSED (from the injected checker)", ok: true },
    ]);
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
    const result = await new Agent({
      name: "dev",
      cognition: claude(h, api, { mcpConfig: [engine.mcpConfig("engine", "WRONG")], builtinTools: false }),
    }).run("check lint", makeTestCtx());
    expect(result.stopReason).toBe("error");
    expect(result.error).toBeInstanceOf(CliRunError);
    expect(result.error).toMatchObject({ code: "cli_mcp_not_connected", server: "engine", status: "failed" });
    expect(result.error!.message).toBe(
      `claude: MCP server 'engine' is not connected (status "failed"); the run was stopped rather than left to run without its tools. Check that the server is listening at the configured URL and that its token matches.`,
    );
    // The run is stopped at the CLI's init line, which reports the failed server. The CLI sends its first model request
    // right after printing that line, so on a busy machine that one request may already be out when the CLI is stopped;
    // its answer is never used, and no second request is made.
    expect(api.messageRequests.length).toBeLessThanOrEqual(1);
    expect(result.output).not.toContain("ran without tools");
  });

  it("isolation: a project .claude/settings.json and .mcp.json in the cwd do not change the run", async () => {
    await using h = Hermetic.create();
    await using engine = await EngineFixture.start(checker);
    mkdirSync(join(h.cwd, ".claude"));
    writeFileSync(join(h.cwd, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["mcp__engine__run_check"] } }));
    writeFileSync(join(h.cwd, ".mcp.json"), JSON.stringify({ mcpServers: { rogue: { type: "http", url: "http://127.0.0.1:9/mcp" } } }));
    const script = () => [{ toolUses: [{ name: "mcp__engine__run_check", input: { name: "lint" } }] }, { text: "done" }];
    const base = { mcpConfig: [engine.mcpConfig()], allowedTools: ["mcp__engine__run_check"], builtinTools: false as const };

    await using isolated = await FakeAnthropic.start(script());
    const ctx = makeTestCtx();
    const ok = await new Agent({ name: "dev", cognition: claude(h, isolated, base) }).run("check lint", ctx);
    expect(ok.error).toBeUndefined();
    expect(engine.calls).toHaveLength(1);
    expect(ctx.eventsNamed("cli.init")[0]!.data.mcpServers).toEqual([{ name: "engine", status: "connected" }]);

    // Control: without the isolation the same files do reach the run (and the dead server fails it loudly).
    await using ambient = await FakeAnthropic.start(script());
    const leaky = await new Agent({
      name: "dev",
      cognition: claude(h, ambient, { ...base, settingSources: undefined, strictMcpConfig: false }),
    }).run("check lint", makeTestCtx());
    expect(leaky.stopReason).toBe("error");
    expect(leaky.error).toBeInstanceOf(CliRunError);
    expect(leaky.error).toMatchObject({ code: "cli_mcp_not_connected", server: "rogue" });
    expect(engine.calls).toHaveLength(1);
  });

  it("surfaces an API error with the CLI's own message", async () => {
    await using h = Hermetic.create();
    await using api = await FakeAnthropic.start(() => ({
      error: { status: 400, type: "invalid_request_error", message: "fake says: quota exceeded for this key" },
    }));
    const result = await new Agent({ name: "dev", cognition: claude(h, api, { builtinTools: false }) }).run("hello", makeTestCtx());
    expect(result.stopReason).toBe("error");
    expect(result.error).toBeInstanceOf(CliRunError);
    expect((result.error as CliRunError).code).toBe("cli_failed");
    expect(result.error!.message).toMatch(
      /^claude reported an error \(exit code 1\): API Error: 400 .*fake says: quota exceeded for this key/,
    );
  });

  it("surfaces a non-zero exit with the CLI's own message", async () => {
    await using h = Hermetic.create();
    await using api = await FakeAnthropic.start([]);
    const result = await new Agent({ name: "dev", cognition: claude(h, api, { settingSources: "foo" }) }).run("hello", makeTestCtx());
    expect(result.stopReason).toBe("error");
    expect((result.error as CliRunError).exitCode).toBe(1);
    expect(result.error!.message).toBe(
      "claude exited with code 1: Error processing --setting-sources: Invalid setting source: foo. Valid options are: user, project, local",
    );
  });

  it("a binary that does not exist is a cli_spawn error naming it", async () => {
    const result = await new Agent({ name: "dev", cognition: new ClaudeCliCognition({ model: "m", binary: "/nonexistent/claude" }) }).run(
      "hello",
      makeTestCtx(),
    );
    expect(result.stopReason).toBe("error");
    expect((result.error as CliRunError).code).toBe("cli_spawn");
    expect(result.error!.message).toBe(
      "could not start the claude binary '/nonexistent/claude': spawn /nonexistent/claude ENOENT. Install @anthropic-ai/claude-code or pass 'binary'",
    );
  });

  it("timeoutMs kills the whole process tree", async () => {
    await using h = Hermetic.create();
    await using api = await FakeAnthropic.start([{ hang: true }]);
    const result = await new Agent({ name: "dev", cognition: claude(h, api, { builtinTools: false, timeoutMs: 8_000 }) }).run(
      "hello",
      makeTestCtx(),
    );
    expect(result.stopReason).toBe("error");
    expect((result.error as CliRunError).code).toBe("cli_timeout");
    expect(result.error!.message).toBe("claude did not finish within 8s and was killed with its process tree");
    expect(processesWithHome(h.home)).toEqual([]);
  });

  it("cancelling the run's context kills the tree and ends 'cancelled'", async () => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    await using api = await FakeAnthropic.start([
      (body) => {
        setTimeout(() => ctx.cancel(), 100);
        void body;
        return { hang: true };
      },
    ]);
    const result = await new Agent({ name: "dev", cognition: claude(h, api, { builtinTools: false }) }).run("hello", ctx);
    expect(result.stopReason).toBe("cancelled");
    expect(result.error).toBeUndefined();
    expect(ctx.eventsNamed("cli.exit")).toMatchObject([{ data: { how: "cancelled" } }]);
    expect(processesWithHome(h.home)).toEqual([]);
  });

  it("asCliAgents: the CLI accepts the document and lists the subagent in its init event", async () => {
    await using h = Hermetic.create();
    await using engine = await EngineFixture.start(checker);
    const runCheck = tool(
      { name: "run_check", description: "Run a check.", input: { type: "object", properties: { name: { type: "string" } } } },
      () => "ok",
    );
    const reviewer = new Agent({
      name: "reviewer",
      description: "Reviews check results and says whether to ship.",
      prompt: "You review check results. Marker: 9c1e.",
      cognition: new ReActCognition({ tools: [runCheck] }),
    });
    const agents = asCliAgents([reviewer], { mcpNames: { run_check: "mcp__engine__run_check" } });
    expect(agents).toEqual({ reviewer: { description: reviewer.description, prompt: reviewer.prompt, tools: ["mcp__engine__run_check"] } });
    // The main loop delegates to it through the CLI's Task tool (2.1.332 runs it in the background
    // and notifies the main loop), so the fake answers by who is asking rather than in a fixed order.
    const isSubagent = (body: { system?: unknown }) => JSON.stringify(body.system ?? "").includes("cc_is_subagent=true");
    const hasToolResult = (body: { messages: readonly { content: unknown }[] }) => JSON.stringify(body.messages).includes('"tool_result"');
    await using api = await FakeAnthropic.start((body) =>
      isSubagent(body)
        ? { text: "ship it" }
        : hasToolResult(body)
          ? { text: "the reviewer says ship it" }
          : { toolUses: [{ name: "Task", input: { subagent_type: "reviewer", description: "review", prompt: "review the lint result" } }] },
    );
    const ctx = makeTestCtx();
    const result = await new Agent({
      name: "lead",
      cognition: claude(h, api, { agents, mcpConfig: [engine.mcpConfig()], allowedTools: ["Task", "mcp__engine__run_check"] }),
    }).run("review", ctx);
    expect(result.error).toBeUndefined();
    expect(ctx.eventsNamed("cli.init")[0]!.data.agents).toContain("reviewer");
    const sub = api.messageRequests.filter(isSubagent);
    expect(sub.length).toBeGreaterThan(0);
    expect(JSON.stringify(sub[0]!.system)).toContain("Marker: 9c1e.");
    // the subagent is offered its own tools only
    expect(sub[0]!.tools!.map((t) => t.name)).toContain("mcp__engine__run_check");
    expect(sub[0]!.tools!.map((t) => t.name)).not.toContain("Bash");
    expect(result.output).toBe("the reviewer says ship it");
  });

  it("maps disallowedTools and the agent's prompt to flags; a task that looks like a flag stays the task", async () => {
    await using h = Hermetic.create();
    await using engine = await EngineFixture.start(checker);
    await using api = await FakeAnthropic.start([{ text: "no tools today" }]);
    const cognition = claude(h, api, {
      mcpConfig: [engine.mcpConfig()],
      disallowedTools: ["mcp__engine__run_check"],
      builtinTools: ["Read"],
    });
    const result = await new Agent({ name: "dev", prompt: "Agent prompt marker: 51d2.", cognition }).run("--version please", makeTestCtx());
    expect(result.error).toBeUndefined();
    expect(result.output).toBe("no tools today");
    const req = api.messageRequests[0]!;
    const offered = req.tools!.map((t) => t.name);
    expect(offered).toContain("Read");
    expect(offered).not.toContain("mcp__engine__run_check");
    expect(offered).not.toContain("Bash");
    expect(JSON.stringify(req.system)).toContain("Agent prompt marker: 51d2.");
    expect(JSON.stringify(req.messages)).toContain("--version please");
  });

  it("args(): each option becomes its flag, in order, with the task after --", () => {
    const c = new ClaudeCliCognition({
      model: "sonnet",
      mcpConfig: ["/tmp/a.json", '{"mcpServers":{}}'],
      strictMcpConfig: true,
      permissionPromptTool: "mcp__agentkit_approvals__approve",
      allowedTools: ["mcp__engine__run_check", "Bash(git *)"],
      disallowedTools: ["WebFetch"],
      builtinTools: false,
      settingSources: ["user", "project"],
      settings: { hooks: {} },
      agents: { r: { description: "d", prompt: "p" } },
      permissionMode: "dontAsk",
      extraArgs: ["--max-turns", "3"],
    });
    expect(c.args("do it", "be terse")).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--model",
      "sonnet",
      "--mcp-config",
      "/tmp/a.json",
      '{"mcpServers":{}}',
      "--strict-mcp-config",
      "--permission-prompt-tool",
      "mcp__agentkit_approvals__approve",
      "--allowedTools",
      "mcp__engine__run_check",
      "Bash(git *)",
      "--disallowedTools",
      "WebFetch",
      "--tools",
      "",
      "--setting-sources",
      "user,project",
      "--settings",
      '{"hooks":{}}',
      "--agents",
      '{"r":{"description":"d","prompt":"p"}}',
      "--permission-mode",
      "dontAsk",
      "--append-system-prompt",
      "be terse",
      "--max-turns",
      "3",
      "--",
      "do it",
    ]);
    expect(new ClaudeCliCognition({ model: "m", settingSources: "" }).args("t")).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--model",
      "m",
      "--setting-sources",
      "",
      "--",
      "t",
    ]);
    expect(() => new ClaudeCliCognition({ model: "" })).toThrow("ClaudeCliCognition: 'model' is required");
    expect(() => new ClaudeCliCognition({ model: "m", timeoutMs: 0 })).toThrow(
      /^ClaudeCliCognition: timeoutMs must be a positive number of milliseconds up to \d+, or left unset to wait forever; got number 0$/,
    );
  });
});

describe("ClaudeCliCognition options", () => {
  it("refuses an unknown option by name, with the accepted ones", () => {
    expect(() => new ClaudeCliCognition({ model: "m", allowedTool: ["Bash"] } as never)).toThrow(
      expect.objectContaining({
        name: "OptionsError",
        code: "invalid_option",
        where: "ClaudeCliCognition",
        option: "allowedTool",
        message:
          "ClaudeCliCognition: unknown option 'allowedTool'. Accepted options: model, binary, cwd, env, inheritEnv, timeoutMs, extraArgs, resumePrompt, mcpConfig, strictMcpConfig, permissionPromptTool, allowedTools, disallowedTools, builtinTools, settingSources, settings, agents, permissionMode",
      }),
    );
  });

  it.each([
    ["allowedTools", "Bash"],
    ["mcpConfig", 3],
    ["builtinTools", "none"],
    ["env", { A: 1 }],
    ["inheritEnv", "no"],
    ["settings", 5],
  ])("refuses a wrong %s, naming it", (key, value) => {
    expect(() => new ClaudeCliCognition({ model: "m", [key]: value } as never)).toThrow(
      expect.objectContaining({ code: "invalid_option", where: "ClaudeCliCognition", option: key }),
    );
  });
});
