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
 *   7 of 10 pass, `tasks-status-notifications` is vacuous (below), and two
 *   fail, each asserted with the suite's own message so a fix shows:
 *   `tasks-mrtr-input` / `tasks-mrtr-partial-fulfillment` ("multi_input MUST
 *   surface 2 inputRequests; got 1": two `ctx.elicit()` in parallel inside a
 *   task surface one question at a time) and `tasks-mrtr-composition` ("round 1
 *   MUST be InputRequiredResult; got ... resultType task": the package turns
 *   a call's first question into a task at once, where the scenario wants the
 *   question answered by a multi-round-trip on the call first, the spec's
 *   "SHOULD resolve all MRTR exchanges synchronously before responding with
 *   a CreateTaskResult");
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

/** What the package's served tools fail today (see the module comment). */
const SERVED_FAILS: Partial<Record<(typeof SCENARIOS)[number], Known>> = {
  "tasks-mrtr-input": { id: "tasks-mrtr-partial-fulfillment", message: /^multi_input MUST surface 2 inputRequests; got 1$/ },
  "tasks-mrtr-composition": { id: "sep-2663-mrtr-synchronous-before-task-creation", message: /^round 1 MUST be InputRequiredResult; got \{"content":\[\],"resultType":"task"/ },
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
  describe(`MCP conformance 0.2.0-alpha.12 tasks-* against the ${target === "served" ? "package's served tools (serveRegistry)" : "throwaway probe server"}`, { timeout: 60_000 }, () => {
    for (const name of SCENARIOS) {
      it(name, async () => {
        const { run, checks } = await scenario(target === "served" ? served.url! : probe.url, name);
        const report = `${run.stdout}\n${run.stderr}`;
        const known = target === "served" ? SERVED_FAILS[name] : undefined;
        const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
        if (known) {
          expect(run.code, report).toBe(1);
          expect(bad.map((c) => c.id), report).toEqual([known.id]);
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
          expect(checks.find((c) => c.id === "sep-2663-cancel-ack-empty-result")?.details).toMatchObject({ statusAfterCancel: "cancelled" });
        }
      });
    }
  });
}
