/**
 * @module otel/otel-api
 * The one place the optional peer `@opentelemetry/api` is loaded (on the
 * first `instrument()`), with the install line in the error when it is missing.
 */
import type * as OtelApi from "@opentelemetry/api";
import { MissingPeerError } from "../errors/missing-peer.error.js";
import { lazyPeer } from "../util/optional-peer.js";

/** The install line named by the error when the peer is missing. */
export const OTEL_INSTALL_LINE = "npm install @opentelemetry/api";

/** The `@opentelemetry/api` module, loaded on first call. @throws MissingPeerError when it is not installed. */
export const otelApi = lazyPeer<typeof OtelApi>(
  "@opentelemetry/api",
  (cause) =>
    new MissingPeerError(
      "@opentelemetry/api",
      OTEL_INSTALL_LINE,
      `instrument() needs the optional peer '@opentelemetry/api' (your tracer provider and exporter come from the ` +
        `OpenTelemetry SDK): ${OTEL_INSTALL_LINE}`,
      { cause },
    ),
);
