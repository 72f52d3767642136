/**
 * @module test/cli/samples-approvals.test
 * samples/cli-approvals.ts, built and run with node: the real claude binary,
 * a fake Messages API, and the CLI's permission prompt answered by the
 * sample's Asker through ApprovalServer.
 */
import { describe, expect, it } from "vitest";
import { runSample } from "../helpers/run-sample.js";
import { FakeAnthropic } from "./kit/fake-anthropic.js";
import { E2E_TIMEOUT_MS, CLAUDE_BIN, Hermetic } from "./kit/hermetic.js";

describe("CLI samples: approvals", { timeout: E2E_TIMEOUT_MS }, () => {
  it("cli-approvals: the CLI's Write prompt reaches the Asker, which refuses /etc; the refusal reaches the model", async () => {
    await using h = Hermetic.create();
    await using api = await FakeAnthropic.start([
      { toolUses: [{ name: "Write", input: { file_path: "/etc/agentkit-sample.conf", content: "x=1\n" } }] },
      { text: "the write was refused" },
    ]);
    const out = await runSample("cli-approvals", { ...h.claudeEnv(api.url), CLAUDE_BIN, CLAUDE_MODEL: "fake-model" });
    const lines = out.split("\n");
    expect(lines[0]).toBe('decision:    Write allowed=false source=asker asked=true reason="/etc is out of scope"');
    expect(lines[1]).toMatch(/^denials: +\[\{"toolName":"Write"/);
    expect(lines.slice(2)).toEqual(["stop:        complete", "output:      the write was refused", ""]);
    expect(JSON.stringify(api.toolResults())).toContain("/etc is out of scope");
  });
});
