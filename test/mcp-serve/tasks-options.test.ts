/**
 * @module test/mcp-serve/tasks-options.test
 * The task options where they are given: `@Tool({ task })` / `tool({ task })`
 * checked when applied (a `DefinitionError` naming the tool and the accepted
 * values), `tasks` checked by `serveRegistry` and `@McpServer`; a module
 * bootstrapped with `tasks: { afterMs: 0 }` answers a declaring client with a
 * task at once; stdio (`openStdioServing`) serves tasks too.
 */
import "reflect-metadata";
import { PassThrough } from "node:stream";
import { createInterface } from "node:readline";
import { container } from "tsyringe";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DefinitionError, OptionsError, RunContext, Tool, tool } from "../../src/index.js";
import { bootstrap, McpServer, serveRegistry, type McpApp } from "../../src/mcp/index.js";
import { openStdioServing } from "../../src/mcp/serve/serve-stdio.js";
import { expirySweepMs } from "../../src/mcp/serve/served-tasks.js";
import { MemoryCallRecords } from "../../src/records/memory-call-records.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { callTool, envelope, pollTask, taskRpc, type Target } from "./tasks-helpers.js";

const apps: McpApp[] = [];
afterEach(async () => {
  while (apps.length) await apps.pop()!.stop();
});

describe("task options", () => {
  it("tool({ task }) and @Tool({ task }) take auto, required or never; anything else is a DefinitionError naming the tool and the accepted values", () => {
    expect(tool({ name: "a", description: "A.", task: "required" }, async () => "").task).toBe("required");
    expect(tool({ name: "b", description: "B." }, async () => "").task).toBe("auto");
    const bad = (() => {
      try {
        tool({ name: "c", description: "C.", task: "sometimes" as never }, async () => "");
      } catch (err) {
        return err;
      }
    })() as DefinitionError;
    expect(bad).toBeInstanceOf(DefinitionError);
    expect(bad.message).toContain("task");
    expect(bad.message).toContain('"auto"');
    expect(bad.message).toContain('"required" or "never"');
    expect(() => {
      @Tool({ description: "D.", task: 3 as never })
      class DTool {
        run(): string {
          return "";
        }
      }
      return DTool;
    }).toThrow(DefinitionError);
  });

  it("serveRegistry and @McpServer check tasks: a bad field is named with what is accepted", async () => {
    const t = tool({ name: "t", description: "T." }, async () => "");
    await expect(serveRegistry([t], { name: "engine", ctx: new RunContext(), tasks: { afterMs: -1 } })).rejects.toThrow(OptionsError);
    await expect(serveRegistry([t], { name: "engine", ctx: new RunContext(), tasks: { store: {} as never } })).rejects.toThrow(
      /tasks\.store must be a call-record store/,
    );
    expect(() => {
      @McpServer({ name: "engine", tools: [], tasks: { pollIntervalMs: 0 } })
      class M {}
      return M;
    }).toThrow(/tasks\.pollIntervalMs must be a whole number of ms from 1/);
  });

  it("a module bootstrapped with tasks { afterMs: 0 } answers a declaring client with a task at once, and with the result in the call otherwise", async () => {
    const quick = tool({ name: "quick", description: "Quick.", sideEffecting: false }, async () => "quick result");
    @McpServer({ name: "engine", tools: [quick], tasks: { afterMs: 0, pollIntervalMs: 250 } })
    class Engine {}
    const app = await bootstrap(Engine, { container: container.createChildContainer() });
    apps.push(app);
    const target: Target = { url: app.spec!.url!, headers: { ...app.spec!.authHeaders } };
    const handle = await callTool(target, "quick");
    expect(handle.result).toMatchObject({ resultType: "task", pollIntervalMs: 250 });
    const done = await pollTask(target, handle.result!.taskId!, (t) => t.status === "completed");
    expect(done.result).toEqual({ content: [{ type: "text", text: "quick result" }] });
    expect((await callTool(target, "quick", {}, false)).result).toMatchObject({ content: [{ text: "quick result" }] });
  });

  it("stdio: a 2026-07-28 client declaring the extension gets a task handle and follows it with tasks/get on the same pipe", async () => {
    const job = tool({ name: "job", description: "Job.", task: "required", sideEffecting: false }, async () => "piped");
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const serving = await openStdioServing([job], { name: "engine", ctx: new RunContext(), stdin, stdout });
    const lines = createInterface({ input: stdout });
    const replies = new Map<number, (m: Record<string, unknown>) => void>();
    lines.on("line", (line) => {
      const m = JSON.parse(line) as { id?: number };
      if (typeof m.id === "number") replies.get(m.id)?.(m as Record<string, unknown>);
    });
    let id = 0;
    const send = (
      method: string,
      params: Record<string, unknown>,
    ): Promise<{ result?: Record<string, unknown>; error?: { code: number } }> => {
      const n = ++id;
      const reply = new Promise<Record<string, unknown>>((resolve) => replies.set(n, resolve));
      stdin.write(JSON.stringify({ jsonrpc: "2.0", id: n, method, params: { ...params, _meta: envelope(true) } }) + "\n");
      return reply;
    };
    try {
      const handle = await send("tools/call", { name: "job", arguments: {} });
      expect(handle.result).toMatchObject({ resultType: "task" });
      const taskId = handle.result!.taskId as string;
      let task: Record<string, unknown> | undefined;
      for (let i = 0; i < 100 && task?.status !== "completed"; i++) task = (await send("tasks/get", { taskId })).result;
      expect(task).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "piped" }] } });
    } finally {
      lines.close();
      await serving.close();
    }
  });
});

describe("expired task records are dropped on a schedule", () => {
  it("a serving module calls the store's expireRecords every expirySweepMs (fake clock) while it serves, and not after stop(); a completed task past its ttlMs is gone", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    let serving: { stop(): Promise<void> } | undefined;
    try {
      const store = new MemoryCallRecords();
      const sweeps: Date[] = [];
      const expire = store.expireRecords.bind(store);
      store.expireRecords = (now: Date) => {
        sweeps.push(now);
        return expire(now);
      };
      const quick = tool({ name: "quick", description: "Quick.", task: "required", sideEffecting: false }, async () => "done");
      const spec = await serveRegistry([quick], { name: "engine", ctx: makeTestCtx(), tasks: { store, ttlMs: 1 } });
      serving = spec;
      await spec.start();
      const target = { url: spec.url!, headers: { ...spec.authHeaders } };
      const taskId = (await callTool(target, "quick")).result!.taskId!;
      await pollTask(target, taskId, (t) => t.status === "completed");
      const every = expirySweepMs(1);
      expect(every).toBe(60_000);
      vi.advanceTimersByTime(every - 1);
      expect(sweeps).toHaveLength(0);
      vi.advanceTimersByTime(1);
      expect(sweeps).toHaveLength(1);
      await expect.poll(() => taskRpc(target, "get", taskId).then((r) => r.error?.code)).toBe(-32602);
      await spec.stop();
      vi.advanceTimersByTime(every * 3);
      expect(sweeps).toHaveLength(1);
    } finally {
      vi.useRealTimers();
      await serving?.stop();
    }
  });

  it("expirySweepMs: a tenth of the TTL, never under a minute nor over an hour (hourly for tasks kept until deleted)", () => {
    expect(expirySweepMs(86_400_000)).toBe(3_600_000);
    expect(expirySweepMs(3_000_000)).toBe(300_000);
    expect(expirySweepMs(1_000)).toBe(60_000);
    expect(expirySweepMs(null)).toBe(3_600_000);
  });
});
