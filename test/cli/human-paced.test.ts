/**
 * @module test/cli/human-paced.test
 * A person takes their time, against the real CLIs: a served call and an
 * approval prompt that stay silent longer than the binary's limit still end
 * in the tool running; with heartbeats off the same run fails. The binaries'
 * own limits are lowered through their documented settings so each case
 * takes well under a minute (the full-length runs at default settings are in
 * test/reliability/human-paced.test.ts).
 *
 * - Claude Code: `CLAUDE_CODE_MCP_TOOL_IDLE_TIMEOUT` (ms), checked on a 30 s
 *   watchdog tick and reset by each progress notification.
 * - Codex: `mcp_servers.<name>.tool_timeout_sec`, a hard limit that progress
 *   does not extend: `codexOptions()` carries the value that lets the call run.
 */
import "reflect-metadata";
import { describe, expect, it, vi } from "vitest";
import { makeTestCtx } from "../../src/testing/index.js";
import { ApprovalServer, approvalGuard, serveRegistry } from "../../src/mcp/index.js";
import { claudeCalls, codexCalls, deployTool, slowBuild, slowPerson } from "./kit/human-paced.js";
import { Hermetic } from "./kit/hermetic.js";

/** Claude checks its idle limit on a 30 s watchdog tick: a call silent past the limit dies at the first tick after 30 s. */
const CLAUDE_IDLE = { CLAUDE_CODE_MCP_TOOL_IDLE_TIMEOUT: "5000" };
/** Longer than Claude's first watchdog tick, so the idle limit has been checked while the call waited. */
const CLAUDE_HOLD_MS = 38_000;
/** Codex's per-call limit as a user might lower it in their own config. */
const CODEX_LIMIT = { "mcp_servers.engine.tool_timeout_sec": 5 };
/** Three times that limit. */
const CODEX_HOLD_MS = 15_000;
const RUN_MS = 100_000;

const HEARTBEATS = [
  { heartbeatMs: 1_000, runs: true },
  { heartbeatMs: 0, runs: false },
];

describe.concurrent(
  "Claude CLI: a silent call outlasts the idle limit only with heartbeats (real binary)",
  { timeout: RUN_MS + 30_000 },
  () => {
    it.each(HEARTBEATS)("a served tool that takes 38 s, idle limit 5 s, heartbeatMs $heartbeatMs", async ({ heartbeatMs, runs }) => {
      await using h = Hermetic.create();
      const ctx = makeTestCtx();
      const seen: string[] = [];
      await using spec = await serveRegistry([slowBuild(seen, CLAUDE_HOLD_MS)], { name: "engine", ctx, heartbeatMs });
      await spec.start();
      const run = await claudeCalls(h, ctx, spec, "build", {}, { env: CLAUDE_IDLE, timeoutMs: RUN_MS });
      if (runs) expect(run.result).toMatchObject({ content: [{ type: "text", text: "build finished" }] });
      else {
        expect(run.result).toMatchObject({ is_error: true });
        expect(run.text).toContain("sent no response or progress");
      }
    });

    it.each(HEARTBEATS)("an approval answered after 38 s, idle limit 5 s, heartbeatMs $heartbeatMs", async ({ heartbeatMs, runs }) => {
      await using h = Hermetic.create();
      const ctx = makeTestCtx();
      const seen: string[] = [];
      await using spec = await serveRegistry([deployTool(seen)], { name: "engine", ctx });
      await spec.start();
      const person = slowPerson(CLAUDE_HOLD_MS);
      await using approvals = new ApprovalServer({ asker: person, ctx, heartbeatMs });
      await approvals.start();
      const run = await claudeCalls(h, ctx, spec, "deploy", { env: "staging" }, { approvals, env: CLAUDE_IDLE, timeoutMs: RUN_MS });
      expect(person.asked).toBe(1);
      if (runs) {
        expect(seen).toEqual(["deploy:staging"]);
        expect(approvals.decisions).toMatchObject([
          { tool: "mcp__engine__deploy", allowed: true, source: "asker", actor: "slow reviewer" },
        ]);
        expect(run.result).toMatchObject({ content: [{ type: "text", text: "deployed to staging" }] });
      } else {
        expect(seen).toEqual([]);
        expect(run.result).toMatchObject({ is_error: true });
        // The CLI gave up: the person's question was withdrawn, and the record says who stopped waiting.
        expect(person.gaveUp).toHaveLength(1);
        expect(approvals.decisions).toMatchObject([{ tool: "mcp__engine__deploy", allowed: false, source: "timeout", asked: true }]);
        expect(approvals.decisions[0]!.reason).toMatch(
          /^approval for 'mcp__engine__deploy' timed out: claude-code stopped waiting: (it cancelled the call|its connection closed)/,
        );
      }
    });
  },
);

/**
 * Codex 0.171 ends a `tools/call` after `tool_timeout_sec` whatever the server
 * sends meanwhile (progress does not extend it), so the spec tells it how long
 * to wait: `codexOptions()` carries `tool_timeout_sec`, and wins over a lower
 * value in the user's base config; with heartbeats off it leaves the user's
 * (here 5 s) in force.
 */
describe.concurrent(
  "Codex CLI: a call longer than its tool_timeout_sec runs only when codexOptions() says how long to wait (real binary)",
  { timeout: RUN_MS },
  () => {
    const CASES = [
      { heartbeatMs: undefined, runs: true },
      { heartbeatMs: 0, runs: false },
    ];
    const limitHit = `timed out awaiting tools/call after ${CODEX_LIMIT["mcp_servers.engine.tool_timeout_sec"]}s`;

    it.each(CASES)("a served tool that takes 15 s, limit 5 s, heartbeatMs $heartbeatMs", async ({ heartbeatMs, runs }) => {
      await using h = Hermetic.create();
      const ctx = makeTestCtx();
      await using spec = await serveRegistry([slowBuild([], CODEX_HOLD_MS)], {
        name: "engine",
        ctx,
        ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
      });
      await spec.start();
      expect(spec.toolTimeoutSec).toBe(runs ? 31_536_000 : null);
      const run = await codexCalls(h, ctx, spec, "build", {}, { baseConfig: CODEX_LIMIT, timeoutMs: RUN_MS - 20_000 });
      expect(run.text).toContain(runs ? "build finished" : limitHit);
    });

    it.each(CASES)("a guarded tool whose person answers after 15 s, limit 5 s, heartbeatMs $heartbeatMs", async ({ heartbeatMs, runs }) => {
      await using h = Hermetic.create();
      const ctx = makeTestCtx();
      const seen: string[] = [];
      const person = slowPerson(CODEX_HOLD_MS);
      const guard = approvalGuard({ asker: person });
      await using spec = await serveRegistry([deployTool(seen)], {
        name: "engine",
        ctx,
        guard,
        ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
      });
      await spec.start();
      const run = await codexCalls(h, ctx, spec, "deploy", { env: "staging" }, { baseConfig: CODEX_LIMIT, timeoutMs: RUN_MS - 20_000 });
      expect(person.asked).toBe(1);
      expect(run.text).toContain(runs ? "deployed to staging" : limitHit);
      if (runs) expect(seen).toEqual(["deploy:staging"]);
      else {
        // Codex gave up at its limit: the question was withdrawn then, and the record says who stopped waiting.
        await vi.waitFor(() => expect(guard.decisions).toHaveLength(1), { timeout: 5_000 });
        expect(person.gaveUp).toHaveLength(1);
        expect(person.gaveUp[0]).toBeLessThan(CODEX_HOLD_MS);
        expect(guard.decisions[0]).toMatchObject({ allowed: false, source: "timeout", asked: true });
        expect(guard.decisions[0]!.reason).toMatch(/timed out: \S+ stopped waiting: /);
      }
    });
  },
);
