/**
 * @module otel/genai-attributes
 * The attribute names the spans use: the OpenTelemetry GenAI and MCP semantic
 * conventions where they name the fact, `agentkit.*` where they do not. Values
 * are the event fields the run already broadcasts; no argument, result,
 * prompt or message text is ever an attribute.
 */
import type { Attributes } from "@opentelemetry/api";

/** GenAI semantic-convention names (gen_ai.*) and MCP ones (mcp.*). */
export const ATTR = Object.freeze({
  operation: "gen_ai.operation.name",
  agentName: "gen_ai.agent.name",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheCreationTokens: "gen_ai.usage.cache_creation.input_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  mcpMethod: "mcp.method.name",
  mcpProtocol: "mcp.protocol.version",
  mcpServer: "agentkit.mcp.server",
  runId: "agentkit.run.id",
  step: "agentkit.step",
  stopReason: "agentkit.stop_reason",
  toolOutcome: "agentkit.tool.outcome",
  gateSource: "agentkit.gate.source",
  gateAllowed: "agentkit.gate.allowed",
  gateAsked: "agentkit.gate.asked",
  gateKind: "agentkit.gate.kind",
  gateActor: "agentkit.gate.actor",
  gateQuestionId: "agentkit.gate.question_id",
  gateVia: "agentkit.gate.via",
  gateLinkedBy: "agentkit.gate.linked_by",
  /** How a served call found its parent: `traceparent` (from `_meta`), `tool_call_id` (joined by the tool-use id), `context`. */
  linkedBy: "agentkit.trace.linked_by",
  cliName: "agentkit.cli.name",
  cliSession: "agentkit.cli.session_id",
  cliVersion: "agentkit.cli.version",
  cliExitHow: "agentkit.cli.exit.how",
  exitCode: "process.exit.code",
});

/** Longest string attribute value kept (names and ids from a model or a peer are bounded). */
const MAX_STRING = 256;

/** `v` as an attribute value: strings bounded, finite numbers and booleans kept, anything else dropped. */
function attrValue(v: unknown): string | number | boolean | undefined {
  if (typeof v === "string") return v.length > MAX_STRING ? `${v.slice(0, MAX_STRING)}…` : v;
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (typeof v === "boolean") return v;
  return undefined;
}

/**
 * Set `key` on `out` to `v` as an attribute value (strings bounded); `null`, `undefined` and non-scalar values are
 * skipped. Returns `out`.
 */
export function put(out: Attributes, key: string, v: unknown): Attributes {
  const value = attrValue(v);
  if (value !== undefined) out[key] = value;
  return out;
}

/** Attributes from `pairs`, dropping `null`/`undefined` and non-scalar values. */
export function attrs(pairs: Record<string, unknown>): Attributes {
  const out: Attributes = {};
  for (const key in pairs) {
    const v = attrValue(pairs[key]);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** Add the GenAI usage attributes of a provider's `usage` (the shipped providers' `inputTokens`, `outputTokens`, cache counts) to `out`. */
export function putUsage(out: Attributes, usage: unknown): Attributes {
  if (!usage || typeof usage !== "object") return out;
  const u = usage as Record<string, unknown>;
  put(out, ATTR.inputTokens, u.inputTokens);
  put(out, ATTR.outputTokens, u.outputTokens);
  put(out, ATTR.cacheReadTokens, u.cacheReadInputTokens);
  return put(out, ATTR.cacheCreationTokens, u.cacheCreationInputTokens);
}
