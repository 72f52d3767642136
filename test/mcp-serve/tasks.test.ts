/**
 * @module test/mcp-serve/tasks.test
 * Served tools as MCP tasks (`io.modelcontextprotocol/tasks`, 2026-07-28)
 * over a real loopback socket, with raw requests: `task: "required"` hands
 * out a handle at once and `tasks/get` follows it to its inline result;
 * `"never"` and clients that cannot take a task answer in the call; the
 * fence (another module, -32021, -32601); `tasks/update` answering
 * `ctx.elicit()`; `tasks/cancel`; a JSON-RPC error ends a task `failed`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Cancelled, RunContext, tool, type Asker, type Decision } from "../../src/index.js";
import { MCPClient, StreamableHttpServer } from "../../src/mcp/index.js";
import type { CallProgress } from "../../src/mcp/client/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { serveRegistry, type McpServerSpec } from "../../src/mcp/serve/index.js";
import { MemoryCallRecords } from "../../src/records/memory-call-records.js";
import type { CallRecordStore } from "../../src/contracts/call-record.js";
import { ProtocolError } from "@modelcontextprotocol/server";
import { ServedSpecs } from "./helpers.js";
import { WireLogProxy } from "../cli/kit/wire-log-proxy.js";
import { callTool, pollTask, rpc, taskRpc, type Target } from "./tasks-helpers.js";

const specs = new ServedSpecs();
afterEach(() => specs.stopAll());

/** A gate a test opens: the tool body waits on it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

async function served(
  tools: ReturnType<typeof tool>[],
  more: { name?: string; store?: CallRecordStore; afterMs?: number } = {},
): Promise<McpServerSpec & Target> {
  const spec = await serveRegistry(tools, {
    name: more.name ?? "engine",
    ctx: makeTestCtx(),
    tasks: { ...(more.store ? { store: more.store } : {}), ...(more.afterMs !== undefined ? { afterMs: more.afterMs } : {}) },
  });
  specs.track(spec);
  await spec.start();
  return Object.assign(spec, { url: spec.url!, headers: { ...spec.authHeaders } });
}

describe("served tools as MCP tasks (2026-07-28)", () => {
  it('task "required": the call is answered with a task handle at once; tasks/get follows it from working to completed with the result inline', async () => {
    const release = gate();
    const slow = tool({ name: "slow", description: "Slow.", task: "required", sideEffecting: false }, async () => {
      await release.wait;
      return "done slowly";
    });
    const spec = await served([slow]);
    // The first request of a process loads the SDK's server side: measured after it.
    await rpc(spec, "tools/list", {}, { name: undefined });
    const t0 = Date.now();
    const handle = await callTool(spec, "slow");
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(handle.result).toMatchObject({ resultType: "task", status: "working", pollIntervalMs: 1000, ttlMs: 86_400_000 });
    const taskId = handle.result!.taskId!;
    expect(Buffer.from(taskId, "base64url").length * 8).toBeGreaterThanOrEqual(128);
    const working = await taskRpc(spec, "get", taskId);
    expect(working.result).toMatchObject({ taskId, status: "working" });
    release.open();
    const done = await pollTask(spec, taskId, (t) => t.status === "completed");
    expect(done.result).toEqual({ content: [{ type: "text", text: "done slowly" }] });
  });

  it('task "never", a 2025-era client and a client that did not declare the extension get no task: the call answers in the request', async () => {
    const never = tool({ name: "never_task", description: "Never a task.", task: "never", sideEffecting: false }, async () => "inline");
    const auto = tool({ name: "auto_task", description: "Auto.", sideEffecting: false }, async () => "auto inline");
    const spec = await served([never, auto], { afterMs: 0 });
    expect((await callTool(spec, "never_task")).result).toMatchObject({ content: [{ text: "inline" }] });
    expect((await callTool(spec, "auto_task", {}, false)).result).toMatchObject({ content: [{ text: "auto inline" }] });
    expect((await callTool(spec, "auto_task", {}, false)).result?.resultType).not.toBe("task");
    // A 2025-era session: initialize, then tools/call.
    const { sdkClientFor } = await import("./helpers.js");
    await using client = await sdkClientFor(spec.url, spec.headers);
    const r = await client.callTool({ name: "auto_task", arguments: {} });
    expect(r).toMatchObject({ content: [{ text: "auto inline" }] });
    expect((r as { taskId?: unknown }).taskId).toBeUndefined();
  });

  it("the tasks extension is advertised only on 2026-07-28 (server/discover), never to a 2025-era session (initialize)", async () => {
    const spec = await served([tool({ name: "t", description: "T.", sideEffecting: false }, async () => "x")]);
    const discovered = await rpc(spec, "server/discover", {}, { name: undefined });
    expect((discovered.result as { capabilities?: { extensions?: unknown } }).capabilities?.extensions).toEqual({
      "io.modelcontextprotocol/tasks": {},
    });
    const { sdkClientFor } = await import("./helpers.js");
    await using client = await sdkClientFor(spec.url, spec.headers);
    expect(client.getServerCapabilities()).toMatchObject({ tools: {} });
    expect(client.getServerCapabilities()?.extensions).toBeUndefined();
  });

  it('task "required" without the extension: -32021 naming it on 2026-07-28, an isError result naming it on a 2025-era session; tasks/* without the extension -32021', async () => {
    let ran = 0;
    const req = tool({ name: "needs_task", description: "Needs a task.", task: "required", sideEffecting: false }, async () =>
      String(++ran),
    );
    const spec = await served([req]);
    const modern = await callTool(spec, "needs_task", {}, false);
    expect(modern.error?.code).toBe(-32021);
    expect(modern.error?.data).toMatchObject({ requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } });
    const { sdkClientFor } = await import("./helpers.js");
    await using client = await sdkClientFor(spec.url, spec.headers);
    const legacy = await client.callTool({ name: "needs_task", arguments: {} });
    expect(legacy.isError).toBe(true);
    expect((legacy.content as Array<{ text: string }>)[0]!.text).toContain("io.modelcontextprotocol/tasks");
    expect(ran).toBe(0);
    const handle = await callTool(spec, "needs_task");
    const undeclared = await taskRpc(spec, "get", handle.result!.taskId!, {}, false);
    expect(undeclared.error?.code).toBe(-32021);
  });

  it("another module's tasks/get, update and cancel get -32602, like an unknown id; tasks/list and tasks/result get -32601; a mismatched Mcp-Name is refused by the SDK (400, -32020)", async () => {
    const store = new MemoryCallRecords();
    const release = gate();
    const mine = tool({ name: "mine", description: "Mine.", task: "required", sideEffecting: false }, async () => {
      await release.wait;
      return "ok";
    });
    const a = await served([mine], { name: "alpha", store });
    // (ServedSpecs checks one spec per test; a second one is scoped here.)
    await using beta = await serveRegistry([mine], { name: "beta", ctx: makeTestCtx(), tasks: { store } });
    await beta.start();
    const b: Target = { url: beta.url!, headers: { ...beta.authHeaders } };
    const handle = await callTool(a, "mine");
    const id = handle.result!.taskId!;
    for (const verb of ["get", "update", "cancel"] as const)
      expect((await taskRpc(b, verb, id, verb === "update" ? { inputResponses: {} } : {})).error?.code).toBe(-32602);
    expect((await taskRpc(a, "get", "x".repeat(24))).error?.code).toBe(-32602);
    expect((await rpc(a, "tasks/list", {})).error?.code).toBe(-32601);
    expect((await rpc(a, "tasks/result", { taskId: id }, { name: id })).error?.code).toBe(-32601);
    const mismatch = await rpc(a, "tasks/get", { taskId: id }, { name: "another-id" });
    expect(mismatch.status).toBe(400);
    expect(mismatch.error?.code).toBe(-32020);
    expect((await taskRpc(a, "get", id)).result?.status).toBe("working");
    release.open();
  });

  it("ctx.elicit() inside a task: input_required with the question; tasks/update answers it and the task completes with the answer", async () => {
    const asking = tool({ name: "asking", description: "Asks.", task: "required", sideEffecting: false }, async (_a, ctx) => {
      const answer = await ctx.elicit({
        message: "Which colour?",
        requestedSchema: { type: "object", properties: { colour: { type: "string" } } } as never,
      });
      return `picked ${JSON.stringify(answer)}`;
    });
    const spec = await served([asking]);
    const id = (await callTool(spec, "asking")).result!.taskId!;
    const waiting = await pollTask(spec, id, (t) => t.status === "input_required");
    const [key, request] = Object.entries(waiting.inputRequests as Record<string, { method: string; params: { message: string } }>)[0]!;
    expect(request).toMatchObject({ method: "elicitation/create", params: { message: "Which colour?" } });
    const ack = await taskRpc(spec, "update", id, { inputResponses: { [key]: { action: "accept", content: { colour: "teal" } } } });
    expect(ack.error).toBeUndefined();
    const done = await pollTask(spec, id, (t) => t.status === "completed");
    expect(done.result).toEqual({ content: [{ type: "text", text: 'picked {"action":"accept","content":{"colour":"teal"}}' }] });
    // The same key again is ignored: the task stays completed with the first answer.
    await taskRpc(spec, "update", id, { inputResponses: { [key]: { action: "accept", content: { colour: "red" } } } });
    expect((await taskRpc(spec, "get", id)).result?.result).toEqual(done.result);
  });

  it("the package's own MCPClient on a served task asking two questions at once: the run's Asker answers each once (tasks/update), onProgress hears the statuses, the result names both answers", async () => {
    const both = tool({ name: "both", description: "Asks two at once.", task: "required", sideEffecting: false }, async (_a, ctx) => {
      const form = (message: string) => ({
        message,
        requestedSchema: { type: "object", properties: { name: { type: "string" } } } as never,
      });
      const [a, b] = await Promise.all([ctx.elicit(form("First name?")), ctx.elicit(form("Second name?"))]);
      return `first ${String(a.content?.name)}, second ${String(b.content?.name)}`;
    });
    const spec = await served([both]);
    const asked: string[] = [];
    const asker: Asker = {
      ask: async (q): Promise<Decision> => {
        asked.push(q.question);
        return { kind: "approve", value: { name: q.question.startsWith("First") ? "Ada" : "Grace" } };
      },
    };
    // The run opens the client (so it declares elicitation) and answers the task's questions.
    const ctx = new RunContext({ asker });
    await using client = await MCPClient.start(new StreamableHttpServer({ url: spec.url, headers: spec.headers, protocol: "2026-07-28" }), {
      ctx,
    });
    const progress: CallProgress[] = [];
    const result = await client.callTool("both", {}, { ctx, onProgress: (p) => progress.push(p) });
    expect(result.content).toEqual([{ type: "text", text: "first Ada, second Grace" }]);
    expect(asked.sort()).toEqual(["First name?", "Second name?"]);
    const statuses = progress.map((p) => p.task?.status);
    expect(statuses[0]).toBe("working");
    expect(statuses).toContain("input_required");
    expect(statuses.at(-1)).toBe("completed");
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_p, i) => i + 1));
  });

  it("tasks/cancel aborts the tool's ctx.signal; the task ends cancelled", async () => {
    let aborted: unknown;
    const started = gate();
    const endless = tool(
      { name: "endless", description: "Runs until cancelled.", task: "required", sideEffecting: false },
      async (_a, ctx) => {
        started.open();
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
        aborted = ctx.signal.reason;
        return "stopped";
      },
    );
    const spec = await served([endless]);
    const id = (await callTool(spec, "endless")).result!.taskId!;
    await started.wait;
    expect((await taskRpc(spec, "cancel", id)).error).toBeUndefined();
    const done = await pollTask(spec, id, (t) => t.status === "cancelled");
    expect(done.result).toBeUndefined();
    expect(String((aborted as Error).message)).toContain("tasks/cancel");
  });

  it("a caller that aborts while the task's handle is on its way: the answer that arrives just after is a task, and it is cancelled (not left running unknown)", async () => {
    let aborted: unknown;
    const endless = tool(
      { name: "endless", description: "Runs until cancelled.", task: "required", sideEffecting: false },
      async (_a, ctx) => {
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
        aborted = ctx.signal.reason;
        return "stopped";
      },
    );
    const spec = await served([endless]);
    await using proxy = await WireLogProxy.start(spec.url, { hold: "tools/call" });
    await using client = await MCPClient.start(new StreamableHttpServer({ url: proxy.url, headers: spec.headers, protocol: "2026-07-28" }));
    const caller = new AbortController();
    const call = client.callTool("endless", {}, { signal: caller.signal }).catch((e: unknown) => e);
    const handle = await proxy.held; // the server answered with the task's handle; the proxy holds it
    expect(handle).toContain('"resultType":"task"');
    caller.abort(new Error("the caller gave up"));
    proxy.release(); // the answer arrives just after the abort
    const err = await call;
    expect(err).toBeInstanceOf(Cancelled);
    // the server's task hears tasks/cancel: its run is cancelled, nothing goes on unknown to anyone
    await expect.poll(() => aborted).toBeDefined();
    expect(String((aborted as Error).message)).toContain("tasks/cancel");
    expect((err as Error).message).toMatch(/its answer came after that \(task \S+\), which was sent tasks\/cancel$/);
  });

  it("a tool that throws the SDK's ProtocolError ends its task failed with that error; any other throw ends it completed with an isError result", async () => {
    const rpcFail = tool({ name: "rpc_fail", description: "JSON-RPC error.", task: "required", sideEffecting: false }, async () => {
      throw new ProtocolError(-32000, "the job failed", { job: 7 });
    });
    const plainFail = tool({ name: "plain_fail", description: "Throws.", task: "required", sideEffecting: false }, async () => {
      throw new Error("boom");
    });
    const spec = await served([rpcFail, plainFail]);
    const a = (await callTool(spec, "rpc_fail")).result!.taskId!;
    const failed = await pollTask(spec, a, (t) => t.status !== "working");
    expect(failed).toMatchObject({ status: "failed", error: { code: -32000, message: "the job failed", data: { job: 7 } } });
    const b = (await callTool(spec, "plain_fail")).result!.taskId!;
    const completed = await pollTask(spec, b, (t) => t.status !== "working");
    expect(completed).toMatchObject({
      status: "completed",
      result: { isError: true, content: [{ text: "tool 'plain_fail' failed: Error: boom" }] },
    });
  });

  it("a store that fails: a required task call gets a JSON-RPC error naming the store, nothing runs, and records already made are kept", async () => {
    const store = new MemoryCallRecords();
    let ran = 0;
    const job = tool({ name: "job", description: "Job.", task: "required", sideEffecting: false }, async () => String(++ran));
    const spec = await served([job], { store });
    const first = (await callTool(spec, "job")).result!.taskId!;
    await pollTask(spec, first, (t) => t.status === "completed");
    const create = store.createRecord.bind(store);
    store.createRecord = () => Promise.reject(new Error("connection refused"));
    const refused = await callTool(spec, "job");
    expect(refused.error?.code).toBe(-32603);
    expect(refused.error?.message).toContain("the task store failed: Error: connection refused");
    expect(ran).toBe(1);
    store.createRecord = create;
    expect((await taskRpc(spec, "get", first)).result?.status).toBe("completed");
  });
});
