/**
 * @module test/reliability/human-paced.test
 * A person takes seven minutes, against the real CLIs at their default
 * settings: an approval prompt answered after 7 minutes runs the tool, a
 * served tool that takes 7 minutes returns its result, for Claude Code and
 * for Codex (a served tool, and a guarded one whose person answers late). The
 * same runs with heartbeats off show each binary's own limit, measured.
 *
 * These runs mostly wait, so they run at the same time as each other and as
 * the rest of the reliability suite (their own project in
 * vitest.reliability.config.ts).
 */
import "reflect-metadata";
import { describe, expect, it } from "vitest";
import { makeTestCtx } from "../../src/testing/index.js";
import { ApprovalServer, approvalGuard, serveRegistry } from "../../src/mcp/index.js";
import { claudeCalls, codexCalls, deployTool, slowBuild, slowPerson, type PacedRun } from "../cli/kit/human-paced.js";
import { Hermetic } from "../cli/kit/hermetic.js";
import { report } from "./helpers.js";

const HOLD_MS = 7 * 60_000;
const RUN_MS = HOLD_MS + 120_000;

const HEARTBEATS = [
  { heartbeatMs: undefined, runs: true },
  { heartbeatMs: 0, runs: false },
];

function numbers(run: PacedRun, heartbeatMs: number | undefined): Record<string, string | number> {
  return {
    heartbeats: heartbeatMs === 0 ? "off" : "default (30 s)",
    "run s": Math.round(run.ms / 1000),
    "tool result": run.text.slice(0, 240),
  };
}

const onlyHeartbeat = (heartbeatMs: number | undefined) => (heartbeatMs === undefined ? {} : { heartbeatMs });

describe.concurrent("a person takes 7 minutes: the real CLIs at their default settings", { timeout: RUN_MS + 60_000 }, () => {
  it.for(HEARTBEATS)(
    "Claude Code: an approval answered after 7 min runs the tool (heartbeatMs $heartbeatMs)",
    async ({ heartbeatMs, runs }, { task }) => {
      await using h = Hermetic.create();
      const ctx = makeTestCtx();
      const seen: string[] = [];
      await using spec = await serveRegistry([deployTool(seen)], { name: "engine", ctx });
      await spec.start();
      const person = slowPerson(HOLD_MS);
      await using approvals = new ApprovalServer({ asker: person, ctx, ...onlyHeartbeat(heartbeatMs) });
      await approvals.start();
      const run = await claudeCalls(h, ctx, spec, "deploy", { env: "staging" }, { approvals, timeoutMs: RUN_MS });
      report(task, numbers(run, heartbeatMs));
      expect(person.asked).toBe(1);
      if (runs) {
        expect(seen).toEqual(["deploy:staging"]);
        expect(run.result).toMatchObject({ content: [{ type: "text", text: "deployed to staging" }] });
      } else {
        expect(seen).toEqual([]);
        expect(run.result).toMatchObject({ is_error: true });
      }
    },
  );

  it.for(HEARTBEATS)(
    "Claude Code: a served tool that takes 7 min returns its result (heartbeatMs $heartbeatMs)",
    async ({ heartbeatMs, runs }, { task }) => {
      await using h = Hermetic.create();
      const ctx = makeTestCtx();
      await using spec = await serveRegistry([slowBuild([], HOLD_MS)], { name: "engine", ctx, ...onlyHeartbeat(heartbeatMs) });
      await spec.start();
      const run = await claudeCalls(h, ctx, spec, "build", {}, { timeoutMs: RUN_MS });
      report(task, numbers(run, heartbeatMs));
      if (runs) expect(run.result).toMatchObject({ content: [{ type: "text", text: "build finished" }] });
      else expect(run.result).toMatchObject({ is_error: true });
    },
  );

  it.for(HEARTBEATS)(
    "Codex: a served tool that takes 7 min returns its result (heartbeatMs $heartbeatMs)",
    async ({ heartbeatMs, runs }, { task }) => {
      await using h = Hermetic.create();
      const ctx = makeTestCtx();
      await using spec = await serveRegistry([slowBuild([], HOLD_MS)], { name: "engine", ctx, ...onlyHeartbeat(heartbeatMs) });
      await spec.start();
      const run = await codexCalls(h, ctx, spec, "build", {}, { timeoutMs: RUN_MS });
      report(task, numbers(run, heartbeatMs));
      if (runs) expect(run.text).toContain("build finished");
      else expect(run.text).toMatch(/timed out awaiting tools\/call after \d+s/);
    },
  );

  it.for(HEARTBEATS)(
    "Codex: a guarded tool whose person answers after 7 min runs (heartbeatMs $heartbeatMs)",
    async ({ heartbeatMs, runs }, { task }) => {
      await using h = Hermetic.create();
      const ctx = makeTestCtx();
      const seen: string[] = [];
      const person = slowPerson(HOLD_MS);
      await using spec = await serveRegistry([deployTool(seen)], {
        name: "engine",
        ctx,
        guard: approvalGuard({ asker: person }),
        ...onlyHeartbeat(heartbeatMs),
      });
      await spec.start();
      const run = await codexCalls(h, ctx, spec, "deploy", { env: "staging" }, { timeoutMs: RUN_MS });
      report(task, numbers(run, heartbeatMs));
      expect(person.asked).toBe(1);
      if (runs) {
        expect(run.text).toContain("deployed to staging");
        expect(seen).toEqual(["deploy:staging"]);
      } else expect(run.text).toMatch(/timed out awaiting tools\/call after \d+s/);
    },
  );
});
