/**
 * @module test/cli/claude-resume.test
 * A durable run on the real `claude` binary survives its process: the agent's
 * process (a child) is SIGKILLed after the CLI's first turn, and
 * `agent.resume` goes on with `--resume <session-id>` in this process.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent, RunResumeError } from "../../src/index.js";
import { pgliteInboxStore } from "../../src/askers/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { agentKilledMidRun } from "./kit/agent-process.js";
import { hermeticClaude } from "./kit/cognitions.js";
import { EngineFixture } from "./kit/engine-fixture.js";
import { FakeAnthropic } from "./kit/fake-anthropic.js";
import { E2E_TIMEOUT_MS, Hermetic, processesWithHome } from "./kit/hermetic.js";

const checker = { check: (name: string) => `check ${name}: PASSED (from the injected checker)` };

// Two PGlite opens (one in each process) come on top of the two CLI runs: 2x the kit's test timeout.
describe("a durable run on ClaudeCliCognition, its process killed", { timeout: 2 * E2E_TIMEOUT_MS }, () => {
  it("records the CLI's session before it starts; resume goes on with --resume: the earlier turns are sent again, none re-requested, no tool run twice", async () => {
    await using h = Hermetic.create();
    await using engine = await EngineFixture.start(checker);
    let killAgent = (): void => undefined;
    await using api = await FakeAnthropic.start([
      { toolUses: [{ id: "toolu_first", name: "mcp__engine__run_check", input: { name: "lint" } }] },
      // The CLI's second request: its first turn and the tool result are in its session file; the agent's process dies now.
      () => {
        killAgent();
        return { hang: true };
      },
      { text: "resumed: lint passed" },
    ]);
    const options = {
      mcpConfig: [engine.mcpConfig()],
      allowedTools: ["mcp__engine__run_check"],
      builtinTools: false as const,
      resumePrompt: "Go on from where you stopped.",
    };
    const storeDir = join(h.root, "store");
    const runId = "claude-run-1";

    const died = await agentKilledMidRun(
      { cli: "claude", options: hermeticClaude(h, api, options).options, storeDir, runId, task: "check lint" },
      (kill) => (killAgent = kill),
    );
    const init = died.events.find((e) => e.event === "cli.init");
    // The CLI its dead parent left behind is still waiting on the model.
    expect(processesWithHome(h.home).length).toBeGreaterThan(0);

    const store = await pgliteInboxStore({ dataDir: storeDir });
    try {
      const recorded = await store.loadRun(runId);
      expect(recorded?.head.status).toBe("running");
      const session = recorded!.steps[0]!;
      expect(session.kind).toBe("cli_session");
      const sessionId = session.data.sessionId as string;
      expect(session.data).toEqual({ cli: "claude", sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      expect(init?.data.sessionId).toBe(sessionId);
      expect(existsSync(join(h.home, ".claude", "projects", h.cwd.replace(/[^A-Za-z0-9]/g, "-"), `${sessionId}.jsonl`))).toBe(true);

      // Another model is another agent: refused, nothing run.
      const changed = new Agent({ name: "dev", cognition: hermeticClaude(h, api, { ...options, model: "other-model" }) });
      const refused = await changed.resume(runId, { store }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RunResumeError);
      expect((refused as Error).message).toContain(
        `cognition: {"cli":"claude","model":"fake-model"} -> {"cli":"claude","model":"other-model"}`,
      );
      expect(api.messageRequests).toHaveLength(2);

      const ctx = makeTestCtx();
      const result = await new Agent({ name: "dev", cognition: hermeticClaude(h, api, options) }).resume(runId, { store, ctx });
      expect(result.error).toBeUndefined();
      expect(result.stopReason).toBe("complete");
      expect(result.output).toBe("resumed: lint passed");
      expect(result.runId).toBe(runId);
      expect(result.details?.sessionId).toBe(sessionId);
      expect(ctx.eventsNamed("cli.orphan_ended")).toMatchObject([{ data: { cli: "claude", sessionId } }]);
      expect(processesWithHome(h.home)).toEqual([]);

      // The tool ran once, before the crash; the resumed request carries the conversation so far and the resume prompt.
      expect(engine.calls).toEqual([{ name: "run_check", arguments: { name: "lint" } }]);
      const requests = api.messageRequests;
      expect(requests).toHaveLength(3);
      const resumed = requests[2]!.messages;
      const blocks = resumed.flatMap((m) =>
        Array.isArray(m.content) ? m.content.map((b) => ({ role: m.role, ...b })) : [{ role: m.role, type: "text", text: m.content }],
      );
      expect(blocks).toContainEqual(expect.objectContaining({ role: "user", type: "text", text: "check lint" }));
      expect(blocks).toContainEqual(
        expect.objectContaining({ role: "assistant", type: "tool_use", id: "toolu_first", name: "mcp__engine__run_check" }),
      );
      expect(blocks).toContainEqual(
        expect.objectContaining({
          role: "user",
          type: "tool_result",
          tool_use_id: "toolu_first",
          content: [{ type: "text", text: "check lint: PASSED (from the injected checker)" }],
        }),
      );
      expect(blocks.at(-1)).toMatchObject({ role: "user", type: "text", text: "Go on from where you stopped." });
      // The finished first turn was requested once: only one request has no assistant turn in it.
      expect(requests.filter((r) => !r.messages.some((m) => m.role === "assistant"))).toHaveLength(1);
      expect(await store.runs()).toMatchObject([{ runId, status: "finished" }]);
    } finally {
      await store.stop();
    }
  });
});
