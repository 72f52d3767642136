/**
 * @module test/cli/samples.test
 * The CLI samples, built (`npm run build` first) and run with node. The Claude
 * one runs the real binary against the fake Messages API in a hermetic HOME.
 */
import { describe, expect, it } from "vitest";
import { runSample } from "../helpers/run-sample.js";
import { FakeAnthropic } from "./kit/fake-anthropic.js";
import { E2E_TIMEOUT_MS, CLAUDE_BIN, Hermetic } from "./kit/hermetic.js";

describe("CLI samples", { timeout: E2E_TIMEOUT_MS }, () => {
  it("cli-claude: the caller's shape (serveRegistry + ClaudeCliCognition) runs the served tool through the real claude", async () => {
    await using h = Hermetic.create();
    await using api = await FakeAnthropic.start([
      { toolUses: [{ name: "mcp__engine__run_check", input: { name: "lint" } }] },
      { text: "lint passed" },
    ]);
    const out = await runSample("cli-claude", { ...h.claudeEnv(api.url), CLAUDE_BIN, CLAUDE_MODEL: "fake-model" });
    expect(out).toBe(
      [
        'mcp servers: [{"name":"engine","status":"connected"}]',
        'tool calls:  [["mcp__engine__run_check",{"name":"lint"},"lint:ok"]]',
        "calls seen:  1",
        "stop:        complete",
        "output:      lint passed",
        "",
      ].join("\n"),
    );
  });

  it("cli-codex: the token travels in env, never in argv", async () => {
    expect(await runSample("cli-codex")).toBe(
      [
        "config keys:   mcp_servers.engine.url, mcp_servers.engine.bearer_token_env_var, mcp_servers.engine.required, mcp_servers.engine.tool_timeout_sec, mcp_servers.engine.tools.read_result.approval_mode, mcp_servers.engine.tools.run_check.approval_mode",
        "-c overrides:",
        '    mcp_servers.engine.url="<url>"',
        '    mcp_servers.engine.bearer_token_env_var="AGENTKIT_MCP_TOKEN_ENGINE"',
        "    mcp_servers.engine.required=true",
        "    mcp_servers.engine.tool_timeout_sec=31536000",
        '    mcp_servers.engine.tools.read_result.approval_mode="approve"',
        '    mcp_servers.engine.tools.run_check.approval_mode="approve"',
        "env names:     AGENTKIT_MCP_TOKEN_ENGINE",
        "token in argv: false",
        "token in env:  true",
        "",
      ].join("\n"),
    );
  });

  it("cli-adapters: the hook settings and the --agents document", async () => {
    expect(await runSample("cli-adapters")).toBe(
      [
        "hook matcher:  Bash|Write|Edit",
        "hook type:     command (timeout 70s)",
        "hook program:  process.execPath <package>/dist/cli/hook-client.js",
        "token env:     AGENTKIT_HOOK_TOKEN_<id>",
        'agents:        {"reviewer":{"description":"Reviews check results and says whether to ship.","prompt":"You review check results. Be terse.","tools":["mcp__engine__run_check"]}}',
        "flags:         --output-format --verbose --model --setting-sources --settings --agents --",
        "",
      ].join("\n"),
    );
  });
});
