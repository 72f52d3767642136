/**
 * @module otel/traceparent
 * W3C Trace Context (`traceparent`, `tracestate`) to and from a span context,
 * as MCP carries them in `_meta` (SEP-414) and the CLIs read them from the
 * environment (`TRACEPARENT`). Written here rather than taken from the user's
 * global propagator, so propagation works whatever propagator they registered
 * (the default one is a no-op).
 */
import type { SpanContext, TraceState } from "@opentelemetry/api";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);
/** tracestate is a list of at most 32 entries (W3C); longer input is not a trace context this side made sense of. */
const MAX_TRACESTATE = 512;

/** The `traceparent` and (when set) `tracestate` of `sc`. */
export function traceHeaders(sc: SpanContext): Record<string, string> {
  const flags = (sc.traceFlags & 0xff).toString(16).padStart(2, "0");
  const out: Record<string, string> = { traceparent: `00-${sc.traceId}-${sc.spanId}-${flags}` };
  const state = sc.traceState?.serialize();
  if (state) out.tracestate = state;
  return out;
}

/**
 * The remote span context `traceparent` names, or `undefined` when it is
 * absent or malformed (version `00` only; all-zero ids rejected, as W3C says).
 * `makeState` builds the api's `TraceState` from a `tracestate` string.
 */
export function parseTraceparent(
  traceparent: unknown,
  tracestate: unknown,
  makeState: (raw: string) => TraceState,
): SpanContext | undefined {
  if (typeof traceparent !== "string") return undefined;
  const m = TRACEPARENT.exec(traceparent.trim());
  if (!m || m[1] === ZERO_TRACE || m[2] === ZERO_SPAN) return undefined;
  const sc: SpanContext = { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16) & 0xff, isRemote: true };
  if (typeof tracestate === "string" && tracestate !== "" && tracestate.length <= MAX_TRACESTATE) sc.traceState = makeState(tracestate);
  return sc;
}
