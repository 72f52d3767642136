/**
 * @module otel/instrument
 * `instrument(ctx)`: OpenTelemetry spans for a run, its children, its MCP
 * requests (both sides) and its CLI processes.
 */
import type { Tracer, TracerProvider } from "@opentelemetry/api";
import { OptionsError } from "../errors/options.error.js";
import { checkOptions, opt, type OptionRule } from "../options/option-checks.js";
import { RunContext } from "../context/run-context.js";
import { attachObserver } from "../context/run-observer.js";
import { otelApi } from "./otel-api.js";
import { packageVersion } from "../util/package-version.js";
import { RunTracer } from "./run-tracer.js";

/** The tracer's instrumentation scope name. */
export const TRACER_NAME = "arc-agentkit";

/** Options of `instrument()`. */
export interface InstrumentOptions {
  /** Where spans go. Default: the global provider (`trace.getTracerProvider()`; a no-op until the app registers one). */
  readonly tracerProvider?: TracerProvider;
}

/** The options `instrument` accepts, declared once. */
const INSTRUMENT_OPTIONS = {
  tracerProvider: opt.that<TracerProvider>(
    (v) => typeof (v as { getTracer?: unknown } | null)?.getTracer === "function",
    "an OpenTelemetry TracerProvider (with getTracer()), or be left unset for the global one",
  ),
} satisfies Record<keyof InstrumentOptions, OptionRule<unknown>>;

/**
 * Trace `ctx`'s run tree (children made before or after included) with
 * OpenTelemetry; returns the function that detaches it (idempotent; spans
 * still open stay open). Spans follow the GenAI conventions:
 *
 * - `invoke_agent <agent>` per `agent.run()`;
 * - `chat <model>` per model turn (`gen_ai.request.model`, `gen_ai.response.model`,
 *   `gen_ai.usage.*`, `gen_ai.response.finish_reasons`);
 * - `execute_tool <tool>` per tool call (`gen_ai.tool.name`, `gen_ai.tool.call.id`,
 *   `agentkit.tool.outcome`);
 * - `gate <tool>` per gate decision (`agentkit.gate.source`, `.allowed`, `.asked`,
 *   `.kind`, `.actor`, `.question_id`, `.via`), under the call it settled. A decision
 *   that arrives with only a tool-use id (the approval server, asked by the Claude
 *   CLI, which sends no trace context) joins the open `execute_tool` span of that
 *   id in any instrumented run of this process, and says so
 *   (`agentkit.gate.linked_by: "tool_call_id"`);
 * - `tools/call <tool>` on both sides of an MCP request (`mcp.method.name`,
 *   `agentkit.mcp.server`, `mcp.protocol.version` when known): the client sends
 *   `traceparent`/`tracestate` in the request's `_meta` and the package's
 *   servers continue that trace;
 * - `process <cli>` per CLI run, with its tool calls, permission denials and exit.
 *
 * Security: no argument, result, prompt or message text is ever an attribute;
 * string attributes are bounded to 256 characters.
 *
 * Cost: while the provider is the API's no-op one (no SDK registered behind
 * the global provider), the tracer is dormant — no span, attribute, context
 * or event is built — and wakes when an SDK registers.
 *
 * @throws OptionsError when `ctx` is not a `RunContext`, `tracerProvider` has no
 *   `getTracer`, or the run is already instrumented.
 * @throws MissingPeerError when `@opentelemetry/api` is not installed.
 */
export function instrument(ctx: RunContext, options: InstrumentOptions = {}): () => void {
  if (!(ctx instanceof RunContext))
    throw new OptionsError(
      "instrument",
      "ctx",
      "instrument: ctx must be a RunContext (the run to trace), e.g. new RunContext() or makeTestCtx()",
    );
  const provider = checkOptions(options, "instrument", INSTRUMENT_OPTIONS).tracerProvider;
  const api = otelApi();
  const source = provider ?? api.trace.getTracerProvider();
  return attachObserver(ctx, new RunTracer(api, tracerOf(source), source), "instrument");
}

/** Each SDK provider's tracer, asked for once (an app that instruments every run does not rebuild the SDK's tracer key per run). */
const tracers = new WeakMap<TracerProvider, Tracer>();

/** `provider`'s tracer; a delegating one (the global proxy) is asked each time, as its delegate may change. */
function tracerOf(provider: TracerProvider): Tracer {
  if (typeof (provider as { getDelegate?: unknown }).getDelegate === "function") return provider.getTracer(TRACER_NAME, packageVersion());
  let tracer = tracers.get(provider);
  if (!tracer) tracers.set(provider, (tracer = provider.getTracer(TRACER_NAME, packageVersion())));
  return tracer;
}
