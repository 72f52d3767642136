/**
 * @module test/otel/missing-peer.test
 * Without `@opentelemetry/api`: the built `otel` entry still imports, and
 * `instrument()` throws MissingPeerError with the install line. The built
 * files are copied to a directory with no node_modules above it. Needs `npm run build`.
 */
import { expect, it } from "vitest";
import { runInBareDist } from "../helpers/bare-dist.js";

it("arc-agentkit/otel imports without @opentelemetry/api, and instrument() names the install line", () => {
  const script = `
    const otel = await import("./dist/otel/index.js");
    const { RunContext } = await import("./dist/context/run-context.js");
    try { otel.instrument(new RunContext()); console.log("NO THROW"); }
    catch (e) { console.log(JSON.stringify({ exports: Object.keys(otel).sort(), name: e.name, code: e.code, peer: e.peer, installLine: e.installLine, message: e.message })); }`;
  const run = runInBareDist("akt-otel-nopeer-", script);
  expect(run.stderr).toBe("");
  expect(JSON.parse(run.stdout)).toEqual({
    exports: ["TRACER_NAME", "instrument"],
    name: "MissingPeerError",
    code: "missing_peer",
    peer: "@opentelemetry/api",
    installLine: "npm install @opentelemetry/api",
    message:
      "instrument() needs the optional peer '@opentelemetry/api' (your tracer provider and exporter come from the OpenTelemetry SDK): npm install @opentelemetry/api",
  });
});
