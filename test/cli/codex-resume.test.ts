/**
 * @module test/cli/codex-resume.test
 * A durable run on the real `codex` binary survives its process: the agent's
 * process (a child) is SIGKILLed after Codex's first turn, and
 * `agent.resume` goes on with `codex exec resume <thread-id>` in this process.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/index.js";
import { pgliteInboxStore } from "../../src/askers/index.js";
import { asCodexMcp, CodexCliCognition } from "../../src/cli/index.js";
import { OptionsError } from "../../src/errors/options.error.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { MemoryInboxStore } from "../../src/askers/index.js";
import { agentKilledMidRun } from "./kit/agent-process.js";
import { hermeticCodex } from "./kit/cognitions.js";
import { EngineFixture } from "./kit/engine-fixture.js";
import { FakeOpenAI } from "./kit/fake-openai.js";
import { E2E_TIMEOUT_MS, Hermetic, processesWithHome } from "./kit/hermetic.js";

const checker = { check: (name: string) => `check ${name}: PASSED (from the injected checker)` };

// Two PGlite opens (one in each process) come on top of the two CLI runs: 2x the kit's test timeout.
describe("a durable run on CodexCliCognition, its process killed", { timeout: 2 * E2E_TIMEOUT_MS }, () => {
  it("records Codex's thread id; resume goes on with exec resume: the earlier turns and tool output are sent again, none re-requested, no tool run twice", async () => {
    await using h = Hermetic.create();
    await using engine = await EngineFixture.start(checker);
    let killAgent = (): void => undefined;
    await using api = await FakeOpenAI.start([
      { functionCalls: [{ namespace: "mcp__engine", name: "run_check", arguments: { name: "lint" }, callId: "call_first" }] },
      // Codex's second request: its first turn and the tool output are in its thread; the agent's process dies now.
      () => {
        killAgent();
        return { hang: true };
      },
      { text: "resumed: lint passed" },
    ]);
    const mcp = asCodexMcp({
      name: "engine",
      transport: "http",
      url: engine.url,
      authHeaders: { Authorization: `Bearer ${engine.token}` },
      autoApprove: ["mcp__engine__run_check"],
      mcpNames: { run_check: "mcp__engine__run_check" },
    });
    const options = { ...mcp, resumePrompt: "Go on from where you stopped." };
    const storeDir = join(h.root, "store");
    const runId = "codex-run-1";

    const died = await agentKilledMidRun(
      { cli: "codex", options: hermeticCodex(h, api, options).options, storeDir, runId, task: "check lint" },
      (kill) => (killAgent = kill),
    );
    const threadId = died.events.find((e) => e.event === "cli.init")?.data.threadId;
    expect(threadId).toEqual(expect.any(String));
    // The Codex its dead parent left behind is still waiting on the model.
    expect(processesWithHome(h.home).length).toBeGreaterThan(0);

    const store = await pgliteInboxStore({ dataDir: storeDir });
    try {
      const recorded = await store.loadRun(runId);
      expect(recorded?.head.status).toBe("running");
      // Recorded with the mark its processes carry (AGENTKIT_CLI_SESSION), by which the resume finds the one left running.
      expect(recorded!.steps.map((s) => [s.kind, s.data])).toEqual([
        ["cli_session", { cli: "codex", sessionId: threadId, mark: expect.stringMatching(/^[0-9a-f-]{36}$/) }],
      ]);

      const ctx = makeTestCtx();
      const result = await new Agent({ name: "dev", cognition: hermeticCodex(h, api, options) }).resume(runId, { store, ctx });
      expect(result.error).toBeUndefined();
      expect(result.stopReason).toBe("complete");
      expect(result.output).toBe("resumed: lint passed");
      expect(result.runId).toBe(runId);
      expect(result.details?.threadId).toBe(threadId);
      expect(ctx.eventsNamed("cli.orphan_ended")).toMatchObject([{ data: { cli: "codex", sessionId: threadId } }]);
      expect(processesWithHome(h.home)).toEqual([]);

      // The tool ran once, before the crash; the resumed request carries the conversation so far and the resume prompt.
      expect(engine.calls).toEqual([{ name: "run_check", arguments: { name: "lint" } }]);
      const requests = api.responseRequests;
      expect(requests).toHaveLength(3);
      const resumed = requests[2]!.input;
      expect(resumed).toContainEqual(
        expect.objectContaining({ type: "message", role: "user", content: [{ type: "input_text", text: "check lint" }] }),
      );
      expect(resumed).toContainEqual(expect.objectContaining({ type: "function_call", call_id: "call_first", name: "run_check" }));
      const output = resumed.find((i) => i.type === "function_call_output" && i.call_id === "call_first");
      expect(JSON.stringify(output?.output)).toContain("check lint: PASSED (from the injected checker)");
      expect(resumed.at(-1)).toMatchObject({
        type: "message",
        role: "user",
        content: [{ type: "input_text", text: "Go on from where you stopped." }],
      });
      // The finished first turn was requested once: only one request has no function call in it.
      expect(requests.filter((r) => !r.input.some((i) => i.type === "function_call"))).toHaveLength(1);
      expect(await store.runs()).toMatchObject([{ runId, status: "finished" }]);
    } finally {
      await store.stop();
    }
  });

  it("refuses a durable run on an ephemeral Codex, naming why, before anything runs", async () => {
    const agent = new Agent({
      name: "dev",
      cognition: new CodexCliCognition({ model: "m", binary: "/nonexistent/codex", ephemeral: true }),
    });
    const err = await agent.run("x", { store: new MemoryInboxStore() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OptionsError);
    expect((err as Error).message).toBe(
      "CodexCliCognition: a durable run (agent.run with a store) needs Codex's session to resume from, and ephemeral: true keeps none; drop 'ephemeral' (a durable run keeps the session) or run without a store",
    );
  });
});
