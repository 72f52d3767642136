/**
 * @module bench/suites/otel.bench
 * Benchmark 9, tracing cost: a served `tools/call` (the package's client to
 * the package's server over loopback HTTP, both sides traced), one ReAct turn
 * through a real provider against the model API fake, and the model-free
 * loop on `FakeLLM`, with tracing off, with
 * `instrument()` on the API's no-op provider, and with the SDK's batch
 * processor exporting over OTLP/HTTP to a receiver in this process; plus,
 * for the two judged paths, the SDK's floor: the same spans made by hand on
 * the same provider around an untraced op (shown, not judged).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, ReActCognition, RunContext, tool, ToolRegistry } from "arc-agentkit";
import { MCPClient, serveRegistry, StreamableHttpServer, type McpServerSpec } from "arc-agentkit/mcp";
import { AnthropicLLM } from "arc-agentkit/models";
import { FakeLLM, Turn } from "arc-agentkit/testing";
import { instrument } from "arc-agentkit/otel";
import { startServer, type ChildServer } from "../lib/child-server.js";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { ROOT_CONTEXT, SpanKind, trace, type Tracer } from "@opentelemetry/api";
import { abba, medianRatio, roundRatios } from "../lib/abba.js";
import { pick, type BenchConfig, type Suite } from "../lib/config.js";
import type { Goal, Section } from "../lib/report.js";
import { int, ms, percentile, ratio } from "../lib/stats.js";

const MODES = ["off", "noop", "batch"] as const;
/** The judged paths also run the SDK floor: their spans made by hand, no agentkit tracing. */
const FLOOR_MODES = [...MODES, "sdk"] as const;
/** One batch: each op's latency (ms) and this process's CPU over the batch (µs). */
interface Batch {
  readonly lat: number[];
  readonly cpuUs: number;
}
type Mode = (typeof FLOOR_MODES)[number];
const LABEL: Record<Mode, string> = {
  off: "tracing off",
  noop: "instrument(), no-op provider",
  batch: "instrument(), batch processor + OTLP/HTTP exporter",
  sdk: "SDK floor: the same spans by hand, same provider (not judged)",
};

/** A receiver that takes OTLP/HTTP exports and drops them (the batch exporter's far end). */
async function sink(): Promise<{ url: string; bytes: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  const server: Server = createServer((req, res) => {
    req.on("data", (c: Buffer) => (bytes += c.length));
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    bytes: () => bytes,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/**
 * The SDK's own share of a served call: the two spans the traced modes make
 * (client, and the server's under it), with as many attributes, made by hand
 * around an untraced call on the same provider.
 */
async function floorCall(tracer: Tracer, call: () => Promise<unknown>): Promise<void> {
  const client = tracer.startSpan("tools/call echo", {
    kind: SpanKind.CLIENT,
    attributes: { "mcp.method.name": "tools/call", "agentkit.mcp.server": "bench", "gen_ai.tool.name": "echo" },
  });
  const server = tracer.startSpan(
    "tools/call echo",
    {
      kind: SpanKind.SERVER,
      attributes: {
        "mcp.method.name": "tools/call",
        "agentkit.mcp.server": "bench",
        "gen_ai.tool.name": "echo",
        "agentkit.run.id": "run-1",
        "agentkit.trace.linked_by": "traceparent",
        "gen_ai.operation.name": "execute_tool",
      },
    },
    trace.setSpan(ROOT_CONTEXT, client),
  );
  await call();
  server.end();
  client.end();
}

/** The SDK's own share of one ReAct turn: `invoke_agent` and `chat` with the traced modes' attributes, made by hand around an untraced run. */
async function floorTurn<T>(tracer: Tracer, run: () => Promise<T>): Promise<T> {
  const agent = tracer.startSpan("invoke_agent bench", {
    attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "bench", "agentkit.run.id": "run-1" },
  });
  const chat = tracer.startSpan(
    "chat m",
    { kind: SpanKind.CLIENT, attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "agentkit.step": 1 } },
    trace.setSpan(ROOT_CONTEXT, agent),
  );
  const result = await run();
  chat.setAttributes({
    "gen_ai.response.model": "m",
    "gen_ai.usage.input_tokens": 5,
    "gen_ai.usage.output_tokens": 2,
    "gen_ai.response.finish_reasons": ["end_turn"],
  });
  chat.end();
  agent.setAttributes({ "agentkit.stop_reason": "complete", "agentkit.step": 1 });
  agent.end();
  return result;
}

/** A traced context for `mode` (`undefined` provider: the API's global, a no-op here). */
function tracedCtx(mode: Mode, provider: TracerProvider, options: ConstructorParameters<typeof RunContext>[0] = {}): RunContext {
  const ctx = new RunContext(options);
  if (mode === "noop") instrument(ctx);
  if (mode === "batch") instrument(ctx, { tracerProvider: provider });
  return ctx;
}

const echo = tool(
  {
    name: "echo",
    description: "Echo the text.",
    sideEffecting: false,
    input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  async ({ text }: { text: string }) => text,
);

async function run(cfg: BenchConfig): Promise<Section> {
  const rounds = pick(cfg, 6, 3);
  const batch = pick(cfg, 300, 60);
  const receiver = await sink();
  let modelApi: ChildServer | undefined;
  const provider = new TracerProvider({
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: receiver.url }) })],
  });
  const floor = provider.getTracer("bench-sdk-floor");
  const specs = new Map<Mode, McpServerSpec>();
  const clients = new Map<Mode, { client: MCPClient; ctx: RunContext }>();
  try {
    modelApi = await startServer("model-api");
    // A pair per mode, the floor's (untraced) included: no pair serves two modes, so none is warmed by another's calls.
    for (const mode of FLOOR_MODES) {
      const spec = await serveRegistry(ToolRegistry.fromTools([echo]), { name: "bench", ctx: tracedCtx(mode, provider) });
      await spec.start();
      specs.set(mode, spec);
      const client = await MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: { ...spec.authHeaders } }));
      clients.set(mode, { client, ctx: tracedCtx(mode, provider) });
    }
    const served = async (mode: Mode, start: number, n: number): Promise<number[]> => {
      const { client, ctx } = clients.get(mode)!;
      const lat: number[] = [];
      for (let k = 0; k < n; k++) {
        const t0 = performance.now();
        if (mode === "sdk") await floorCall(floor, () => client.callTool("echo", { text: `x${start + k}` }, { ctx }));
        else await client.callTool("echo", { text: `x${start + k}` }, { ctx });
        lat.push(performance.now() - t0);
      }
      return lat;
    };
    const agent = new Agent({ name: "bench", cognition: new ReActCognition({ tools: [echo] }) });
    /** Model-free: FakeLLM's tool call, then its answer (the loop and tracing alone). */
    const loop = async (mode: Mode, start: number, n: number): Promise<number[]> => {
      const lat: number[] = [];
      for (let k = 0; k < n; k++) {
        const ctx = tracedCtx(mode, provider, {
          llm: FakeLLM.script([
            new Turn({
              toolCalls: [{ id: `c${k}`, name: "echo", arguments: { text: `t${start + k}` } }],
              usage: { inputTokens: 5, outputTokens: 2 },
            }),
            new Turn({ content: "done" }),
          ]),
        });
        const t0 = performance.now();
        const result = await agent.run(`task ${start + k}`, ctx);
        lat.push(performance.now() - t0);
        if (result.stopReason !== "complete") throw new Error(`react run ${k}: ${result.stopReason}`);
      }
      return lat;
    };
    /** One ReAct turn with a real provider: AnthropicLLM (the real SDK, streaming) against the model API fake in a child process. */
    const llm = new AnthropicLLM({ apiKey: "bench", baseURL: modelApi.url, maxRetries: 0, maxTokens: 64 });
    const talker = new Agent({ name: "bench", model: "m", cognition: new ReActCognition({ tools: [] }) });
    const turn = async (mode: Mode, start: number, n: number): Promise<number[]> => {
      const lat: number[] = [];
      for (let k = 0; k < n; k++) {
        const ctx = tracedCtx(mode, provider, { llm });
        const t0 = performance.now();
        const result =
          mode === "sdk"
            ? await floorTurn(floor, () => talker.run(`hello ${start + k}`, ctx))
            : await talker.run(`hello ${start + k}`, ctx);
        lat.push(performance.now() - t0);
        if (result.stopReason !== "complete") throw new Error(`turn ${k}: ${result.stopReason} ${result.error?.message ?? ""}`);
      }
      return lat;
    };
    for (const mode of FLOOR_MODES) {
      await served(mode, 0, 50);
      if (mode !== "sdk") await loop(mode, 0, 200);
      await turn(mode, 0, 50);
    }
    let next = 1000;
    /** One batch with this process's CPU over it (client, server, tracer and exporter all run here): CPU per op is steadier than wall time on a loaded machine. */
    const timed = async (run: () => Promise<number[]>): Promise<Batch> => {
      const c0 = process.cpuUsage();
      const lat = await run();
      const c = process.cpuUsage(c0);
      return { lat, cpuUs: c.user + c.system };
    };
    const callRounds = await abba(FLOOR_MODES, rounds, (m) => timed(() => served(m as Mode, (next += batch), batch)));
    const turnRounds = await abba(FLOOR_MODES, rounds, (m) => timed(() => turn(m as Mode, (next += batch), batch)));
    const loopRounds = await abba(MODES, rounds, (m) => timed(() => loop(m as Mode, (next += batch * 4), batch * 4)));
    await provider.forceFlush();
    const p50 = (b: Batch[]): number =>
      percentile(
        b.flatMap((x) => x.lat),
        0.5,
      );
    const cpuPerOp = (b: Batch[]): number => b.reduce((t, x) => t + x.cpuUs, 0) / b.reduce((t, x) => t + x.lat.length, 0);
    const rows: string[][] = [];
    const goals: Goal[] = [];
    const paths = [
      ["served tools/call (client + server traced)", callRounds, true],
      ["ReAct turn, AnthropicLLM vs the model API fake", turnRounds, true],
      ["ReAct run on FakeLLM (2 turns, 1 tool call; no model: the loop alone)", loopRounds, false],
    ] as const;
    for (const [what, results, judged] of paths) {
      for (const mode of judged ? FLOOR_MODES : MODES) {
        const all = results
          .get(mode)!
          .flat()
          .flatMap((b) => b.lat);
        const r = mode === "off" ? undefined : medianRatio(roundRatios(results, mode, "off", p50));
        const c = mode === "off" ? undefined : medianRatio(roundRatios(results, mode, "off", cpuPerOp));
        const cpuAll = cpuPerOp(results.get(mode)!.flat());
        rows.push([
          what,
          LABEL[mode],
          ms(percentile(all, 0.5)),
          ms(percentile(all, 0.99)),
          r ? `${ratio(r.median)} (${ratio(r.min)}–${ratio(r.max)})` : "1.00x",
          cpuAll < 100 ? cpuAll.toFixed(1) : int(cpuAll),
          c ? `${ratio(c.median)} (${ratio(c.min)}–${ratio(c.max)})` : "1.00x",
        ]);
        if (!judged) continue;
        if (mode === "noop")
          goals.push({ goal: `${what}: no-op provider p50 within 1.02x of off`, measured: ratio(r!.median), met: r!.median <= 1.02 });
        if (mode === "batch")
          goals.push({ goal: `${what}: batch exporter p50 within 1.10x of off`, measured: ratio(r!.median), met: r!.median <= 1.1 });
      }
    }
    return {
      id: "otel",
      title: "9. Tracing cost (arc-agentkit/otel)",
      method:
        `In one process: four loopback HTTP servers (serveRegistry, one \`echo\` tool) and four MCPClients, one pair per mode (the SDK floor's untraced); an Agent with ReActCognition and AnthropicLLM against the model API fake in a child process (one streamed turn); ` +
        `and the same loop over FakeLLM (a tool call, then the answer; no model, so only the loop's own microseconds: shown, not judged). A fresh RunContext per run, instrumented per run in the traced modes. Modes: tracing off; \`instrument()\` on the API's no-op provider (no SDK registered); \`instrument()\` on the SDK's TracerProvider with a BatchSpanProcessor and the OTLP/HTTP exporter ` +
        `posting to a receiver in this process. ${rounds} ABBA rounds (A B C C B A, rotating) of ${batch} sequential calls and ${batch} turns, and ${batch * 4} model-free runs; the ratio is the median of per-round p50 ratios against off (range in brackets). ` +
        "CPU µs/op is this process's user + system CPU over each batch divided by its ops — client, server, tracer and the batch exporter all run in this process, so it is what tracing costs apart from how a shared machine scheduled the time (read it when the p50 ranges are wide). " +
        "On the no-op provider `instrument()` is dormant (see its docs): it checks that no SDK is registered behind the provider and builds nothing, so that row should read 1.00x within noise. " +
        "The SDK floor rows (served call and turn only) make the batch rows' spans by hand — the same names, kinds, parent links and attribute counts, on the same provider and exporter — around an untraced op (the served call through its own untraced pair): what the SDK's span bookkeeping and export cost with no agentkit code in the way; the batch row's distance from it is agentkit's own share (events, parent contexts, `traceparent` in `_meta` and parsed back).",
      tables: [
        {
          head: ["path", "tracing", "p50 ms", "p99 ms", "p50 vs off (median of rounds)", "CPU µs/op", "CPU vs off (median of rounds)"],
          rows,
        },
      ],
      goals,
      notes: [`The receiver took ${Math.round(receiver.bytes() / 1024)} KiB of OTLP/JSON over the run.`],
    };
  } finally {
    await Promise.allSettled([...clients.values()].map((c) => c.client.stop()));
    await Promise.allSettled([...specs.values()].map((s) => s.stop()));
    await provider.shutdown().catch(() => undefined);
    await receiver.close();
    await modelApi?.stop();
  }
}

/** Benchmark 9. */
export const otelSuite: Suite = { id: "otel", title: "Tracing cost", run };
