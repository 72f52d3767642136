/**
 * @module test/mcp-serve/tasks-approval.test
 * `task: "auto"` (the default) over a real loopback socket: a call whose
 * guard asks a person becomes a task at once (`input_required` with the
 * approval form), and the same question is in the run's inbox; the first
 * answer wins (through `tasks/update` or the inbox), the other side is
 * withdrawn, and the decision is recorded once naming who answered. A call
 * that only runs long becomes a task at `afterMs` (fake timers).
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
  return tool({ name: "deploy", description: "Deploy.", input: { type: "object", properties: { target: { type: "string" } }, required: ["target"] }, requiresApproval: true }, async ({ target }: { target: string }) => {
    ran.push(target);
    return `deployed ${target}`;
  });
}

async function guarded(ran: string[]): Promise<{ spec: McpServerSpec & Target; inbox: MemoryInboxStore; guard: ApprovalGuard }> {
  const inbox = new MemoryInboxStore();
  const guard = approvalGuard({ asker: inboxAsker({ store: inbox, source: "engine" }) });
  const spec = await serveRegistry([deployCounting(ran)], { name: "engine", ctx: makeTestCtx(), guard });
  specs.track(spec);
  await spec.start();
  return { spec: Object.assign(spec, { url: spec.url!, headers: { ...spec.authHeaders } }), inbox, guard };
}

/** Start a guarded call and wait until it is a task waiting for approval; the task id, its question key and form. */
async function waitingForApproval(spec: Target, target: string): Promise<{ id: string; key: string; params: { message: string; requestedSchema: unknown } }> {
  const handle = await callTool(spec, "deploy", { target });
  expect(handle.result?.resultType).toBe("task");
  const id = handle.result!.taskId!;
  const waiting = await pollTask(spec, id, (t) => t.status === "input_required");
  const [key, request] = Object.entries(waiting.inputRequests as Record<string, { method: string; params: { message: string; requestedSchema: unknown } }>)[0]!;
  expect(request.method).toBe("elicitation/create");
  return { id, key, params: request.params };
}

describe('task "auto": a call waiting for a person is a task; the first answer wins', () => {
  it("the guard asks: input_required with an approve form naming the tool and arguments; approving through tasks/update runs it once and withdraws the inbox question; one decision, by the client", async () => {
    const ran: string[] = [];
    const { spec, inbox, guard } = await guarded(ran);
    const { id, key, params } = await waitingForApproval(spec, "staging");
    expect(params.requestedSchema).toEqual({ type: "object", properties: { approve: { type: "boolean", title: "Approve", description: "Run 'mcp__engine__deploy' with these arguments" } }, required: ["approve"] });
    expect(params.message).toContain('Arguments: {"target":"staging"}');
    const [question] = await inbox.pending();
    expect(question).toBeDefined();
    await taskRpc(spec, "update", id, { inputResponses: { [key]: { action: "accept", content: { approve: true } } } });
    const done = await pollTask(spec, id, (t) => t.status === "completed");
    expect(done.result).toEqual({ content: [{ type: "text", text: "deployed staging" }] });
    expect(ran).toEqual(["staging"]);
    await expect.poll(async () => (await inbox.get(question!.id))?.status).toBe("withdrawn");
    expect(guard.decisions.map((d) => [d.allowed, d.actor])).toEqual([[true, "the MCP client (tasks/update)"]]);
  });

  it("answering in the inbox first completes the task; a later tasks/update for that question is ignored; one decision, by the inbox session", async () => {
    const ran: string[] = [];
    const { spec, inbox, guard } = await guarded(ran);
    const { id, key } = await waitingForApproval(spec, "prod");
    const [question] = await inbox.pending();
    expect((await inbox.settle(question!.id, { status: "answered", answer: { kind: "approve", actor: "inbox session 1 (abc123)" } })).ok).toBe(true);
    const done = await pollTask(spec, id, (t) => t.status === "completed");
    expect(done.result).toEqual({ content: [{ type: "text", text: "deployed prod" }] });
    await taskRpc(spec, "update", id, { inputResponses: { [key]: { action: "accept", content: { approve: false } } } });
    expect(ran).toEqual(["prod"]);
    expect(guard.decisions.map((d) => [d.allowed, d.actor])).toEqual([[true, "inbox session 1 (abc123)"]]);
  });

  it("anything but accept with approve:true denies: the tool is not run and the task completes with the refusal", async () => {
    const ran: string[] = [];
    const { spec, guard } = await guarded(ran);
    const { id, key } = await waitingForApproval(spec, "prod");
    await taskRpc(spec, "update", id, { inputResponses: { [key]: { action: "decline" } } });
    const done = await pollTask(spec, id, (t) => t.status === "completed");
    expect(done.result).toMatchObject({ isError: true });
    expect(JSON.stringify(done.result)).toContain("was not run");
    expect(ran).toEqual([]);
    expect(guard.decisions.map((d) => [d.allowed, d.actor])).toEqual([[false, "the MCP client (tasks/update)"]]);
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
