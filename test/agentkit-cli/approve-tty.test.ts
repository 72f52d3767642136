/**
 * @module test/agentkit-cli/approve-tty.test
 * `agentkit approve --tty -- claude -p ...` in a real pseudo-terminal (tmux):
 * the real claude binary's permission prompt is shown on the terminal by
 * TerminalAsker and approved with one key; the tool body runs and claude's
 * exit code is agentkit's. Needs `npm run build`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { TmuxTerminal } from "../askers/tmux-terminal.js";
import { EngineFixture } from "../cli/kit/engine-fixture.js";
import { FakeAnthropic } from "../cli/kit/fake-anthropic.js";
import { CLAUDE_BIN, E2E_TIMEOUT_MS, Hermetic } from "../cli/kit/hermetic.js";
import { AGENTKIT, requireBuild } from "./agentkit-process.js";

it(
  "the permission prompt of a real claude run is answered on the terminal; approve runs the tool",
  async () => {
    requireBuild();
    await using h = Hermetic.create();
    await using engine = await EngineFixture.start({ check: (n) => `check ${n}: PASSED` });
    const engineConfig = join(h.root, "engine.json");
    writeFileSync(engineConfig, engine.mcpConfig(), { mode: 0o600 });
    await using api = await FakeAnthropic.start([
      { toolUses: [{ name: "mcp__engine__run_check", input: { name: "lint" } }] },
      { text: "all checks passed" },
    ]);
    const argv = [
      process.execPath,
      AGENTKIT,
      "approve",
      "--tty",
      "--timeout-ms",
      "60000",
      "--",
      CLAUDE_BIN,
      "-p",
      "check lint",
      "--mcp-config",
      engineConfig,
      "--tools",
      "",
    ];
    await using term = TmuxTerminal.start(argv, { env: { ...h.claudeEnv(api.url), VISUAL: "", EDITOR: "" } });
    const s = await term.until(/\[m\] modify/, 20_000);
    expect(s).toContain("Approve tool call: mcp__engine__run_check");
    expect(s).toContain("from approval_server");
    term.keys("a");
    const done = await term.until(/EXITED \d+/, 30_000);
    expect(done).toContain("all checks passed");
    expect(done).toMatch(/claude exited 0; 1 permission prompt\(s\) decided/);
    expect(done).toContain("EXITED 0");
    expect(engine.calls).toEqual([{ name: "run_check", arguments: { name: "lint" } }]);
  },
  E2E_TIMEOUT_MS,
);
