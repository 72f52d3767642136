/**
 * @module test/cli/claude-tasks-terminal.test
 * What the pinned Claude Code (2.1.332) does with MCP Tasks where it turns
 * them on by default: the interactive terminal (entrypoint `cli`), driven in
 * a pseudo-terminal (kit/claude-terminal.ts) against the throwaway probe
 * server (SDK v2 primitives, 2026-07-28, task handles from `tools/call`) and
 * a fake Messages API. `-p` never gets here (claude-tasks.test.ts).
 *
 * Measured here (2026-12-06, pollIntervalMs 200–300), asserted below:
 * - Every request's `_meta` client capabilities carry
 *   `extensions: { "io.modelcontextprotocol/tasks": {} }`, from
 *   `server/discover` on.
 * - Default: the task goes to the background at once. The model's next
 *   request carries, as the tool_result, `MCP tool "probe/slow_job" started
 *   server-side task <taskId>. It was moved to the background as task <local
 *   id> and keeps running on the server; you'll receive a notification with
 *   the result when it completes ... To stop it, use TaskStop with task_id
 *   "<local id>"; the result arrives as a task notification.` and the turn
 *   ends. Claude polls `tasks/get` (first ≈0.1–0.7 s after the call, then
 *   ≈0.3–0.5 s apart), each with `Mcp-Name: <taskId>`. When the task
 *   completes, a NEW model request arrives whose last user message is a
 *   `<task-notification>` (`<status>completed</status>`, `<summary>MCP task
 *   <taskId> (probe/slow_job) completed.</summary>`, `<result>` the tool's
 *   text `</result>`): the result reaches the model with no new tool call.
 * - `CLAUDE_CODE_DISABLE_MCP_TASK_BACKGROUND=1`: the same polling, inside the
 *   call; the tool_result is the task's own result text; no notification.
 * - `input_required` (an `elicitation/create` form with a boolean
 *   `approve`): the task still goes to the background; the one `tasks/get`
 *   that sees `input_required` is the last one — polling stops, no
 *   `tasks/update` is sent, the model is not told, and the screen shows
 *   "1 MCP task still running" (the question waits for a person in /tasks).
 */
import { describe, expect, it } from "vitest";
import { TASKS_EXTENSION, TasksProbeServer } from "../fixtures/servers/tasks-probe-server.js";
import { guardedJob, slowJob } from "../fixtures/servers/tasks-probe-tools.js";
import { ClaudeTerminal, mcpConfigFile } from "./kit/claude-terminal.js";
import { until } from "../helpers/wait.js";
import { FakeAnthropic, type AnthropicRequest } from "./kit/fake-anthropic.js";
import { Hermetic, processesWithHome } from "./kit/hermetic.js";

const TOOLS = ["mcp__probe__slow_job", "mcp__probe__guarded_job"];

/** The text of every message after the model's last one in a request (tool results as JSON): what the model was newly told. */
function newText(body: AnthropicRequest): string {
  const from = body.messages.map((m) => m.role).lastIndexOf("assistant") + 1;
  return body.messages
    .slice(from)
    .map((m) =>
      typeof m.content === "string"
        ? m.content
        : m.content
            .map((b) => (b.type === "tool_result" ? JSON.stringify(b.content) : typeof b.text === "string" ? b.text : ""))
            .join("\n"),
    )
    .join("\n");
}

/** A probe server with both tools, a fake API calling `tool` once then saying `turn <n>`, and the terminal session. */
async function session(h: Hermetic, tool: string, env: Record<string, string> = {}) {
  const ref: { s?: TasksProbeServer } = {};
  const server = (ref.s = await TasksProbeServer.start({ tools: [slowJob(() => ref.s!, "auto", 3), guardedJob()], pollIntervalMs: 200 }));
  const api = await FakeAnthropic.start((_body, i) => (i === 0 ? { toolUses: [{ name: tool, input: {} }] } : { text: `turn ${i}` }));
  const terminal = ClaudeTerminal.start(h, api, {
    mcpConfig: mcpConfigFile(h, "probe", server.url),
    allowedTools: TOOLS,
    prompt: "do the job",
    env,
  });
  return { server, api, terminal };
}

const gets = (server: TasksProbeServer) => server.log.filter((r) => r.method === "tasks/get");

describe("Claude Code 2.1.332 and MCP Tasks in its interactive terminal (real binary, probe server)", { timeout: 60_000 }, () => {
  it("default: the task is handed to the background at once, polled with Mcp-Name, and its result reaches the model as a task notification with no new tool call", async () => {
    await using h = Hermetic.create();
    const { server, api, terminal } = await session(h, "mcp__probe__slow_job");
    await using _s = server;
    await using _a = api;
    await using _t = terminal;
    await until(() => api.messageRequests.length >= 3, "the task notification turn", 50_000);
    const [task] = [...server.tasks.values()];
    expect(task?.status).toBe("completed");
    for (const r of server.log)
      expect(JSON.stringify((r.params?._meta as Record<string, unknown>)?.["io.modelcontextprotocol/clientCapabilities"])).toContain(
        TASKS_EXTENSION,
      );
    expect(server.methods().filter((m) => m === "tools/call")).toHaveLength(1);
    expect(server.methods()).not.toContain("tasks/update");
    expect(gets(server).length).toBeGreaterThanOrEqual(3);
    for (const r of gets(server)) expect(r.mcpName).toBe(task!.taskId);
    const [, handed, notified] = api.messageRequests;
    expect(newText(handed!)).toMatch(
      new RegExp(`started server-side task ${task!.taskId}\\. It was moved to the background as task \\w+ and keeps running on the server`),
    );
    expect(newText(handed!)).not.toContain("slow_job finished");
    expect(newText(notified!)).toMatch(/<task-notification>[\s\S]*<status>completed<\/status>/);
    expect(newText(notified!)).toContain(`MCP task ${task!.taskId} (probe/slow_job) completed.`);
    expect(newText(notified!)).toMatch(/<result>\s*slow_job finished as a task\s*<\/result>/);
    await terminal[Symbol.asyncDispose]();
    expect(processesWithHome(h.home)).toEqual([]);
  });

  it("CLAUDE_CODE_DISABLE_MCP_TASK_BACKGROUND=1: it polls inside the call and the tool_result is the task's result", async () => {
    await using h = Hermetic.create();
    const { server, api, terminal } = await session(h, "mcp__probe__slow_job", { CLAUDE_CODE_DISABLE_MCP_TASK_BACKGROUND: "1" });
    await using _s = server;
    await using _a = api;
    await using _t = terminal;
    await until(() => api.messageRequests.length >= 2, "the model's second request", 50_000);
    const [task] = [...server.tasks.values()];
    expect(task?.status).toBe("completed");
    expect(gets(server).length).toBeGreaterThanOrEqual(3);
    for (const r of gets(server)) expect(r.mcpName).toBe(task!.taskId);
    expect(newText(api.messageRequests[1]!)).toContain('"type":"text","text":"slow_job finished as a task"');
    expect(newText(api.messageRequests[1]!)).not.toContain("moved to the background");
    await terminal[Symbol.asyncDispose]();
    expect(processesWithHome(h.home)).toEqual([]);
  });

  it("input_required: the task goes to the background, polling stops at the question, no tasks/update is sent and the model is not told", async () => {
    await using h = Hermetic.create();
    const { server, api, terminal } = await session(h, "mcp__probe__guarded_job");
    await using _s = server;
    await using _a = api;
    await using _t = terminal;
    await until(
      () => gets(server).length >= 1 && api.messageRequests.length >= 2 && terminal.screen().includes("1 MCP task still running"),
      "the first poll and the end of the turn",
      50_000,
    );
    // Absence needs a window: 3 s is 15 poll intervals of the server's 200 ms.
    await new Promise((r) => setTimeout(r, 3000));
    const [task] = [...server.tasks.values()];
    expect(task?.status).toBe("input_required");
    expect(gets(server)).toHaveLength(1);
    expect(gets(server)[0]!.mcpName).toBe(task!.taskId);
    expect(server.methods()).not.toContain("tasks/update");
    expect(server.methods()).not.toContain("tasks/cancel");
    expect(api.messageRequests).toHaveLength(2);
    expect(newText(api.messageRequests[1]!)).toContain("It was moved to the background");
    await terminal[Symbol.asyncDispose]();
    expect(processesWithHome(h.home)).toEqual([]);
  });
});
