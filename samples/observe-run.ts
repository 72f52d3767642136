/**
 * @module samples/observe-run
 * Observe a run: `instrument(ctx)` turns a run's events into OpenTelemetry
 * spans (GenAI conventions). Here a scripted model calls `deploy`, a tool
 * that needs a person's approval; an Asker approves as "alice". The spans go
 * to the SDK's in-memory exporter and are printed as a tree — in production,
 * hand `instrument()` your own provider (a BatchSpanProcessor with the
 * OTLP exporter) and they reach your collector instead. No key, no network.
 */
import { Agent, ReActCognition, RunContext, tool, type Asker } from "arc-agentkit";
import { FakeLLM, Turn } from "arc-agentkit/testing";
import { instrument } from "arc-agentkit/otel";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from "@opentelemetry/sdk-trace";

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });

const deploy = tool(
  {
    name: "deploy",
    description: "Deploy a service.",
    requiresApproval: true,
    input: { type: "object", properties: { service: { type: "string" } }, required: ["service"] },
  },
  async ({ service }: { service: string }) => `deployed ${service}`,
);
const alice: Asker = { ask: async () => ({ kind: "approve", actor: "alice" }) };
const llm = FakeLLM.script([
  new Turn({
    toolCalls: [{ id: "call_1", name: "deploy", arguments: { service: "payments" } }],
    usage: { inputTokens: 12, outputTokens: 4 },
  }),
  new Turn({ content: "Deployed.", usage: { inputTokens: 20, outputTokens: 2 } }),
]);

const ctx = new RunContext({ llm, asker: alice, autonomy: "gated" });
const detach = instrument(ctx, { tracerProvider: provider });
const result = await new Agent({ name: "ops", model: "demo-model", cognition: new ReActCognition({ tools: [deploy] }) }).run(
  "Deploy payments.",
  ctx,
);
detach();
await provider.forceFlush();

/** The attributes worth a glance, per span kind. */
const SHOWN = [
  "gen_ai.usage.input_tokens",
  "gen_ai.usage.output_tokens",
  "gen_ai.tool.call.id",
  "agentkit.tool.outcome",
  "agentkit.gate.source",
  "agentkit.gate.allowed",
  "agentkit.gate.actor",
  "agentkit.stop_reason",
];

function print(span: ReadableSpan, all: readonly ReadableSpan[], depth: number): void {
  const facts = SHOWN.filter((k) => span.attributes[k] !== undefined).map((k) => `${k}=${String(span.attributes[k])}`);
  console.log(`${"  ".repeat(depth)}${span.name}${facts.length ? `  [${facts.join(" ")}]` : ""}`);
  const kids = all
    .filter((s) => s.parentSpanContext?.spanId === span.spanContext().spanId)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  for (const kid of kids) print(kid, all, depth + 1);
}

const spans = exporter.getFinishedSpans();
console.log(`output: ${result.output}`);
console.log(`spans: ${spans.length}`);
console.log(`traces: ${new Set(spans.map((s) => s.spanContext().traceId)).size}`);
for (const root of spans.filter((s) => !s.parentSpanContext)) print(root, spans, 0);
await provider.shutdown();
