/**
 * @module test/mcp-serve/stop-inflight
 * stop() while calls are in flight answers each of them (isError, "the server
 * stopped while 'x' was running") before the streams close, and cancels the
 * tools' contexts; many concurrent calls add no listener to the run's signal.
 */
import { expect, it } from "vitest";
import { tool } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { MCPClient, StreamableHttpServer, serveRegistry } from "../../src/mcp/index.js";
import { until } from "../helpers/wait.js";

it("stop() answers every call in flight and aborts the tools' signals", async () => {
  const signals: AbortSignal[] = [];
  const hang = tool({ name: "hang", description: "Never returns.", sideEffecting: false }, (_a, ctx) => {
    signals.push(ctx.signal);
    return new Promise(() => {});
  });
  const ctx = makeTestCtx();
  const spec = await serveRegistry([hang], { name: "engine", ctx });
  await spec.start();
  const client = await MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: spec.authHeaders }));
  try {
    const calls = Array.from({ length: 12 }, () => client.callTool("hang", {}));
    await until(
      () => signals.length === 12,
      () => `the 12 calls to start (started: ${signals.length})`,
    );
    await spec.stop();
    const results = await Promise.all(calls);
    // (on 2026-07-28 a result also carries the server's identity in _meta: the envelope, not the answer)
    for (const { _meta, ...r } of results)
      expect(r).toEqual({ content: [{ type: "text", text: "the server stopped while 'hang' was running" }], isError: true });
    expect(signals.every((s) => s.aborted)).toBe(true);
  } finally {
    await client.stop();
    await spec.stop();
  }
});
// Twelve calls in flight on one run would trip Node's MaxListeners warning if
// each added an abort listener to ctx.signal; the per-file hygiene setup fails
// this file on any such warning.
