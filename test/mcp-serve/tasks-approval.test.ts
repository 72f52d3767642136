/**
 * @module test/mcp-serve/tasks-approval.test
 * `task: "auto"` (the default) over a real loopback socket: a call whose
 * guard asks a person becomes a task at once; the question is the run's
 * inbox's, so the task is `working` ("waiting for approval", no input
 * requests: a client keeps polling and gets the result once the person
 * answers); the decision is recorded once naming who answered; a cancel
 * withdraws the inbox question. A call that only runs long becomes a task at
 * `afterMs` (fake timers).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { inboxAsker, MemoryInboxStore } from "../../src/askers/index.js";
import { tool } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { approvalGuard, type ApprovalGuard } from "../../src/mcp/approvals/index.js";
import { serveRegistry, type McpServerSpec } from "../../src/mcp/serve/index.js";
import { ServedSpecs } from "./helpers.js";
import { callTool, pollTask, taskRpc, type Target } from "./tasks-helpers.js";

const specs = new ServedSpecs();
afterEach(async () => {
  vi.useRealTimers();
  await specs.stopAll();
});

/** A `deploy` tool that requires approval and counts its runs. */
function deployCounting(ran: string[]) {
  return tool(
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
}

async function guarded(ran: string[]): Promise<{ spec: McpServerSpec & Target; inbox: MemoryInboxStore; guard: ApprovalGuard }> {
  const inbox = new MemoryInboxStore();
  const guard = approvalGuard({ asker: inboxAsker({ store: inbox, source: "engine" }) });
  const spec = await serveRegistry([deployCounting(ran)], { name: "engine", ctx: makeTestCtx(), guard });
  specs.track(spec);
  await spec.start();
  return { spec: Object.assign(spec, { url: spec.url!, headers: { ...spec.authHeaders } }), inbox, guard };
}

/** Start a guarded call and wait until it is a task waiting for approval (in the run's inbox); the task id and the inbox question. */
async function waitingForApproval(
  spec: Target,
  inbox: MemoryInboxStore,
  target: string,
): Promise<{ id: string; question: { id: string; question: string } }> {
  const handle = await callTool(spec, "deploy", { target });
  expect(handle.result).toMatchObject({ resultType: "task", status: "working", statusMessage: "waiting for approval" });
  const id = handle.result!.taskId!;
  await expect.poll(async () => (await inbox.pending()).length).toBe(1);
  const [question] = await inbox.pending();
  return { id, question: question! };
}

describe('task "auto": a call waiting for a person is a task; the person answers in the module\'s own Asker', () => {
  it("the guard asks: the task is working, 'waiting for approval', with no inputRequests (the question is the run's inbox's, so a client keeps polling); the inbox approval runs it once; one decision, by the inbox session", async () => {
    const ran: string[] = [];
    const { spec, inbox, guard } = await guarded(ran);
    const { id, question } = await waitingForApproval(spec, inbox, "prod");
    expect(question.question).toContain("'deploy'");
    const polled = await taskRpc(spec, "get", id);
    expect(polled.result).toMatchObject({ status: "working", statusMessage: "waiting for approval" });
    expect(polled.result).not.toHaveProperty("inputRequests");
    expect(
      (await inbox.settle(question.id, { status: "answered", answer: { kind: "approve", actor: "inbox session 1 (abc123)" } })).ok,
    ).toBe(true);
    const done = await pollTask(spec, id, (t) => t.status === "completed");
    expect(done.result).toEqual({ content: [{ type: "text", text: "deployed prod" }] });
    expect(ran).toEqual(["prod"]);
    expect(guard.decisions.map((d) => [d.allowed, d.actor])).toEqual([[true, "inbox session 1 (abc123)"]]);
  });

  it("a denial in the inbox: the tool is not run and the task completes with the refusal", async () => {
    const ran: string[] = [];
    const { spec, inbox, guard } = await guarded(ran);
    const { id, question } = await waitingForApproval(spec, inbox, "prod");
    expect(
      (
        await inbox.settle(question.id, {
          status: "answered",
          answer: { kind: "reject", actor: "inbox session 1 (abc123)", note: "not today" },
        })
      ).ok,
    ).toBe(true);
    const done = await pollTask(spec, id, (t) => t.status === "completed");
    expect(done.result).toMatchObject({ isError: true });
    expect(JSON.stringify(done.result)).toContain("was not run");
    expect(ran).toEqual([]);
    expect(guard.decisions.map((d) => [d.allowed, d.actor])).toEqual([[false, "inbox session 1 (abc123)"]]);
  });

  it("tasks/cancel while the inbox asks: the inbox question is withdrawn, the tool is not run, the task ends cancelled", async () => {
    const ran: string[] = [];
    const { spec, inbox } = await guarded(ran);
    const { id, question } = await waitingForApproval(spec, inbox, "prod");
    await taskRpc(spec, "cancel", id);
    await pollTask(spec, id, (t) => t.status === "cancelled");
    await expect.poll(async () => (await inbox.get(question.id))?.status).toBe("withdrawn");
    expect(ran).toEqual([]);
  });

  it("a call that only runs long becomes a task at afterMs, not before (fake timers); it then completes in the record", async () => {
    let release!: () => void;
    let running!: () => void;
    const started = new Promise<void>((resolve) => (running = resolve));
    const slow = tool({ name: "slow", description: "Slow.", sideEffecting: false }, () => {
      running();
      return new Promise<string>((resolve) => (release = () => resolve("slow done")));
    });
    const spec = await serveRegistry([slow], { name: "engine", ctx: makeTestCtx(), tasks: { afterMs: 5_000 } });
    specs.track(spec);
    await spec.start();
    const target: Target = { url: spec.url!, headers: { ...spec.authHeaders } };
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let answered: Awaited<ReturnType<typeof callTool>> | undefined;
    const call = callTool(target, "slow").then((r) => (answered = r));
    await started;
    await vi.advanceTimersByTimeAsync(4_999);
    expect(answered, JSON.stringify(answered)).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    vi.useRealTimers();
    await call;
    expect(answered!.result).toMatchObject({ resultType: "task", status: "working" });
    release();
    const done = await pollTask(target, answered!.result!.taskId!, (t) => t.status === "completed");
    expect(done.result).toEqual({ content: [{ type: "text", text: "slow done" }] });
  });
});
