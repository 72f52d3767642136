/**
 * @module test/agentkit-cli/call-progress.test
 * `agentkit call` on a long tool call with progress (server-everything's
 * `trigger-long-running-operation`, 3 steps over 3 s): on a real terminal
 * (tmux) the spinner line becomes a progress bar that fills step by step and
 * is erased before the result; off a terminal nothing extra is printed.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { TmuxTerminal } from "../askers/tmux-terminal.js";
import { AGENTKIT, EVERYTHING, requireBuild, runAgentkit } from "./agentkit-process.js";

beforeAll(requireBuild);

const ARGS = ["call", "trigger-long-running-operation", "--args", '{"duration": 3, "steps": 3}', "--", ...EVERYTHING];

describe("agentkit call with a server that reports progress", () => {
  it("on a terminal: a bar that fills (1/3, then 2/3), erased before the result", async () => {
    await using term = TmuxTerminal.start([process.execPath, AGENTKIT, ...ARGS], { cols: 120, rows: 20 });
    const first = await term.until(/\[█+░+\] 1\/3/, 15_000);
    expect(first).toMatch(/calling trigger-long-running-operation… \[█{7}░{13}\] 1\/3/);
    const second = await term.until(/\[█+░+\] 2\/3/, 10_000);
    expect(second).toMatch(/calling trigger-long-running-operation… \[█{13}░{7}\] 2\/3/);
    const done = await term.until(/EXITED \d+/, 15_000);
    expect(done).toMatch(/EXITED 0/);
    expect(done).toContain("Long running operation completed");
    // The bar's line was erased: what is left on the screen is the result.
    expect(term.visibleScreen()).not.toMatch(/\[█+░*\]/);
  }, 45_000);

  it("off a terminal: the result only, nothing on stderr", async () => {
    const r = await runAgentkit(ARGS, { timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^Long running operation completed\. Duration: 3 seconds, Steps: 3\.\n$/);
  }, 45_000);
});
