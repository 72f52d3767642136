/**
 * @module test/mcp-serve/tasks-recovery.test
 * What a serving module does with the open tasks a dead process left on its
 * store (records as that process wrote them, whose worker is a process of
 * this host that has exited), over a real loopback socket:
 * - a task waiting on a plain `ctx.elicit()` is still `input_required` with
 *   its question; answered through `tasks/update`, the tool runs again from
 *   the top (code before a question may run again, as for every question
 *   round) and its question is answered from the record;
 * - a task waiting for approval is put back in the run's inbox, bound to the
 *   same record: the inbox answer completes it (one run, one decision), or
 *   `tasks/update` does and the inbox question is withdrawn.
 * (The SIGKILLed subprocess on PGlite is `tasks-restart.test.ts`.)
 */
import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { inboxAsker, MemoryInboxStore } from "../../src/askers/index.js";
import type { CallQuestion, CallRecord } from "../../src/contracts/call-record.js";
import { tool } from "../../src/index.js";
import { approvalGuard } from "../../src/mcp/approvals/index.js";
import { serveRegistry, type McpServerSpec } from "../../src/mcp/serve/index.js";
import { recordOwner } from "../../src/mcp/serve/round-records.js";
import { newRecordId } from "../../src/records/memory-call-records.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { ServedSpecs } from "./helpers.js";
import { pollTask, taskRpc, type Target } from "./tasks-helpers.js";

const specs = new ServedSpecs();
afterEach(() => specs.stopAll());

/** A worker name of a process of this host that has exited (a record's `worker` after its process died). */
function deadWorker(): string {
  const gone = spawnSync(process.execPath, ["-e", ""]);
  return `${hostname()}:${gone.pid}:1`;
}

/** The record a process wrote for a task of `tool` on module `engine` and then died, waiting on `question`. */
function leftBehind(tool: string, args: Record<string, unknown>, question: CallQuestion, started: boolean): CallRecord {
  const now = new Date().toISOString();
  return {
    id: newRecordId(),
    kind: "task",
    owner: recordOwner("engine", undefined),
    server: "engine",
    tool,
    arguments: args,
    status: "input_required",
    statusMessage: started ? "waiting for input" : "waiting for approval",
    started,
    round: 1,
    question,
    answers: [],
    cancelRequested: false,
    worker: deadWorker(),
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 86_400_000,
    pollIntervalMs: 1_000,
    version: 3,
  };
}

async function serving(spec: Promise<McpServerSpec>): Promise<Target> {
  const s = specs.track(await spec);
  await s.start();
  return { url: s.url!, headers: { ...s.authHeaders } };
}

/** An inbox store, a `deploy` tool that requires approval and counts its runs, the module's guard asking that inbox, and an approval form as a dead process left it. */
function approvalParts() {
  const store = new MemoryInboxStore();
  const ran: string[] = [];
  const deploy = tool(
    {
      name: "deploy",
      description: "Deploy.",
      input: { type: "object", properties: { target: { type: "string" } }, required: ["target"] },
      requiresApproval: true,
    },
    async ({ target }: { target: string }) => {
      ran.push(target);
      return `deployed ${target}`;
    },
  );
  const guard = approvalGuard({ asker: inboxAsker({ store, source: "engine" }) });
  const form = {
    mode: "form",
    message: "Allow deploy?",
    requestedSchema: { type: "object", properties: { approve: { type: "boolean" } }, required: ["approve"] },
  };
  return { store, ran, deploy, guard, form };
}

const COLOUR = {
  message: "Which colour?",
  requestedSchema: { type: "object", properties: { colour: { type: "string" } }, required: ["colour"] },
};

describe("tasks a dead process left on the store", () => {
  it("a task waiting on ctx.elicit() stays input_required with its question; answered through tasks/update it runs from the top and completes with the answer", async () => {
    const store = new MemoryInboxStore();
    const runs: string[] = [];
    const ask = tool({ name: "ask", description: "Asks a colour.", sideEffecting: false }, async (_a, ctx) => {
      runs.push("before the question");
      const answer = await ctx.elicit(COLOUR);
      return `colour ${String(answer.content?.colour)}`;
    });
    const record = leftBehind("ask", {}, { key: "elicit-1", method: "elicitation/create", params: COLOUR }, true);
    await store.createRecord(record);
    const target = await serving(serveRegistry([ask], { name: "engine", ctx: makeTestCtx(), tasks: { store } }));
    const waiting = await pollTask(target, record.id, (t) => t.status !== "working");
    expect(waiting).toMatchObject({
      status: "input_required",
      inputRequests: { "elicit-1": { method: "elicitation/create", params: COLOUR } },
    });
    await taskRpc(target, "update", record.id, { inputResponses: { "elicit-1": { action: "accept", content: { colour: "red" } } } });
    const done = await pollTask(target, record.id, (t) => t.status === "completed" || t.status === "failed");
    expect(done).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "colour red" }] } });
    expect(runs).toEqual(["before the question"]);
  });

  it("a task waiting on two questions asked at once, the second answered before the process died: after the restart only the first is open; answered, the body gets each answer for its own question", async () => {
    const store = new MemoryInboxStore();
    const runs: string[] = [];
    const both = tool({ name: "both", description: "Asks two colours at once.", sideEffecting: false }, async (_a, ctx) => {
      runs.push("before the questions");
      const [a, b] = await Promise.all([
        ctx.elicit({ ...COLOUR, message: "First colour?" }),
        ctx.elicit({ ...COLOUR, message: "Second colour?" }),
      ]);
      return `first ${String(a.content?.colour)}, second ${String(b.content?.colour)}`;
    });
    const second = {
      key: "elicit-2",
      method: "elicitation/create" as const,
      value: { action: "accept", content: { colour: "blue" } },
      by: "the MCP client (tasks/update)",
    };
    const record = {
      ...leftBehind("both", {}, { key: "elicit-1", method: "elicitation/create", params: { ...COLOUR, message: "First colour?" } }, true),
      round: 2,
      answers: [second],
    };
    await store.createRecord(record);
    const target = await serving(serveRegistry([both], { name: "engine", ctx: makeTestCtx(), tasks: { store } }));
    const waiting = await pollTask(target, record.id, (t) => t.status !== "working");
    expect(waiting).toMatchObject({ status: "input_required" });
    expect(Object.keys(waiting.inputRequests as object)).toEqual(["elicit-1"]);
    await taskRpc(target, "update", record.id, { inputResponses: { "elicit-1": { action: "accept", content: { colour: "red" } } } });
    const done = await pollTask(target, record.id, (t) => t.status === "completed" || t.status === "failed");
    expect(done).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "first red, second blue" }] } });
    expect(runs).toEqual(["before the questions"]);
  });

  it("a task waiting for approval is put back in the inbox, bound to the same record: the inbox answer runs it once and completes it; one decision, by the inbox", async () => {
    const { store, ran, deploy, guard, form } = approvalParts();
    const record = leftBehind(
      "deploy",
      { target: "prod" },
      { key: "approve-1", method: "elicitation/create", params: form, questionId: "asked-before-the-restart" },
      false,
    );
    await store.createRecord(record);
    const target = await serving(serveRegistry([deploy], { name: "engine", ctx: makeTestCtx(), guard, tasks: { store } }));
    await expect.poll(async () => (await store.pending()).length, { timeout: 10_000 }).toBe(1);
    const [question] = await store.pending();
    expect(question!.question).toContain("deploy");
    expect((await taskRpc(target, "get", record.id)).result).toMatchObject({ status: "working", statusMessage: "waiting for approval" });
    expect(
      (await store.settle(question!.id, { status: "answered", answer: { kind: "approve", actor: "inbox session 1 (abc123)" } })).ok,
    ).toBe(true);
    const done = await pollTask(target, record.id, (t) => t.status === "completed" || t.status === "failed");
    expect(done).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "deployed prod" }] } });
    await taskRpc(target, "update", record.id, { inputResponses: { "approve-1": { action: "accept", content: { approve: false } } } });
    expect(ran).toEqual(["prod"]);
    expect(guard.decisions.map((d) => [d.allowed, d.actor])).toEqual([[true, "inbox session 1 (abc123)"]]);
  });

  it("a recovered approval answered through tasks/update runs it once, and its inbox question is withdrawn", async () => {
    const { store, ran, deploy, guard, form } = approvalParts();
    const record = leftBehind("deploy", { target: "staging" }, { key: "approve-1", method: "elicitation/create", params: form }, false);
    await store.createRecord(record);
    const target = await serving(serveRegistry([deploy], { name: "engine", ctx: makeTestCtx(), guard, tasks: { store } }));
    await expect.poll(async () => (await store.pending()).length, { timeout: 10_000 }).toBe(1);
    const [question] = await store.pending();
    await taskRpc(target, "update", record.id, { inputResponses: { "approve-1": { action: "accept", content: { approve: true } } } });
    const done = await pollTask(target, record.id, (t) => t.status === "completed" || t.status === "failed");
    expect(done).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "deployed staging" }] } });
    expect(ran).toEqual(["staging"]);
    await expect.poll(async () => (await store.get(question!.id))?.status).toBe("withdrawn");
    expect(guard.decisions.map((d) => [d.allowed, d.actor])).toEqual([[true, "the MCP client (tasks/update)"]]);
  });

  it("a task approved whose body had not begun (the process died between the answer and the run) runs once here, from the record's verdict: the guard is not asked again", async () => {
    const { store, ran, deploy, guard, form } = approvalParts();
    const left = leftBehind("deploy", { target: "canary" }, { key: "approve-1", method: "elicitation/create", params: form }, false);
    const record: CallRecord = {
      ...left,
      status: "working",
      statusMessage: "working",
      question: undefined,
      answers: [
        {
          key: "approve-1",
          method: "elicitation/create",
          value: { decision: { kind: "approve", actor: "inbox session 1 (abc123)" } },
          by: "the run's Asker",
        },
      ],
    };
    await store.createRecord(record);
    const target = await serving(serveRegistry([deploy], { name: "engine", ctx: makeTestCtx(), guard, tasks: { store } }));
    const done = await pollTask(target, record.id, (t) => t.status === "completed" || t.status === "failed");
    expect(done).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "deployed canary" }] } });
    expect(ran).toEqual(["canary"]);
    expect(await store.pending()).toEqual([]);
    expect(guard.decisions).toEqual([]);
  });
});
