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
 * Two targets, the same scenarios:
 * - the package's own served tools (`serveRegistry`, tasks-conformance-served.ts):
 *   8 of 10 pass (two `ctx.elicit()` in parallel inside a task are two
 *   input requests open at once, answered one by one through `tasks/update`:
 *   `tasks-mrtr-input`), `tasks-status-notifications` is vacuous (below), and
 *   `tasks-mrtr-composition` fails because it asks more than the spec
 *   (below), asserted with the suite's whole message so a change on either
 *   side shows;
 * - the throwaway probe server (SDK v2 primitives, tasks-probe-server.ts)
 *   the fixtures were first learnt against: 9 pass, 1 vacuous.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TASK_CONFORMANCE_TOOLS } from "../fixtures/servers/tasks-conformance-tools.js";
import { TasksProbeServer } from "../fixtures/servers/tasks-probe-server.js";
import { serveTaskConformance } from "../fixtures/servers/tasks-conformance-served.js";
import type { McpServerSpec } from "../../src/mcp/serve/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
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

/** A check a target is known to fail: its id and the suite's message. */
type Known = { readonly id: string; readonly message: RegExp };

/**
 * What the package's served tools fail, and why it is the scenario that asks too much.
 *
 * `tasks-mrtr-composition` makes MUSTs of a fixture's design: `test_tool_with_task` "Round 1: returns
 * `InputRequiredResult` asking for `user_name`. Round 2: ... returns `CreateTaskResult`", checked as "round 1 MUST be
 * InputRequiredResult", "round 1 (MRTR) MUST NOT carry taskId — task is only minted on the final round". The
 * extension's specification (SEP-2663, Task Creation) says only: "Server implementations that use multi round-trip
 * requests in conjunction with task creation ... SHOULD resolve all MRTR exchanges synchronously before responding
 * with a CreateTaskResult" — a SHOULD, for servers that ask before the task exists — and it specifies input asked
 * inside a task (`input_required` with `inputRequests` on `tasks/get`, answered by `tasks/update`), which
 * `tasks-mrtr-input` checks and the package passes. The package asks every question of a task call inside the task by
 * design (API.md: a task "as soon as the call waits for a person"; the question is then durable on the store and
 * Claude Code shows it in /tasks), so its round 1 is a task handle and the scenario stops there. Asserted whole: the
 * test fails if the scenario is relaxed to the spec's SHOULD or if the server starts answering round 1 otherwise.
 */
const SERVED_FAILS: Partial<Record<(typeof SCENARIOS)[number], Known>> = {
  "tasks-mrtr-composition": {
    id: "sep-2663-mrtr-synchronous-before-task-creation",
    message:
      /^round 1 MUST be InputRequiredResult; got \{"content":\[\],"resultType":"task","taskId":"[A-Za-z0-9_-]{24}","status":"working","statusMessage":"working","createdAt":"[^"]+","lastUpdatedAt":"[^"]+","ttlMs":86400000,"pollIntervalMs":200,"_meta":\{[^;]*\}\}; round 1 resultType MUST be "input_required"; got "task"; round 1 \(MRTR\) MUST NOT carry taskId — task is only minted on the final round; round 1 missing inputRequests; cannot drive round 2$/,
  },
};

let probe: TasksProbeServer;
let served: McpServerSpec;

beforeAll(async () => {
  probe = await TasksProbeServer.start({ tools: TASK_CONFORMANCE_TOOLS, pollIntervalMs: 200 });
  served = await serveTaskConformance(makeTestCtx());
});

afterAll(async () => {
  await probe?.[Symbol.asyncDispose]();
  await served?.stop();
});

describe("MCP conformance 0.2.0-alpha.12, tasks-* server scenarios", { timeout: 60_000 }, () => {
  it("the alpha is the pinned version and lists exactly these ten tasks-* server scenarios", async () => {
    expect(JSON.parse(readFileSync(join(ALPHA, "package.json"), "utf8")).version).toBe("0.2.0-alpha.12");
    const listed = await alpha(["list", "--server"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect([...listed.stdout.matchAll(/^ {2}- (tasks-[a-z0-9-]+) /gm)].map((m) => m[1])).toEqual([...SCENARIOS]);
  });
});

for (const target of ["served", "probe"] as const) {
  describe(
    `MCP conformance 0.2.0-alpha.12 tasks-* against the ${target === "served" ? "package's served tools (serveRegistry)" : "throwaway probe server"}`,
    { timeout: 60_000 },
    () => {
      for (const name of SCENARIOS) {
        it(name, async () => {
          const { run, checks } = await scenario(target === "served" ? served.url! : probe.url, name);
          const report = `${run.stdout}\n${run.stderr}`;
          const known = target === "served" ? SERVED_FAILS[name] : undefined;
          const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
          if (known) {
            expect(run.code, report).toBe(1);
            expect(
              bad.map((c) => c.id),
              report,
            ).toEqual([known.id]);
            expect(bad[0]!.errorMessage).toMatch(known.message);
            return;
          }
          expect(run.code, report).toBe(0);
          expect(bad, report).toEqual([]);
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
            expect(checks.find((c) => c.id === "sep-2663-cancel-ack-empty-result")?.details).toMatchObject({
              statusAfterCancel: "cancelled",
            });
          }
        });
      }
    },
  );
}
