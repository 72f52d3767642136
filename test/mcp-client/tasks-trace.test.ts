/**
 * @module test/mcp-client/tasks-trace.test
 * A traced run (`instrument()`, the real OpenTelemetry SDK, an in-memory
 * exporter) calling a tool its server answers with a task: the client span
 * records the task id and each status transition (`mcp.task.*`), never an
 * argument value.
 */
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RunContext, type Asker } from "../../src/index.js";
import { MCPClient, StreamableHttpServer } from "../../src/mcp/index.js";
import { instrument } from "../../src/otel/index.js";
import { startTaskServer, type TaskServer } from "./task-server.js";

const SECRET = "hunter2-argument-value";

let srv: TaskServer;
beforeEach(async () => {
  srv = await startTaskServer({ pollIntervalMs: 20 });
});
afterEach(async () => {
  await srv.close();
});

function traced(asker?: Asker): { ctx: RunContext; spans: () => ReadableSpan[]; detach: () => void } {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const ctx = new RunContext(asker ? { asker } : {});
  return { ctx, spans: () => exporter.getFinishedSpans(), detach: instrument(ctx, { tracerProvider: provider }) };
}

const statuses = (span: ReadableSpan): unknown[] =>
  span.events.filter((e) => e.name === "mcp.task.status").map((e) => e.attributes?.["mcp.task.status"]);

describe("traces of a task", () => {
  it("callTool: one client span with mcp.task.id and every status transition, no argument value", async () => {
    const run = traced({ ask: async () => ({ kind: "approve", value: { colour: SECRET } }) });
    await using client = await MCPClient.start(new StreamableHttpServer({ url: srv.url }));
    await client.callTool("ask", { note: SECRET }, { ctx: run.ctx });
    run.detach();
    const span = run.spans().find((s) => s.name === "tools/call ask");
    expect(
      span,
      run
        .spans()
        .map((s) => s.name)
        .join(", "),
    ).toBeDefined();
    const [task] = [...srv.tasks.values()];
    expect(span!.attributes["mcp.task.id"]).toBe(task!.taskId);
    expect(span!.attributes["mcp.task.status"]).toBe("completed");
    expect(statuses(span!)).toEqual(["working", "input_required", "working", "completed"]);
    for (const e of span!.events) expect(e.attributes?.["mcp.task.id"]).toBe(task!.taskId);
    expect(JSON.stringify(run.spans().map((s) => [s.attributes, s.events])), "no argument or answer value in any span").not.toContain(
      SECRET,
    );
  });

  it("startTool: the call's span names the task; result() is its own tasks/get span", async () => {
    const run = traced();
    await using client = await MCPClient.start(new StreamableHttpServer({ url: srv.url }));
    const task = await client.startTool("slow", { x: SECRET, steps: 1 }, { ctx: run.ctx });
    await task.result();
    run.detach();
    const call = run.spans().find((s) => s.name === "tools/call slow")!;
    expect(call.attributes).toMatchObject({ "mcp.task.id": task.id, "mcp.task.status": "working" });
    const polled = run.spans().find((s) => s.name === "tasks/get slow")!;
    expect(polled.attributes["mcp.task.id"]).toBe(task.id);
    expect(statuses(polled)).toEqual(["working", "completed"]);
    expect(JSON.stringify(run.spans().map((s) => [s.attributes, s.events]))).not.toContain(SECRET);
  });
});
