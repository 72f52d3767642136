/**
 * @module test/otel/cli-trace.test
 * Traced `ClaudeCliCognition` and `CodexCliCognition` runs on the real pinned
 * binaries (against the fake model APIs): the process gets a span with its
 * init, tool calls and exit; the binary is handed `TRACEPARENT`, and with its
 * own telemetry switched on (OTLP/HTTP JSON to the same receiver) its spans
 * continue our trace — measured for both.
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/index.js";
import { RunContext } from "../../src/context/run-context.js";
import { instrument } from "../../src/otel/index.js";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { hermeticClaude, hermeticCodex } from "../cli/kit/cognitions.js";
import { FakeOpenAI } from "../cli/kit/fake-openai.js";
import { FakeAnthropic } from "../cli/kit/fake-anthropic.js";
import { EngineFixture } from "../cli/kit/engine-fixture.js";
import { E2E_TIMEOUT_MS, Hermetic } from "../cli/kit/hermetic.js";
import { otlpReceiver } from "./otlp-receiver.js";

describe("otel: CLI runs", { timeout: E2E_TIMEOUT_MS }, () => {
  it("gets a process span with its init, tool call and exit; the binary reads TRACEPARENT", async () => {
    await using receiver = await otlpReceiver();
    await using h = Hermetic.create();
    await using engine = await EngineFixture.start({ check: (name) => `check ${name}: PASSED` });
    await using api = await FakeAnthropic.start([
      { toolUses: [{ id: "toolu_cli", name: "mcp__engine__run_check", input: { name: "lint" } }] },
      { text: "all checks passed" },
    ]);
    const provider = new TracerProvider({
      spanProcessors: [
        new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: receiver.url, headers: { "x-test-process": "agent" } }) }),
      ],
    });
    const ctx = new RunContext();
    instrument(ctx, { tracerProvider: provider });
    const telemetry = {
      DISABLE_TELEMETRY: undefined,
      CLAUDE_CODE_ENABLE_TELEMETRY: "1",
      CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: "1",
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_METRICS_EXPORTER: "none",
      OTEL_LOGS_EXPORTER: "none",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url,
      OTEL_TRACES_EXPORT_INTERVAL: "200",
    } satisfies Record<string, string | undefined>;
    const cognition = hermeticClaude(h, api, {
      mcpConfig: [engine.mcpConfig()],
      allowedTools: ["mcp__engine__run_check"],
      builtinTools: false,
      env: telemetry,
    });
    const result = await new Agent({ name: "dev", cognition }).run("check lint", ctx);
    expect(result.stopReason).toBe("complete");
    await provider.forceFlush();
    await provider.shutdown();
    const ours = receiver.spans.filter((s) => s.service === "agent");
    const proc = ours.find((s) => s.name === "process claude")!;
    expect(proc).toBeDefined();
    expect(proc.attributes).toMatchObject({
      "agentkit.cli.name": "claude",
      "agentkit.cli.exit.how": "exit",
      "process.exit.code": 0,
      "gen_ai.request.model": "fake-model",
    });
    expect(proc.events).toContain("cli.init");
    const call = ours.find((s) => s.name === "execute_tool mcp__engine__run_check")!;
    expect(call).toMatchObject({ parentSpanId: proc.spanId, traceId: proc.traceId });
    expect(call.attributes).toMatchObject({ "gen_ai.tool.call.id": "toolu_cli", "agentkit.tool.outcome": "ok" });
    const run = ours.find((s) => s.name === "invoke_agent dev")!;
    expect(proc.parentSpanId).toBe(run.spanId);
    // Measured: the binary's own spans (its telemetry on) continue our trace, its interaction under our process span.
    const theirs = receiver.spans.filter((s) => s.service === "claude-code");
    expect(theirs.length).toBeGreaterThan(0);
    for (const s of theirs) expect(s.traceId).toBe(proc.traceId);
    expect(theirs.find((s) => s.name === "claude_code.interaction")?.parentSpanId).toBe(proc.spanId);
  });

  it("a Codex CLI run: process span; the binary reads TRACEPARENT", async () => {
    await using receiver = await otlpReceiver();
    await using h = Hermetic.create();
    await using api = await FakeOpenAI.start([{ text: "hello back" }]);
    const provider = new TracerProvider({
      spanProcessors: [
        new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: receiver.url, headers: { "x-test-process": "agent" } }) }),
      ],
    });
    const ctx = new RunContext();
    instrument(ctx, { tracerProvider: provider });
    const config = { "otel.trace_exporter.otlp-http.endpoint": receiver.url, "otel.trace_exporter.otlp-http.protocol": "json" };
    const result = await new Agent({ name: "dev", cognition: hermeticCodex(h, api, { config }) }).run("say hello", ctx);
    expect(result.stopReason).toBe("complete");
    await provider.forceFlush();
    await provider.shutdown();
    const proc = receiver.spans.find((s) => s.service === "agent" && s.name === "process codex")!;
    expect(proc.attributes).toMatchObject({ "agentkit.cli.name": "codex", "agentkit.cli.exit.how": "exit", "process.exit.code": 0 });
    // Measured: with its [otel] trace exporter configured, codex continues our trace: its root span `codex.exec` sits under our process span.
    const theirs = receiver.spans.filter((s) => s.service === "codex_exec");
    expect(theirs.find((s) => s.name === "codex.exec")).toMatchObject({ traceId: proc.traceId, parentSpanId: proc.spanId });
    expect(theirs.filter((s) => s.traceId === proc.traceId).length).toBeGreaterThan(theirs.length / 2);
  });
});
