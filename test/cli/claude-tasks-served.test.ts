/**
 * @module test/cli/claude-tasks-served.test
 * The package's own served module as an MCP task server, end to end:
 * `agentkit serve test/fixtures/modules/guarded-tasks-module.mjs --approve
 * web --inbox-store <dir>` (the real program; `deploy` requires approval and
 * the module's guard asks the inbox page), a request log in front of its
 * `ops` endpoint, the inbox page answered through its own endpoints
 * (inbox-page.ts), and the pinned clients spawned directly against fake
 * model APIs.
 *
 * Measured (2026-12-06, a machine at load ≈20 on 2 cores), asserted below:
 * - Claude Code 2.1.332 in its terminal (tasks on): `tools/call` is answered
 *   with a task handle in ≈0.15 s (`resultType: "task"`, `statusMessage:
 *   "waiting for approval"`); the model is told at once that the task "was
 *   moved to the background". While the module's own Asker (the inbox) has
 *   the question the task is `working` ("waiting for approval"), so Claude
 *   keeps polling `tasks/get` (`Mcp-Name` = the task id); approving on the
 *   inbox page runs `deploy` once, and Claude's next poll sees `completed`:
 *   the result reaches the model as a `<task-notification>`, with no new
 *   tool call. (Before, the task was `input_required`: Claude polled once,
 *   stopped, and the approved result never reached the model.)
 * - The same with `CLAUDE_CODE_DISABLE_MCP_TASK_BACKGROUND=1`: Claude polls
 *   inside the call, and the approved result is that call's `tool_result`.
 * - Claude Code in `-p` declares no tasks extension: no task; the guarded
 *   call waits inside `tools/call` for the inbox, and the approval's result
 *   is the `tool_result` of that same call.
 * - Codex 0.171.0 (2025-06-18, `initialize`): no task either; the same.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/index.js";
import { asCodexMcp } from "../../src/cli/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { FIXTURES, requireBuild, ServeProcess } from "../agentkit-cli/agentkit-process.js";
import { answerOnPage, logIn, type PageSession } from "../agentkit-cli/inbox-page.js";
import { ClaudeTerminal, mcpConfigFile } from "./kit/claude-terminal.js";
import { until } from "../helpers/wait.js";
import { hermeticClaude, hermeticCodex } from "./kit/cognitions.js";
import { FakeAnthropic, type AnthropicRequest } from "./kit/fake-anthropic.js";
import { FakeOpenAI } from "./kit/fake-openai.js";
import { Hermetic, processesWithHome } from "./kit/hermetic.js";
import { WireLogProxy } from "./kit/wire-log-proxy.js";

beforeAll(() => requireBuild());

/** `agentkit serve guarded-tasks-module --approve web --inbox-store <dir>`, logged in on its inbox page, its `ops` endpoint behind a request log. */
async function servedGuarded(h: Hermetic) {
  const deploys = join(h.root, "deploys.txt");
  // Startup (PGlite in the inbox store) took 7 s to over 45 s on the shared machine.
  const serve = await ServeProcess.start(
    [join(FIXTURES, "guarded-tasks-module.mjs"), "--approve", "web", "--inbox-store", join(h.root, "inbox"), "--timeout-ms", "60000"],
    { env: { AGENTKIT_TEST_DEPLOYS: deploys }, timeoutMs: 90_000 },
  );
  try {
    await until(() => /log in to the approval inbox with: http:\S+/.test(serve.stderr), "the inbox login link", 15_000);
    const session: PageSession = await logIn(/log in to the approval inbox with: (\S+)/.exec(serve.stderr)![1]!);
    const ops = (
      JSON.parse(readFileSync(serve.configPath, "utf8")) as { mcpServers: Record<string, { url: string; headers: Record<string, string> }> }
    ).mcpServers.ops!;
    const proxy = await WireLogProxy.start(ops.url);
    const ran = (): string[] => {
      try {
        return readFileSync(deploys, "utf8").split("\n").filter(Boolean);
      } catch {
        return [];
      }
    };
    return { serve, session, proxy, ops, config: mcpConfigFile(h, "ops", proxy.url, ops.headers), ran };
  } catch (e) {
    await serve[Symbol.asyncDispose]();
    throw e;
  }
}

/** What the model was newly told in a request: every message after its own last one (tool results as JSON). */
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

const deployOnce = (_b: unknown, i: number) =>
  i === 0 ? { toolUses: [{ name: "mcp__ops__deploy", input: { target: "staging" } }] } : { text: `turn ${i}` };

describe("the package's served module as a task server, real clients", { timeout: 180_000 }, () => {
  it("Claude Code terminal: the handle comes back in under a second; the task is working 'waiting for approval' (the module's inbox asks), Claude keeps polling, and the approval on the inbox page reaches the model as a task notification with no new tool call", async () => {
    await using h = Hermetic.create();
    const s = await servedGuarded(h);
    await using _serve = s.serve;
    await using _proxy = s.proxy;
    await using api = await FakeAnthropic.start(deployOnce);
    await using terminal = ClaudeTerminal.start(h, api, {
      mcpConfig: s.config,
      allowedTools: ["mcp__ops__deploy"],
      prompt: "deploy staging",
    });
    await until(
      () =>
        api.messageRequests.length >= 2 && s.proxy.log.filter((l) => l.method === "tasks/get" && l.answeredMs !== undefined).length >= 2,
      "the model told of the background task and two polls",
      90_000,
    );
    const call = s.proxy.log.find((l) => l.method === "tools/call")!;
    expect(JSON.stringify((call.params?._meta as Record<string, unknown>)["io.modelcontextprotocol/clientCapabilities"])).toContain(
      "io.modelcontextprotocol/tasks",
    );
    expect(call.answeredMs).toBeLessThan(1000);
    const handle = (JSON.parse(call.answer!) as { result: { resultType: string; taskId: string; statusMessage: string } }).result;
    expect(handle).toMatchObject({ resultType: "task", statusMessage: "waiting for approval" });
    expect(newText(api.messageRequests[1]!)).toContain(`started server-side task ${handle.taskId}. It was moved to the background`);
    const polls = s.proxy.log.filter((l) => l.method === "tasks/get");
    for (const p of polls) expect(p.mcpName).toBe(handle.taskId);
    expect(polls[0]!.answer).toContain('"status":"working"');
    expect(polls[0]!.answer).toContain('"statusMessage":"waiting for approval"');
    expect(s.ran()).toEqual([]);
    await answerOnPage(s.session, "mcp__ops__deploy", { kind: "approve" });
    await until(() => api.messageRequests.length >= 3, "the task notification turn", 60_000);
    expect(s.ran()).toEqual(["staging"]);
    const notified = newText(api.messageRequests[2]!);
    expect(notified).toMatch(/<task-notification>[\s\S]*<status>completed<\/status>/);
    expect(notified).toContain("deployed to staging");
    expect(s.proxy.log.filter((l) => l.method === "tools/call")).toHaveLength(1);
    expect(s.proxy.log.map((l) => l.method)).not.toContain("tasks/update");
    await terminal[Symbol.asyncDispose]();
    expect(processesWithHome(h.home)).toEqual([]);
  });

  it("Claude Code terminal, CLAUDE_CODE_DISABLE_MCP_TASK_BACKGROUND=1: it polls the working task inside the call, and the inbox approval's result is that call's tool_result", async () => {
    await using h = Hermetic.create();
    const s = await servedGuarded(h);
    await using _serve = s.serve;
    await using _proxy = s.proxy;
    await using api = await FakeAnthropic.start(deployOnce);
    await using terminal = ClaudeTerminal.start(h, api, {
      mcpConfig: s.config,
      allowedTools: ["mcp__ops__deploy"],
      prompt: "deploy staging",
      env: { CLAUDE_CODE_DISABLE_MCP_TASK_BACKGROUND: "1" },
    });
    await until(
      () => s.proxy.log.filter((l) => l.method === "tasks/get" && l.answeredMs !== undefined).length >= 2,
      "two polls answered",
      90_000,
    );
    const call = s.proxy.log.find((l) => l.method === "tools/call")!;
    expect(call.answeredMs).toBeLessThan(1000);
    expect(call.answer).toContain('"resultType":"task"');
    expect(api.messageRequests).toHaveLength(1);
    await answerOnPage(s.session, "mcp__ops__deploy", { kind: "approve" });
    await until(() => api.messageRequests.length >= 2, "the model's second request", 60_000);
    expect(s.ran()).toEqual(["staging"]);
    expect(newText(api.messageRequests[1]!)).toContain("deployed to staging");
    expect(newText(api.messageRequests[1]!)).not.toContain("moved to the background");
    expect(s.proxy.log.map((l) => l.method)).not.toContain("tasks/update");
    await terminal[Symbol.asyncDispose]();
    expect(processesWithHome(h.home)).toEqual([]);
  });

  it("Claude Code -p: no task; the guarded call waits in tools/call and the inbox approval's result is that call's tool_result", async () => {
    await using h = Hermetic.create();
    const s = await servedGuarded(h);
    await using _serve = s.serve;
    await using _proxy = s.proxy;
    await using api = await FakeAnthropic.start(deployOnce);
    const run = new Agent({
      name: "dev",
      cognition: hermeticClaude(h, api, {
        allowedTools: ["mcp__ops__deploy"],
        mcpConfig: [s.config],
        strictMcpConfig: true,
        builtinTools: false,
        timeoutMs: 120_000,
      }),
    }).run("deploy staging", makeTestCtx());
    await until(() => s.proxy.log.some((l) => l.method === "tools/call"), "tools/call", 90_000);
    await answerOnPage(s.session, "mcp__ops__deploy", { kind: "approve" });
    const result = await run;
    expect(result.error).toBeUndefined();
    const call = s.proxy.log.find((l) => l.method === "tools/call")!;
    expect(JSON.stringify(call.params?._meta)).not.toContain("io.modelcontextprotocol/tasks");
    expect(call.answer).not.toContain('"resultType":"task"');
    expect(s.proxy.log.map((l) => l.method)).not.toContain("tasks/get");
    expect(s.ran()).toEqual(["staging"]);
    expect(api.messageRequests).toHaveLength(2);
    expect(newText(api.messageRequests[1]!)).toContain("deployed to staging");
  });

  it("Codex 0.171.0: no task; the guarded call is answered in the call once the inbox approves", async () => {
    await using h = Hermetic.create();
    const s = await servedGuarded(h);
    await using _serve = s.serve;
    await using _proxy = s.proxy;
    await using api = await FakeOpenAI.start([
      { functionCalls: [{ namespace: "mcp__ops", name: "deploy", arguments: { target: "staging" } }] },
      { text: "deployed" },
    ]);
    const mcp = asCodexMcp({
      name: "ops",
      transport: "http",
      url: s.proxy.url,
      authHeaders: s.ops.headers,
      autoApprove: [],
      requiresApproval: ["mcp__ops__deploy"],
      guarded: true,
      mcpNames: { deploy: "mcp__ops__deploy" },
    });
    const run = new Agent({ name: "dev", cognition: hermeticCodex(h, api, { ...mcp, timeoutMs: 120_000 }) }).run(
      "deploy staging",
      makeTestCtx(),
    );
    await until(() => s.proxy.log.some((l) => l.method === "tools/call"), "tools/call", 90_000);
    await answerOnPage(s.session, "mcp__ops__deploy", { kind: "approve" });
    const result = await run;
    expect(result.error).toBeUndefined();
    expect(s.proxy.log[0]!.method).toBe("initialize");
    const call = s.proxy.log.find((l) => l.method === "tools/call")!;
    expect(call.answer).not.toContain('"resultType":"task"');
    expect(s.proxy.log.map((l) => l.method)).not.toContain("tasks/get");
    expect(s.ran()).toEqual(["staging"]);
    expect(api.functionOutputs()[0]!.text).toContain("deployed to staging");
  });
});
