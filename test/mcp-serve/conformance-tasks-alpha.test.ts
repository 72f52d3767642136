/**
 * @module test/mcp-serve/conformance-tasks-alpha.test
 * The ten `tasks-*` server scenarios of the MCP conformance suite
 * 0.2.0-alpha.12 (the Tasks extension, SEP-2663; `requirements/2026-07-28.yaml`
 * lists them `not_scored`, "pending against the reference fixture"), each
 * run as its own subprocess (`node --import <globSync hook> <bin> server
 * --url ... --scenario <name> -o <dir>`, never npx) against a server serving
 * the fixtures the scenarios name (tasks-conformance-tools.ts). Each check
 * the suite wrote to its `checks.json` is read back: no FAILURE, no WARNING,
 * at least one SUCCESS — except where the scenario itself cannot fail, which
 * is shown below with its code.
 *
 * The target is the throwaway probe server (SDK v2 primitives,
 * tasks-probe-server.ts) until the package serves tasks itself.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TASK_CONFORMANCE_TOOLS } from "../fixtures/servers/tasks-conformance-tools.js";
import { TasksProbeServer } from "../fixtures/servers/tasks-probe-server.js";
import { runNode, type NodeRun } from "../helpers/procs.js";

const ROOT = join(import.meta.dirname, "..", "..");
const ALPHA = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance-alpha");
const BIN = join(ALPHA, "dist", "index.js");
const SHIM = join(ROOT, "test", "fixtures", "conformance", "register.mjs");

/** The alpha's tasks-* server scenarios, in its listing order (`conformance list --server`). */
const SCENARIOS = [
  "tasks-lifecycle",
  "tasks-capability-negotiation",
  "tasks-wire-fields",
  "tasks-request-state-removal",
  "tasks-mrtr-input",
  "tasks-request-headers",
  "tasks-dispatch-and-envelope",
  "tasks-status-notifications",
  "tasks-required-task-error",
  "tasks-mrtr-composition",
] as const;

/** One check as the suite writes it to checks.json. */
interface Check {
  readonly id: string;
  readonly status: "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED" | "INFO";
  readonly errorMessage?: string;
  readonly details?: Record<string, unknown>;
}

/** Run the alpha bin with `args`; its process group is killed after `ms`. */
function alpha(args: string[], ms = 55_000): Promise<NodeRun> {
  return runNode(["--import", SHIM, BIN, ...args], { cwd: ROOT, ms });
}

/** Run one scenario against `url`; its checks from the output dir. */
async function scenario(url: string, name: string): Promise<{ run: NodeRun; checks: Check[] }> {
  const out = mkdtempSync(join(tmpdir(), "agentkit-conf-alpha-"));
  try {
    const run = await alpha(["server", "--url", url, "--scenario", name, "-o", out]);
    const dirs = readdirSync(out);
    const checks = dirs.length === 1 ? (JSON.parse(readFileSync(join(out, dirs[0]!, "checks.json"), "utf8")) as Check[]) : [];
    return { run, checks };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

let target: TasksProbeServer;

beforeAll(async () => {
  target = await TasksProbeServer.start({ tools: TASK_CONFORMANCE_TOOLS, pollIntervalMs: 200 });
});

afterAll(async () => {
  await target?.[Symbol.asyncDispose]();
});

describe("MCP conformance 0.2.0-alpha.12, tasks-* server scenarios", { timeout: 60_000 }, () => {
  it("the alpha is the pinned version and lists exactly these ten tasks-* server scenarios", async () => {
    expect(JSON.parse(readFileSync(join(ALPHA, "package.json"), "utf8")).version).toBe("0.2.0-alpha.12");
    const listed = await alpha(["list", "--server"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect([...listed.stdout.matchAll(/^ {2}- (tasks-[a-z0-9-]+) /gm)].map((m) => m[1])).toEqual([...SCENARIOS]);
  });

  for (const name of SCENARIOS) {
    it(name, async () => {
      const { run, checks } = await scenario(target.url, name);
      const report = `${run.stdout}\n${run.stderr}`;
      expect(run.code, report).toBe(0);
      expect(checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING"), report).toEqual([]);
      if (name === "tasks-status-notifications") {
        // The scenario cannot fail (or pass): its whole run() is one SKIPPED check, whatever the server does —
        //   async run(e2) { return [sa(`tasks-status-notifications`, `TasksStatusNotificationsScenario`,
        //     `Status notifications conformance, pending subscriptions/listen rewrite.`,
        //     `SEP-2663 delivers notifications/tasks via the SEP-2575 subscriptions/listen stream, not via the
        //      tools/call POST SSE response that the prior harness observed. The harness needs a rewrite against
        //      the new channel; tracked as a follow-up.`, [W])]; }
        // so the suite prints "Passed: 0/0" and exits 0. Counted as vacuous, not as a pass.
        expect(checks.map((c) => [c.id, c.status])).toEqual([["tasks-status-notifications", "SKIPPED"]]);
        return;
      }
      expect(checks.filter((c) => c.status === "SUCCESS").length, report).toBeGreaterThan(0);
      expect(checks.find((c) => c.id === "wire-schema-valid")?.status, report).toBe("SUCCESS");
      if (name === "tasks-lifecycle") {
        // The scenario's cancel check only records the status the task settled to; it passes a task that
        // completes or fails after tasks/cancel too:
        //   let l2 = await K(n2, a2);
        //   t2.push({ id: e3, ..., status: s2.length === 0 ? `SUCCESS` : `FAILURE`, ...,
        //             details: { cancelAck: o2, statusAfterCancel: l2.status } });
        // while its own fixture contract says slow_compute "MUST settle to `cancelled`". Asserted here instead.
        expect(checks.find((c) => c.id === "sep-2663-cancel-ack-empty-result")?.details).toMatchObject({ statusAfterCancel: "cancelled" });
      }
    });
  }
});
