/**
 * @module test/express/hosted-tasks.test
 * MCP tasks on a hosted router (`mcpRouter` on a real express app): a task
 * is bound to its token's principal, so another principal's `tasks/get`,
 * `tasks/update` and `tasks/cancel` get -32602 while the owner, with another
 * token of the same principal, follows it to its result.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { tool } from "../../src/index.js";
import { sdkServer } from "../../src/mcp/peers/sdk-server.js";
import { closeAll, grant, hosted, type Hosted } from "./kit.js";
import { callTool, pollTask, rpc, taskRpc, type Target } from "../mcp-serve/tasks-helpers.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** The heap in use after full GCs (bytes). */
function heap(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

afterEach(async () => {
  vi.useRealTimers();
  await closeAll();
});

/** A hosted module with one `job` (a task until `release()`), and two principals' tokens: alice's and mallory's. */
async function jobsOfTwo(): Promise<{ h: Hosted; alice: Target; mallory: Target; release: () => void }> {
  let done: (() => void) | undefined;
  const job = tool(
    { name: "job", description: "A job.", task: "required", sideEffecting: false },
    () => new Promise<string>((resolve) => (done = () => resolve("job done"))),
  );
  const h = await hosted([job], { name: "jobs" });
  const alice: Target = { url: h.url, headers: { authorization: `Bearer ${grant(h, "tok-alice", [])}` } };
  const mallory: Target = {
    url: h.url,
    headers: { authorization: `Bearer ${grant(h, "tok-mallory", [], { clientId: "client-m", subject: "mallory" })}` },
  };
  return { h, alice, mallory, release: () => done!() };
}

describe("hosted MCP tasks", () => {
  it("a task is the principal's: another client's tasks/* get -32602; the same principal with a new token reads it to completion", async () => {
    const { h, alice, mallory, release } = await jobsOfTwo();
    const aliceAgain: Target = { url: h.url, headers: { authorization: `Bearer ${grant(h, "tok-alice-2", [])}` } };
    const handle = await callTool(alice, "job");
    expect(handle.result?.resultType).toBe("task");
    const id = handle.result!.taskId!;
    for (const verb of ["get", "update", "cancel"] as const) {
      const r = await taskRpc(mallory, verb, id, verb === "update" ? { inputResponses: {} } : {});
      expect(r.error?.code, verb).toBe(-32602);
    }
    expect((await taskRpc(aliceAgain, "get", id)).result?.status).toBe("working");
    release();
    const done = await pollTask(aliceAgain, id, (t) => t.status === "completed");
    expect(done.result).toEqual({ content: [{ type: "text", text: "job done" }] });
  });

  it("a task outlives the hosted per-call deadline (60 s by default, fake clock): still working past it, its ctx not cancelled, then completed; a call answered in the request is still held to it", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ["setTimeout", "clearTimeout"] });
    let release!: () => void;
    let cancelled = false;
    const job = tool({ name: "job", description: "A job.", task: "required", sideEffecting: false }, (_a, ctx) => {
      ctx.onCancel(() => (cancelled = true));
      return new Promise<string>((resolve) => (release = () => resolve("job done")));
    });
    const inline = tool(
      { name: "inline", description: "Never a task.", task: "never", sideEffecting: false },
      () => new Promise<string>(() => {}),
    );
    const h = await hosted([job, inline], { name: "jobs" });
    const alice: Target = { url: h.url, headers: { authorization: `Bearer ${grant(h, "tok-alice", [])}` } };
    const id = (await callTool(alice, "job")).result!.taskId!;
    await expect.poll(() => release).toBeTypeOf("function");
    vi.advanceTimersByTime(61_000);
    expect((await taskRpc(alice, "get", id)).result).toMatchObject({ status: "working" });
    expect(cancelled).toBe(false);
    release();
    const done = await pollTask(alice, id, (t) => t.status === "completed");
    expect(done.result).toEqual({ content: [{ type: "text", text: "job done" }] });
    const pending = callTool(alice, "inline");
    await new Promise((r) => setImmediate(r));
    await expect
      .poll(async () => {
        vi.advanceTimersByTime(61_000);
        return (await Promise.race([pending, Promise.resolve(undefined)]))?.result;
      })
      .toMatchObject({ isError: true, content: [{ text: "tool 'inline' did not return within 60s and was abandoned" }] });
  });

  it("an open task lets its request go once the handle is out (its per-request server, stream and session): 400 open tasks hold under 12 KiB of heap each", async () => {
    const release: Array<() => void> = [];
    const hold = tool(
      { name: "hold", description: "Runs until released.", task: "required", sideEffecting: false },
      () => new Promise<string>((resolve) => release.push(() => resolve("done"))),
    );
    const h = await hosted([hold], { name: "jobs", rateLimit: false });
    const alice: Target = { url: h.url, headers: { authorization: `Bearer ${grant(h, "tok-alice", [])}` } };
    // Warm: the first calls build what every call shares (schemas, code, pools).
    for (let i = 0; i < 20; i++) expect((await callTool(alice, "hold")).result?.resultType).toBe("task");
    const before = heap();
    const N = 400;
    for (let i = 0; i < N; i++) expect((await callTool(alice, "hold")).result?.resultType).toBe("task");
    const perTask = (heap() - before) / N;
    // Before the call let its request go, an open task kept ~27 KiB here (the request's SDK server, transport, web Request and headers).
    expect(perTask, `${Math.round(perTask)} bytes of heap per open task`).toBeLessThan(12 * 1024);
    for (const r of release) r();
  });

  it("tasks/get is answered before any SDK server is built, as the SDK's own path answers it; every other case still goes through the SDK (wrong Mcp-Name 400 / -32020, undeclared -32021, another principal -32602)", async () => {
    const { alice, mallory, release } = await jobsOfTwo();
    const id = (await callTool(alice, "job")).result!.taskId!;
    const built = vi.spyOn(sdkServer().Server.prototype, "connect");
    const direct = await taskRpc(alice, "get", id);
    expect(built).not.toHaveBeenCalled();
    expect(direct.result).toMatchObject({ taskId: id, status: "working", resultType: "complete" });
    // The same request with a content type the shortcut leaves to the SDK: the SDK's own answer, the same but for the id.
    const viaSdk = await rpc(
      alice,
      "tasks/get",
      { taskId: id },
      { name: id, headers: { "content-type": "application/json; charset=utf-8" } },
    );
    expect(built).toHaveBeenCalledTimes(1);
    expect({ status: viaSdk.status, type: viaSdk.headers!.get("content-type"), result: viaSdk.result }).toEqual({
      status: direct.status,
      type: direct.headers!.get("content-type"),
      result: direct.result,
    });
    // The rules stand: each of these is the SDK's (or the task handler's) answer.
    const misnamed = await rpc(alice, "tasks/get", { taskId: id }, { name: "another-task" });
    expect([misnamed.status, misnamed.error?.code]).toEqual([400, -32020]);
    const undeclared = await rpc(alice, "tasks/get", { taskId: id }, { name: id, declare: false });
    expect(undeclared.error?.code).toBe(-32021);
    expect((await taskRpc(mallory, "get", id)).error?.code).toBe(-32602);
    built.mockClear();
    release();
    const done = await pollTask(alice, id, (t) => t.status === "completed");
    expect(done.result).toEqual({ content: [{ type: "text", text: "job done" }] });
    expect(built).not.toHaveBeenCalled();
    built.mockRestore();
  });
});
