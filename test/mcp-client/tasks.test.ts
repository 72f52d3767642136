/**
 * @module test/mcp-client/tasks.test
 * `MCPClient` consuming a server's tasks (`io.modelcontextprotocol/tasks`,
 * 2026-07-28) against the loopback fixture of test/mcp-client/task-server.ts
 * (SDK v2 low-level `Server` + `createMcpHandler` on a real socket). What the
 * server logged is the evidence: the polling period, `Mcp-Name`, the
 * declaration, `tasks/update` and `tasks/cancel` as they arrived.
 */
import { performance } from "node:perf_hooks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Cancelled, McpRequestError, OptionsError, RunContext, type Asker } from "../../src/index.js";
import { MCPClient, mcpTools, StreamableHttpServer, type MCPClientOptions } from "../../src/mcp/index.js";
import type { CallProgress, ProtocolChoice } from "../../src/mcp/client/index.js";
import { startTaskServer, type TaskServer } from "./task-server.js";
import { askerAnswering } from "../helpers/asker.js";

const POLL_MS = 50;
/**
 * The period test's interval: two cores shared by many runs put a loopback
 * round trip (client and fixture share one event loop) at 40–100 ms, so a
 * 50 ms interval would measure the machine; 200 ms measures the client.
 */
const PERIOD_POLL_MS = 200;
const text = (r: { content: Array<{ type: string; text?: string }> }): string => r.content.map((c) => c.text ?? "").join("");

let srv: TaskServer;
beforeEach(async () => {
  srv = await startTaskServer({ pollIntervalMs: POLL_MS });
});
afterEach(async () => {
  vi.useRealTimers();
  await srv.close();
});

function open(options: MCPClientOptions & { protocol?: ProtocolChoice } = {}): Promise<MCPClient> {
  const { protocol, ...rest } = options;
  return MCPClient.start(new StreamableHttpServer({ url: srv.url, ...(protocol ? { protocol } : {}) }), rest);
}

/** The gaps between consecutive arrivals, in ms. */
const gaps = (at: readonly number[]): number[] => at.slice(1).map((t, i) => t - at[i]!);

describe("callTool() resolves a task to its final result", () => {
  it("polls tasks/get at the server's pollIntervalMs, with Mcp-Name = the task id and the extension declared", async () => {
    await srv.close();
    srv = await startTaskServer({ pollIntervalMs: PERIOD_POLL_MS });
    await using client = await open();
    expect(client.protocolVersion).toBe("2026-07-28");
    const progress: CallProgress[] = [];
    const result = await client.callTool("slow", { x: 7, steps: 6 }, { onProgress: (p) => progress.push(p) });
    expect(text(result)).toBe("done: 7");

    const [call] = srv.requests("tools/call");
    expect(call!.declared, "tools/call declares the tasks extension").toBe(true);
    const [task] = [...srv.tasks.values()];
    const gets = srv.requests("tasks/get");
    expect(gets.length).toBe(6);
    for (const g of gets) {
      expect(g.mcpName).toBe(task!.taskId);
      expect(g.params.taskId).toBe(task!.taskId);
      expect(g.declared, "tasks/get declares the extension too (else -32021)").toBe(true);
    }
    // The period as the server saw it, from one tasks/get to the next.
    // The server sees arrivals, which a loaded machine delays unevenly (a late one makes the next gap short), so the
    // gaps are judged together: on average never faster than asked, and the median not much slower.
    const periods = gaps(gets.map((g) => g.at));
    const mean = periods.reduce((a, b) => a + b, 0) / periods.length;
    const median = [...periods].sort((a, b) => a - b)[periods.length >> 1]!;
    const seen = `periods ${periods.map((p) => p.toFixed(1)).join(", ")}`;
    expect(mean, `never faster than asked: ${seen}`).toBeGreaterThanOrEqual(PERIOD_POLL_MS * 0.8);
    expect(median, seen).toBeLessThanOrEqual(PERIOD_POLL_MS * 1.5);
    expect(call!.at).toBeLessThan(gets[0]!.at);

    // The status the task was handed out with (no message: its status), then each change, as { progress, message }.
    expect(progress.map((p) => p.message)).toEqual(["working", "step 1", "step 2", "step 3", "step 4", "step 5", "completed"]);
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(progress[0]!.task).toEqual({ id: task!.taskId, status: "working" });
  });

  it("the mcpTools() adapter resolves it the same way", async () => {
    await using client = await open();
    const tools = await mcpTools(client);
    const slow = tools.find((t) => t.name === "slow")!;
    expect(await slow.run({ x: "adapted", steps: 1 }, new RunContext())).toBe("done: adapted");
    expect(srv.requests("tasks/get").length).toBe(1);
  });

  it("aborting the run sends tasks/cancel within 100 ms and rejects with Cancelled", async () => {
    // A slow poll, and the abort made between two polls (on the second status message): the
    // fixture shares this process's event loop, so an abort during a poll would time its work too.
    await srv.close();
    srv = await startTaskServer({ pollIntervalMs: 300 });
    await using client = await open();
    const ctx = new RunContext();
    let abortedAt = 0;
    const onProgress = (p: CallProgress): void => {
      if (p.message !== "step 2") return;
      abortedAt = performance.now();
      ctx.cancel("the person pressed stop");
    };
    const err = await client.callTool("slow", { steps: 100 }, { ctx, onProgress }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Cancelled);
    expect((err as Error).message).toMatch(/cancelled while its task .+ ran; the server was sent tasks\/cancel/);
    const cancel = await srv.arrival("tasks/cancel");
    expect(cancel.at - abortedAt, "tasks/cancel arrived within 100 ms of the abort").toBeLessThan(100);
    const [task] = [...srv.tasks.values()];
    expect(cancel.mcpName).toBe(task!.taskId);
    expect(cancel.params.taskId).toBe(task!.taskId);
    expect(srv.requests("tasks/get"), "no poll after the abort").toHaveLength(2);
  });

  it("a signal aborted with a Cancelled as its reason (agentkit call's Ctrl-C) still sends tasks/cancel, and close() at once lets it reach the server", async () => {
    const client = await open();
    const stop = new AbortController();
    const onProgress = (p: CallProgress): void => {
      if (p.message === "step 1") stop.abort(new Cancelled("interrupted (Ctrl-C)"));
    };
    const err = await client.callTool("slow", { steps: 100 }, { signal: stop.signal, onProgress }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Cancelled);
    await client.stop();
    const [task] = [...srv.tasks.values()];
    const cancels = srv.requests("tasks/cancel");
    expect(cancels.map((c) => c.params.taskId)).toEqual([task!.taskId]);
    expect(cancels[0]!.mcpName).toBe(task!.taskId);
  });

  it("input_required: the run's Asker is asked once per key, and tasks/update carries the answer", async () => {
    await using client = await open();
    const asker = askerAnswering({ kind: "approve", value: { colour: "blue" } });
    const result = await client.callTool("ask", {}, { ctx: new RunContext({ asker }) });
    expect(text(result)).toBe("colour: blue");
    // The question stayed in the next poll's inputRequests too: asked once all the same.
    expect(asker.seen).toHaveLength(1);
    expect(asker.seen[0]).toMatchObject({
      question: "Which colour?",
      source: "mcp_elicitation",
      form: { schema: { properties: { colour: { type: "string" } } } },
    });
    const [task] = [...srv.tasks.values()];
    const updates = srv.requests("tasks/update");
    expect(updates).toHaveLength(1);
    expect(updates[0]!.mcpName).toBe(task!.taskId);
    expect(updates[0]!.params).toMatchObject({
      taskId: task!.taskId,
      inputResponses: { colour: { action: "accept", content: { colour: "blue" } } },
    });
  });

  it("two open questions: each key asked once across every poll, each answer sent", async () => {
    await using client = await open();
    const asked: string[] = [];
    const asker: Asker = {
      ask: async (q) => {
        asked.push(q.question);
        return { kind: "approve", value: q.question === "Which colour?" ? { colour: "red" } : { size: "L" } };
      },
    };
    const result = await client.callTool("ask_twice", {}, { ctx: new RunContext({ asker }) });
    expect(text(result)).toBe("colour: red, size: L");
    expect(asked.sort()).toEqual(["Which colour?", "Which size?"]);
    const sent = Object.assign({}, ...srv.requests("tasks/update").map((u) => u.params.inputResponses as object)) as Record<
      string,
      unknown
    >;
    expect(sent).toEqual({ colour: { action: "accept", content: { colour: "red" } }, size: { action: "accept", content: { size: "L" } } });
  });

  it("a task's final result is checked against the listed tool's outputSchema (the SDK checks only a call's own answer); an error result is not", async () => {
    await using client = await open();
    await client.listTools();
    expect((await client.callTool("shaped", { n: 1 })).structuredContent).toEqual({ n: 1 });
    const err = await client.callTool("shaped", { n: "one" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpRequestError);
    expect((err as Error).message).toMatch(
      /^MCP tools\/call 'shaped' on .* failed: Structured content does not match the tool's output schema: /,
    );
    expect((await client.callTool("shaped", { n: "one", isError: true })).isError).toBe(true);
  });

  it("a failed task surfaces as McpRequestError naming the task and its JSON-RPC error", async () => {
    await using client = await open();
    const err = await client.callTool("fail").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpRequestError);
    const [task] = [...srv.tasks.values()];
    expect((err as McpRequestError).rpcCode).toBe(-32603);
    expect((err as Error).message).toBe(`MCP tools/call 'fail' on ${client.server} failed: task ${task!.taskId} failed: disk on fire`);
  });

  it("a task that outlives its ttlMs fails with McpRequestError naming it (fake clock)", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    await using client = await open();
    const pending = client.callTool("expiring").catch((e: unknown) => e);
    await srv.arrival("tasks/get", 2);
    vi.setSystemTime(Date.now() + 301);
    const err = await pending;
    expect(err).toBeInstanceOf(McpRequestError);
    const [task] = [...srv.tasks.values()];
    expect((err as Error).message).toContain(
      `task ${task!.taskId} outlived its ttlMs (300 ms from ${task!.createdAt}) while still working`,
    );
    const polls = srv.requests("tasks/get").length;
    expect(polls, "no poll after the task expired").toBeLessThanOrEqual(3);
  });
});

describe("startTool() and resumeTask()", () => {
  it("startTool returns an McpTask: id, status, a plain-JSON reference, result()", async () => {
    await using client = await open();
    const task = await client.startTool("slow", { x: 1, steps: 2 });
    const [held] = [...srv.tasks.values()];
    expect(task.id).toBe(held!.taskId);
    expect(task.status).toBe("working");
    expect(JSON.parse(JSON.stringify(task.reference))).toEqual(task.reference);
    expect(task.reference).toEqual({
      kind: "mcp-task",
      server: String(client.server),
      tool: "slow",
      taskId: held!.taskId,
      createdAt: held!.createdAt,
      ttlMs: 60_000,
    });
    expect(srv.requests("tasks/get"), "nothing is polled before result()").toHaveLength(0);
    expect(text(await task.result())).toBe("done: 1");
    expect(task.status).toBe("completed");
  });

  it("an answer that came in the call is an McpTask already completed, id and reference null", async () => {
    await using client = await open();
    const task = await client.startTool("quick");
    expect(task.status).toBe("completed");
    expect(task.id).toBeNull();
    expect(task.reference).toBeNull();
    expect(text(await task.result())).toBe("quick answered in the call");
    await task.cancel(); // a no-op
    expect(srv.requests("tasks/cancel")).toHaveLength(0);
  });

  it("resumeTask(reference) on a new MCPClient (a restart) returns the same task and resolves it", async () => {
    let stored: string;
    {
      await using first = await open();
      const task = await first.startTool("slow", { x: "resumed", steps: 2 });
      stored = JSON.stringify(task.reference);
    }
    const reference = JSON.parse(stored) as Parameters<MCPClient["resumeTask"]>[0];
    await using second = await open();
    const task = await second.resumeTask(reference);
    expect(task.id).toBe(reference.taskId);
    expect(task.reference).toEqual(reference);
    expect(task.status).toBe("working");
    expect(text(await task.result())).toBe("done: resumed");
    for (const g of srv.requests("tasks/get")) expect(g.mcpName).toBe(reference.taskId);
  });

  it("McpTask.cancel() sends tasks/cancel and ends a pending result() with Cancelled", async () => {
    await using client = await open();
    const task = await client.startTool("forever");
    const pending = task.result().catch((e: unknown) => e);
    await srv.arrival("tasks/get");
    await task.cancel();
    expect(await pending).toBeInstanceOf(Cancelled);
    expect(srv.requests("tasks/cancel").map((c) => c.mcpName)).toEqual([task.id]);
    expect(srv.tasks.get(task.id!)!.status).toBe("cancelled");
  });

  it("resumeTask refuses a reference to another server, and names an unknown task", async () => {
    await using client = await open();
    const other = {
      kind: "mcp-task",
      server: "http://127.0.0.1:1/mcp",
      tool: "slow",
      taskId: "t-1",
      createdAt: null,
      ttlMs: null,
    } as const;
    const refused = await client.resumeTask(other).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OptionsError);
    expect((refused as Error).message).toBe(
      `MCPClient.resumeTask: the task t-1 was started on http://127.0.0.1:1/mcp, and this client is connected to ${client.server}`,
    );
    const unknown = await client.resumeTask({ ...other, server: String(client.server), taskId: "no-such-task" }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(McpRequestError);
    expect((unknown as McpRequestError).rpcCode).toBe(-32602);
    expect((unknown as Error).message).toContain("tasks/get 'no-such-task'");
  });
});

describe("who never sees a task", () => {
  it("open(server, { tasks: false }): nothing declares the extension, and the server answers in the call", async () => {
    await using client = await open({ tasks: false });
    expect(text(await client.callTool("slow", { x: 1 }))).toBe("slow answered in the call");
    expect(srv.log.filter((l) => l.declared)).toEqual([]);
    expect(srv.requests("tasks/get")).toEqual([]);
  });

  it("a 2025-era connection never declares it and never sees a task", async () => {
    await using client = await open({ protocol: "2025-11-25" });
    expect(client.protocolVersion).toBe("2025-11-25");
    const task = await client.startTool("slow", { x: 1 });
    expect(task.id).toBeNull();
    expect(text(await task.result())).toBe("slow answered in the call");
    expect(srv.log.filter((l) => l.declared)).toEqual([]);
  });
});
