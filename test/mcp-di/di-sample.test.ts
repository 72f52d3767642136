/** @module test/mcp-di/di-sample.test */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const SAMPLE = "build/samples/di-app.js";

describe("samples/di-app.ts (built)", () => {
  it("boots the module, injects a real stdio server's tools into an agent, and the guard refuses prod", async () => {
    expect(existsSync(SAMPLE), `${SAMPLE} missing: run npm run build`).toBe(true);
    const { stdout } = await run(process.execPath, [SAMPLE], { timeout: 60_000 });
    expect(stdout.split("\n").filter(Boolean)).toEqual([
      // The module's read_result too (result budgets are on by default); console.log wraps the longer array.
      "served tools:      [",
      "  'mcp__engine__deploy',",
      "  'mcp__engine__read_result',",
      "  'mcp__engine__run_check'",
      "]",
      "requires approval: [ 'mcp__engine__deploy' ]",
      'cliOptions keys:   ["allowedTools","mcpConfig","permissionPromptTool","settingSources","strictMcpConfig"]',
      '  agent: ops_queue_depth({"queue":"ingest"}) -> ingest: 42 messages waiting',
      '  agent: run_check({"name":"lint"}) -> lint:lax:ok',
      "  agent output: Queue is deep but lint passes. | stopReason: complete",
      "  deploy staging isError=false deployed to staging (checks so far: 1, caller: engine)",
      "  deploy prod    isError=true  tool 'deploy' was not run: rejected by ops-lead: no prod deploys on a Friday",
      "calls seen: 2",
    ]);
  });
});
