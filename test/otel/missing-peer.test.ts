/**
 * @module test/otel/missing-peer.test
 * Without `@opentelemetry/api`: the built `otel` entry still imports, and
 * `instrument()` throws MissingPeerError with the install line. The built
 * files are copied to a directory with no node_modules above it. Needs `npm run build`.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";

const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

it("arc-agentkit/otel imports without @opentelemetry/api, and instrument() names the install line", () => {
  dir = mkdtempSync(join(tmpdir(), "akt-otel-nopeer-"));
  cpSync(DIST, join(dir, "dist"), { recursive: true });
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }');
  const script = `
    const otel = await import("./dist/otel/index.js");
    const { RunContext } = await import("./dist/context/run-context.js");
    try { otel.instrument(new RunContext()); console.log("NO THROW"); }
    catch (e) { console.log(JSON.stringify({ exports: Object.keys(otel).sort(), name: e.name, code: e.code, peer: e.peer, installLine: e.installLine, message: e.message })); }`;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: dir, encoding: "utf8", timeout: 20_000 });
  expect(run.stderr).toBe("");
  expect(JSON.parse(run.stdout)).toEqual({
    exports: ["TRACER_NAME", "instrument"],
    name: "MissingPeerError",
    code: "missing_peer",
    peer: "@opentelemetry/api",
    installLine: "npm install @opentelemetry/api",
    message: "instrument() needs the optional peer '@opentelemetry/api' (your tracer provider and exporter come from the OpenTelemetry SDK): npm install @opentelemetry/api",
  });
});
