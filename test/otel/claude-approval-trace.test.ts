/**
 * @module test/otel/claude-approval-trace.test
 * The Claude CLI (real binary, fake Messages API) calls a tool served by
 * `serveRegistry` in this process, asking the `ApprovalServer` first. The
 * CLI sends no trace context on either request, so both the decision and the
 * served call join the CLI run's span for that call by its tool-use id, and
 * say so; a refusal shows as a permission denial on the process span.
 */
import "reflect-metadata";
import { IsString } from "class-validator";
import { describe, expect, it } from "vitest";
import { Agent, Tool, ToolRegistry, type Asker, type Decision } from "../../src/index.js";
import { RunContext } from "../../src/context/run-context.js";
import { ApprovalServer, serveRegistry } from "../../src/mcp/index.js";
import { mergeCliOptions, type ClaudeCliOptions } from "../../src/cli/index.js";
import { instrument } from "../../src/otel/index.js";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { hermeticClaude } from "../cli/kit/cognitions.js";
import { FakeAnthropic } from "../cli/kit/fake-anthropic.js";
import { E2E_TIMEOUT_MS, Hermetic } from "../cli/kit/hermetic.js";

const SECRET = "lint-secret-3e9d";

class RunCheckInput {
  @IsString() name!: string;
}

@Tool({ description: "Run the named check and report whether it passed.", input: RunCheckInput, sideEffecting: false })
class RunCheck {
  run(input: RunCheckInput): string {
    return `check ${input.name.length}: PASSED`;
  }
}

const asker = (decision: Decision): Asker => ({ ask: async () => decision });

async function tracedRun(decision: Decision): Promise<ReadableSpan[]> {
  await using h = Hermetic.create();
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const ctx = new RunContext();
  instrument(ctx, { tracerProvider: provider });
  await using spec = await serveRegistry(ToolRegistry.fromTools([RunCheck]), { name: "engine", ctx });
  await spec.start();
  await using approvals = new ApprovalServer({ asker: asker(decision), ctx });
  await approvals.start();
  await using api = await FakeAnthropic.start([
    { toolUses: [{ id: "toolu_traced", name: "mcp__engine__run_check", input: { name: SECRET } }] },
    { text: "finished" },
  ]);
  const cognition = hermeticClaude(
    h,
    api,
    mergeCliOptions<Partial<ClaudeCliOptions>>(spec.cliOptions({ builtinTools: false }), approvals.cliOptions()),
  );
  const result = await new Agent({ name: "dev", cognition }).run("check", ctx);
  expect(result.error).toBeUndefined();
  return exporter.getFinishedSpans();
}

const named = (spans: ReadableSpan[], name: string): ReadableSpan => {
  const s = spans.find((x) => x.name === name);
  if (!s) throw new Error(`no span '${name}' among: ${spans.map((x) => x.name).join(", ")}`);
  return s;
};

describe("otel: Claude CLI + ApprovalServer + serveRegistry in one trace", { timeout: E2E_TIMEOUT_MS }, () => {
  it("approved: the decision and the served call sit under the CLI's span for that tool-use id", async () => {
    const spans = await tracedRun({ kind: "approve", actor: "ops" });
    const proc = named(spans, "process claude");
    const call = named(spans, "execute_tool mcp__engine__run_check");
    const gate = spans.find((s) => s.name === "gate mcp__engine__run_check" && s.attributes["agentkit.gate.via"] === "approval_server")!;
    const served = named(spans, "tools/call run_check");
    expect(call.parentSpanContext?.spanId).toBe(proc.spanContext().spanId);
    expect(gate.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(gate.attributes).toMatchObject({
      "agentkit.gate.linked_by": "tool_call_id",
      "gen_ai.tool.call.id": "toolu_traced",
      "agentkit.gate.actor": "ops",
      "agentkit.gate.allowed": true,
    });
    expect(served.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(served.attributes).toMatchObject({ "agentkit.trace.linked_by": "tool_call_id", "mcp.method.name": "tools/call" });
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(JSON.stringify(spans.map((s) => [s.attributes, s.events]))).not.toContain(SECRET);
  });

  it("refused: the process span carries the permission denial; no served call", async () => {
    const spans = await tracedRun({ kind: "reject", actor: "ops", note: "not today" });
    const proc = named(spans, "process claude");
    expect(proc.events.map((e) => [e.name, e.attributes])).toContainEqual([
      "cli.permission_denial",
      { "gen_ai.tool.name": "mcp__engine__run_check", "gen_ai.tool.call.id": "toolu_traced" },
    ]);
    expect(spans.find((s) => s.name === "tools/call run_check")).toBeUndefined();
    expect(named(spans, "execute_tool mcp__engine__run_check").attributes["agentkit.tool.outcome"]).toBe("error");
  });
});
