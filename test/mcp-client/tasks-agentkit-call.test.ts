/**
 * @module test/mcp-client/tasks-agentkit-call.test
 * `agentkit call` against a server that answers the call with a task (the
 * loopback fixture of task-server.ts): the task is polled to its result; on a
 * real terminal (tmux) the spinner line names the task and its status
 * message as it changes, and is erased before the result; off a terminal
 * only the result is printed.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TmuxTerminal } from "../askers/tmux-terminal.js";
import { AGENTKIT, requireBuild, runAgentkit } from "../agentkit-cli/agentkit-process.js";
import { startTaskServer, type TaskServer } from "./task-server.js";

beforeAll(requireBuild);

let srv: TaskServer;
beforeEach(async () => {
  // Slow enough for a person (and tmux) to read each step.
  srv = await startTaskServer({ pollIntervalMs: 400 });
});
afterEach(async () => {
  await srv.close();
});

const call = (): string[] => ["call", "slow", "--args", '{"x": "from the task", "steps": 3}', "--url", srv.url];

describe("agentkit call on a tool its server answers with a task", () => {
  it("on a terminal: a progress line naming the task and its status message, erased before the result", async () => {
    await using term = TmuxTerminal.start([process.execPath, AGENTKIT, ...call()], { cols: 120, rows: 20 });
    const first = await term.until(/task [0-9a-f]{8} working: step 1/, 20_000);
    const [task] = [...srv.tasks.values()];
    expect(first).toContain(`calling slow… task ${task!.taskId.slice(0, 8)} working: step 1`);
    await term.until(/working: step 2/, 10_000);
    const done = await term.until(/EXITED \d+/, 15_000);
    expect(done).toMatch(/EXITED 0/);
    expect(done).toContain("done: from the task");
    expect(term.visibleScreen()).not.toMatch(/working: step/);
    expect(srv.requests("tasks/get").every((g) => g.mcpName === task!.taskId)).toBe(true);
  }, 60_000);

  it("off a terminal: the result only, nothing on stderr", async () => {
    const r = await runAgentkit(call(), { timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("done: from the task\n");
    expect(srv.requests("tasks/get").length).toBe(3);
  }, 45_000);
});
