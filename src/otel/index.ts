/**
 * @module otel
 * `arc-agentkit/otel`: OpenTelemetry traces of a run. Every export is listed
 * by name; a test snapshots the list, so an addition is a reviewed decision.
 * Peer: `@opentelemetry/api` only (the SDK and exporter are the app's).
 */
export { instrument, TRACER_NAME } from "./instrument.js";
export type { InstrumentOptions } from "./instrument.js";
