/**
 * @module test/cli/claude-tasks.test
 * What the pinned Claude Code (2.1.332, the native binary spawned directly,
 * `claude -p --output-format stream-json`, hermetic: no network, so no
 * remote feature flags) does with MCP Tasks (`io.modelcontextprotocol/tasks`,
 * 2026-07-28), against a throwaway server built on SDK v2 primitives
 * (test/fixtures/servers/tasks-probe-server.ts: low-level `Server` +
 * `createMcpHandler`, 2026-07-28 only, a real loopback socket, a task handle
 * from `tools/call`, explicit-schema `tasks/get|update|cancel`).
 *
 * Measured here (2026-12-06), and asserted below so a CLI change fails:
 * - In `-p` mode Claude Code does NOT declare the extension. Every
 *   `tools/call` carries `_meta["io.modelcontextprotocol/clientCapabilities"]
 *   = { roots: { listChanged: true }, elicitation: { form: {}, url: {} } }`
 *   and no `extensions`. The binary's capability builder adds the extension
 *   only when `zC()` holds: `CLAUDE_CODE_DISABLE_MCP_TASKS` unset and the
 *   remote flag `tengu_glowing_lark`, whose default is `entrypoint === "cli"`
 *   (the interactive terminal). `-p` sets the entrypoint to `sdk-cli` (even
 *   when `CLAUDE_CODE_ENTRYPOINT=cli` is given), so without the flag service
 *   the default is off. `CLAUDE_INTERNAL_FC_OVERRIDES={"tengu_glowing_lark":
 *   true}` did not turn it on either (not asserted: an internal knob).
 * - So a spec-following server answers in the call: the model's next request
 *   carries the tool's text as the `tool_result`, same turn; no `tasks/*`
 *   request is ever sent. Run: server/discover ≈1.4–3.3 s after spawn,
 *   tools/list ≈0.1–0.5 s later, tools/call ≈1.2–1.5 s after that, whole
 *   run ≈6–7 s. The same with `CLAUDE_CODE_DISABLE_MCP_TASK_BACKGROUND=1`
 *   and with `CLAUDE_CODE_DISABLE_MCP_TASKS=1` (nothing to disable).
 * - A task handle it did not ask for (`resultType: "task"` anyway, which the
 *   spec forbids) is rejected by its SDK client: the model gets
 *   `{ type: "tool_result", is_error: true, content: "Unsupported result
 *   type 'task' for tools/call" }`, no `tasks/get` is sent, the run ends
 *   normally and the task is left `working` on the server.
 * - `Mcp-Name` is sent on `tools/call` (the tool name). Its `tasks/get`
 *   header, `pollIntervalMs` pacing, the background hand-off and the
 *   `input_required` question ("A background MCP task has a question") are
 *   unreachable in `-p`: no task is ever created there. They are measured
 *   in the interactive terminal (claude-tasks-terminal.test.ts) and against
 *   the package's own served module (claude-tasks-served.test.ts).
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { TASKS_EXTENSION, TasksProbeServer } from "../fixtures/servers/tasks-probe-server.js";
import { slowJob } from "../fixtures/servers/tasks-probe-tools.js";
import { mcpConfigFile } from "./kit/claude-terminal.js";
import { hermeticClaude } from "./kit/cognitions.js";
import { FakeAnthropic } from "./kit/fake-anthropic.js";
import { E2E_TIMEOUT_MS, Hermetic } from "./kit/hermetic.js";

/** One `claude -p` run calling `mcp__probe__slow_job` once, then saying "done". */
async function runClaude(h: Hermetic, server: TasksProbeServer, env: Record<string, string>) {
  const api = await FakeAnthropic.start((_body, i) =>
    i === 0 ? { toolUses: [{ name: "mcp__probe__slow_job", input: {} }] } : { text: "done" },
  );
  const cognition = hermeticClaude(h, api, {
    allowedTools: ["mcp__probe__slow_job"],
    mcpConfig: [mcpConfigFile(h, "probe", server.url)],
    strictMcpConfig: true,
    builtinTools: false,
    env,
  });
  const started = Date.now();
  const result = await new Agent({ name: "dev", cognition }).run("run the slow job", makeTestCtx());
  return { api, result, ms: Date.now() - started };
}

const capabilitiesOf = (params: Record<string, unknown> | undefined) =>
  (params?._meta as Record<string, unknown> | undefined)?.["io.modelcontextprotocol/clientCapabilities"];

describe("Claude Code 2.1.332 and MCP Tasks in -p mode (real binary, probe server)", { timeout: E2E_TIMEOUT_MS }, () => {
  it.each<{ label: string; env: Record<string, string> }>([
    { label: "default settings", env: {} },
    { label: "CLAUDE_CODE_DISABLE_MCP_TASK_BACKGROUND=1", env: { CLAUDE_CODE_DISABLE_MCP_TASK_BACKGROUND: "1" } },
    { label: "CLAUDE_CODE_DISABLE_MCP_TASKS=1", env: { CLAUDE_CODE_DISABLE_MCP_TASKS: "1" } },
  ])(
    "$label: no extension declared, so the task-capable tool answers in the call and the model reads it in the same turn",
    async ({ env }) => {
      await using h = Hermetic.create();
      const ref: { s?: TasksProbeServer } = {};
      await using server = (ref.s = await TasksProbeServer.start({ tools: [slowJob(() => ref.s!, "auto")], pollIntervalMs: 200 }));
      const { api, result } = await runClaude(h, server, env);
      await using _api = api;
      expect(result.error).toBeUndefined();
      expect(result.output).toBe("done");
      const call = server.log.find((r) => r.method === "tools/call")!;
      expect(capabilitiesOf(call.params)).toEqual({ roots: { listChanged: true }, elicitation: { form: {}, url: {} } });
      expect(JSON.stringify(capabilitiesOf(call.params))).not.toContain(TASKS_EXTENSION);
      expect(call.mcpName).toBe("slow_job");
      expect(server.methods()).toEqual(["server/discover", "tools/list", "tools/call"]);
      expect(server.tasks.size).toBe(0);
      // The answer came in the call: the model's second request carries it; there is no third.
      expect(api.messageRequests).toHaveLength(2);
      expect(api.toolResults()).toMatchObject([
        { type: "tool_result", content: [{ type: "text", text: "slow_job finished in the call" }] },
      ]);
      expect(api.toolResults()[0]!.is_error).toBeFalsy();
    },
  );

  it("a task handle it did not ask for is an error result for the model: 'Unsupported result type 'task' for tools/call', never polled", async () => {
    await using h = Hermetic.create();
    const ref: { s?: TasksProbeServer } = {};
    await using server = (ref.s = await TasksProbeServer.start({ tools: [slowJob(() => ref.s!, "unsolicited")], pollIntervalMs: 200 }));
    const { api, result } = await runClaude(h, server, {});
    await using _api = api;
    expect(result.error).toBeUndefined();
    expect(result.output).toBe("done");
    expect(api.toolResults()).toMatchObject([
      { type: "tool_result", is_error: true, content: "Unsupported result type 'task' for tools/call" },
    ]);
    expect(server.methods()).toEqual(["server/discover", "tools/list", "tools/call"]);
    expect([...server.tasks.values()].map((t) => t.status)).toEqual(["working"]);
  });
});
