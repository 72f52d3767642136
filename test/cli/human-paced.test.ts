/**
 * @module test/cli/human-paced.test
 * A person takes their time, against the real CLIs: a served call and an
 * approval prompt that stay silent longer than the binary's idle limit still
 * end in the tool running, because the server sends progress heartbeats; with
 * heartbeats off the same run fails. The binaries' own limits are lowered
 * through their documented settings so each case takes well under a minute
 * (the full-length runs at default settings are in test/reliability/).
 */
import "reflect-metadata";
import { describe, expect, it } from "vitest";
import { Agent, tool, type Asker, type Decision } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { ApprovalServer, approvalGuard, serveRegistry, type McpServerSpec } from "../../src/mcp/index.js";
import { mergeCliOptions, type ClaudeCliOptions } from "../../src/cli/index.js";
import { hermeticClaude, hermeticCodex } from "./kit/cognitions.js";
import { FakeAnthropic } from "./kit/fake-anthropic.js";
import { FakeOpenAI } from "./kit/fake-openai.js";
import { Hermetic } from "./kit/hermetic.js";

/** Claude checks its idle limit on a 30 s watchdog tick: a call silent past the limit dies at the first tick after 30 s. */
const CLAUDE_IDLE_MS = 5_000;
/** Longer than Claude's first watchdog tick, so the idle limit has been checked while the call waited. */
const HOLD_MS = 38_000;
const RUN_MS = 100_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Codex's per-call limit as a user might lower it in their own config (`tool_timeout_sec`). */
const CODEX_LIMIT_SEC = 5;
/** Three times that limit. */
const CODEX_HOLD_MS = 15_000;

/** A read-only tool that takes `holdMs` (a long build, say) and then answers. */
function slowBuild(seen: string[], holdMs = HOLD_MS) {
  return tool({ name: "build", description: "Build the project.", input: { type: "object", properties: {}, additionalProperties: false }, sideEffecting: false }, async () => {
    await sleep(holdMs);
    seen.push("build");
    return "build finished";
  });
}

/** A tool that needs a person's approval and records that it ran. */
function deployTool(seen: string[]) {
  return tool({ name: "deploy", description: "Deploy.", input: { type: "object", properties: { env: { type: "string" } }, required: ["env"], additionalProperties: false }, requiresApproval: true }, ({ env }: { env: string }) => {
    seen.push(`deploy:${env}`);
    return `deployed to ${env}`;
  });
}

/** A person who answers `approve` after `holdMs`. */
function slowPerson(holdMs = HOLD_MS): Asker & { asked: number } {
  const a = {
    asked: 0,
    async ask(): Promise<Decision> {
      a.asked++;
      await sleep(holdMs);
      return { kind: "approve", actor: "slow reviewer" };
    },
  };
  return a;
}

function claudeIdleEnv(): Record<string, string> {
  return { CLAUDE_CODE_MCP_TOOL_IDLE_TIMEOUT: String(CLAUDE_IDLE_MS) };
}

describe.concurrent("Claude CLI: a silent call outlasts the idle limit only with heartbeats (real binary)", { timeout: RUN_MS + 30_000 }, () => {
  it.each([
    { heartbeatMs: 1_000, runs: true },
    { heartbeatMs: 0, runs: false },
  ])("a served tool that takes 38 s, idle limit 5 s, heartbeatMs $heartbeatMs", async ({ heartbeatMs, runs }) => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    const seen: string[] = [];
    await using spec = await serveRegistry([slowBuild(seen)], { name: "engine", ctx, heartbeatMs });
    await spec.start();
    await using api = await FakeAnthropic.start([{ toolUses: [{ name: "mcp__engine__build", input: {} }] }, { text: "done" }]);
    const cognition = hermeticClaude(h, api, { allowedTools: spec.autoApprove, ...spec.cliOptions({ builtinTools: false }), env: claudeIdleEnv(), timeoutMs: RUN_MS });
    await new Agent({ name: "dev", cognition }).run("build it", ctx);
    const [result] = api.toolResults();
    if (runs) {
      expect(result).toMatchObject({ content: [{ type: "text", text: "build finished" }] });
    } else {
      expect(result).toMatchObject({ is_error: true });
      expect(JSON.stringify(result)).toContain("sent no response or progress");
    }
  });

  it.each([
    { heartbeatMs: 1_000, runs: true },
    { heartbeatMs: 0, runs: false },
  ])("an approval answered after 38 s, idle limit 5 s, heartbeatMs $heartbeatMs", async ({ heartbeatMs, runs }) => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    const seen: string[] = [];
    const deploy = deployTool(seen);
    await using spec = await serveRegistry([deploy], { name: "engine", ctx });
    await spec.start();
    const person = slowPerson();
    await using approvals = new ApprovalServer({ asker: person, ctx, heartbeatMs });
    await approvals.start();
    await using api = await FakeAnthropic.start([{ toolUses: [{ name: "mcp__engine__deploy", input: { env: "staging" } }] }, { text: "done" }]);
    const options = mergeCliOptions<Partial<ClaudeCliOptions>>(spec.cliOptions({ builtinTools: false }), approvals.cliOptions());
    const cognition = hermeticClaude(h, api, { ...options, env: claudeIdleEnv(), timeoutMs: RUN_MS });
    await new Agent({ name: "dev", cognition }).run("deploy staging", ctx);
    expect(person.asked).toBe(1);
    const [result] = api.toolResults();
    if (runs) {
      expect(seen).toEqual(["deploy:staging"]);
      expect(approvals.decisions).toMatchObject([{ tool: "mcp__engine__deploy", allowed: true, source: "asker", actor: "slow reviewer" }]);
      expect(result).toMatchObject({ content: [{ type: "text", text: "deployed to staging" }] });
    } else {
      expect(seen).toEqual([]);
      expect(result).toMatchObject({ is_error: true });
    }
  });
});

/**
 * Codex 0.171 ends a `tools/call` after `tool_timeout_sec` whatever the server
 * sends meanwhile (progress does not extend it), so the spec tells it how long
 * to wait: `codexOptions()` carries `tool_timeout_sec`, and wins over a lower
 * value in the user's base config; with heartbeats off it leaves the user's
 * (here 5 s) in force.
 */
describe.concurrent("Codex CLI: a call longer than its tool_timeout_sec runs only when codexOptions() says how long to wait (real binary)", { timeout: RUN_MS }, () => {
  function codexRun(spec: McpServerSpec, h: Hermetic, api: FakeOpenAI) {
    const { config, env } = spec.codexOptions();
    return hermeticCodex(h, api, { config: { "mcp_servers.engine.tool_timeout_sec": CODEX_LIMIT_SEC, ...config }, env, timeoutMs: RUN_MS - 20_000 });
  }

  it.each([
    { heartbeatMs: undefined, runs: true },
    { heartbeatMs: 0, runs: false },
  ])("a served tool that takes 15 s, limit 5 s, heartbeatMs $heartbeatMs", async ({ heartbeatMs, runs }) => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    const seen: string[] = [];
    await using spec = await serveRegistry([slowBuild(seen, CODEX_HOLD_MS)], { name: "engine", ctx, ...(heartbeatMs === undefined ? {} : { heartbeatMs }) });
    await spec.start();
    expect(spec.toolTimeoutSec).toBe(runs ? 31_536_000 : null);
    await using api = await FakeOpenAI.start([{ functionCalls: [{ namespace: "mcp__engine", name: "build", arguments: {} }] }, { text: "done" }]);
    await new Agent({ name: "dev", cognition: codexRun(spec, h, api) }).run("build it", ctx);
    const text = api.functionOutputs().map((o) => o.text).join("\n");
    if (runs) expect(text).toContain("build finished");
    else expect(text).toContain(`timed out awaiting tools/call after ${CODEX_LIMIT_SEC}s`);
  });

  it.each([
    { heartbeatMs: undefined, runs: true },
    { heartbeatMs: 0, runs: false },
  ])("a guarded tool whose person answers after 15 s, limit 5 s, heartbeatMs $heartbeatMs", async ({ heartbeatMs, runs }) => {
    await using h = Hermetic.create();
    const ctx = makeTestCtx();
    const seen: string[] = [];
    const deploy = deployTool(seen);
    const person = slowPerson(CODEX_HOLD_MS);
    await using spec = await serveRegistry([deploy], { name: "engine", ctx, guard: approvalGuard({ asker: person }), ...(heartbeatMs === undefined ? {} : { heartbeatMs }) });
    await spec.start();
    await using api = await FakeOpenAI.start([{ functionCalls: [{ namespace: "mcp__engine", name: "deploy", arguments: { env: "staging" } }] }, { text: "done" }]);
    await new Agent({ name: "dev", cognition: codexRun(spec, h, api) }).run("deploy staging", ctx);
    expect(person.asked).toBe(1);
    const text = api.functionOutputs().map((o) => o.text).join("\n");
    if (runs) {
      expect(text).toContain("deployed to staging");
      expect(seen).toEqual(["deploy:staging"]);
    } else {
      expect(text).toContain(`timed out awaiting tools/call after ${CODEX_LIMIT_SEC}s`);
    }
  });
});
