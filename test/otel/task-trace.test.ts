/**
 * @module test/otel/task-trace.test
 * An MCP task's events on the served call's span: a traced served module
 * (`instrument(ctx)`) answers a guarded call with a task; the `tools/call`
 * span carries `mcp.task.created`, `mcp.task.question`, `mcp.task.answered`
 * and `mcp.task.status` with the task id and who answered, and never the
 * call's argument values.
 */
import { afterEach, describe, expect, it } from "vitest";
import { RunContext, tool, type Asker } from "../../src/index.js";
import { approvalGuard } from "../../src/mcp/approvals/index.js";
import { serveRegistry, type McpServerSpec } from "../../src/mcp/serve/index.js";
import { instrument } from "../../src/otel/index.js";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { callTool, pollTask, type Target } from "../mcp-serve/tasks-helpers.js";

const stops: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

/** An Asker the test answers (`approve()`), as a person would. */
function personAsker(): Asker & { approve(): void; asked: Promise<void> } {
  let approve!: () => void;
  let asked!: () => void;
  const wasAsked = new Promise<void>((resolve) => (asked = resolve));
  const answer = new Promise<void>((resolve) => (approve = resolve));
  return { ask: () => (asked(), answer.then(() => ({ kind: "approve", actor: "a person" }) as const)), approve, asked: wasAsked };
}

describe("MCP task events in the trace", () => {
  it("the served call's span carries mcp.task.* events with the task id, statuses and who answered, never argument values", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const ctx = new RunContext();
    const detach = instrument(ctx, { tracerProvider: provider });
    stops.push(detach);
    const deploy = tool(
      {
        name: "deploy",
        description: "Deploy.",
        input: { type: "object", properties: { secret: { type: "string" } } },
        requiresApproval: true,
      },
      async () => "deployed",
    );
    const person = personAsker();
    const spec: McpServerSpec = await serveRegistry([deploy], { name: "engine", ctx, guard: approvalGuard({ asker: person }) });
    stops.push(() => spec.stop());
    await spec.start();
    const target: Target = { url: spec.url!, headers: { ...spec.authHeaders } };
    const id = (await callTool(target, "deploy", { secret: "hunter2-value" })).result!.taskId!;
    await person.asked;
    person.approve();
    await pollTask(target, id, (t) => t.status === "completed");
    await expect
      .poll(
        () =>
          exporter
            .getFinishedSpans()
            .flatMap((s) => s.events.map((e) => e.name))
            .filter((n) => n.startsWith("mcp.task.")),
        { timeout: 5_000 },
      )
      .toEqual(["mcp.task.created", "mcp.task.question", "mcp.task.answered", "mcp.task.status"]);
    const span = exporter.getFinishedSpans().find((s) => s.events.some((e) => e.name === "mcp.task.created"))!;
    const events = Object.fromEntries(span.events.map((e) => [e.name, e.attributes]));
    expect(events["mcp.task.created"]).toMatchObject({ "mcp.task.id": id, "mcp.task.status": "working", "mcp.tool.name": "deploy" });
    expect(events["mcp.task.answered"]).toMatchObject({ "mcp.task.id": id, "mcp.task.answered_by": "the run's Asker" });
    expect(events["mcp.task.status"]).toMatchObject({ "mcp.task.status": "completed" });
    expect(JSON.stringify(span.events)).not.toContain("hunter2-value");
  });
});
