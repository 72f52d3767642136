/**
 * Faults: a stdio server killed mid-call, an HTTP server process killed
 * mid-call, a tool that hangs past the served deadline, a tool that throws on
 * every one of 1,000 calls, a busy port at start, and stop() while calls are
 * in flight. Each failure must reach the caller as a clear error within a
 * bound, and what comes after (the next open, the next call, the port) must work.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Cancelled } from "../../src/errors/cancelled.error.js";
import { tool } from "../../src/tools/function-tool.js";
import { MCPClient, StdioServer, StreamableHttpServer } from "../../src/mcp/client/index.js";
import { McpRequestError } from "../../src/index.js";
import { serveRegistry, type McpServerSpec } from "../../src/mcp/serve/index.js";
import { RunContext } from "../../src/context/run-context.js";
import { pidsMatching } from "../helpers/procs.js";
import { until } from "../helpers/wait.js";
import { echoText, echoTool, firstText, holdPort, portIsFree, portOf, report, sdkClient, serve, type BodyCounter } from "./helpers.js";

const hangStdio = fileURLToPath(new URL("./fixtures/hang-stdio-server.mjs", import.meta.url));
const hangHttp = fileURLToPath(new URL("./fixtures/hang-http-server.mjs", import.meta.url));

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c().catch(() => {});
});

/** Settle a promise into `{ value }` or `{ error }` plus how long it took from `since`. */
async function settle<T>(p: Promise<T>, since: () => number): Promise<{ value?: T; error?: unknown; ms: number }> {
  try {
    const value = await p;
    return { value, ms: performance.now() - since() };
  } catch (error) {
    return { error, ms: performance.now() - since() };
  }
}

function hangTool(started: BodyCounter, signals: AbortSignal[]) {
  return tool(
    {
      name: "hang",
      description: "Never returns.",
      input: { type: "object", properties: {}, additionalProperties: false },
      sideEffecting: false,
    },
    (_args, ctx) => {
      started.runs++;
      signals.push(ctx.signal);
      return new Promise(() => {});
    },
  );
}

describe("faults", () => {
  it("a stdio server killed mid-call: the caller gets a clear error within 2 s, no orphan is left, the next open works", async ({
    task,
  }) => {
    const mark = `agentkit-rel-${randomUUID()}`;
    const server = new StdioServer({ command: process.execPath, args: [hangStdio], env: { REL_MARK: mark } });
    const client = await MCPClient.start(server);
    closers.push(() => client.stop());
    await until(() => pidsMatching(`grandchild-${mark}`).length === 1, "the stdio server's grandchild to start");
    let t0 = 0;
    const pending = settle(client.callTool("hang", {}), () => t0);
    await until(
      () => client.stderrTail.includes("HANG"),
      () => `HANG on the server's stderr (stderr: ${client.stderrTail})`,
    );
    t0 = performance.now();
    process.kill(client.pid!, "SIGKILL");
    const { error, ms } = await pending;
    expect(error).toBeInstanceOf(McpRequestError);
    expect((error as Error).message).toContain("tools/call 'hang'");
    expect((error as Error).message).toContain("killed by SIGKILL");
    expect(ms).toBeLessThan(2000);
    await client.stop();
    await until(
      () => pidsMatching(mark).length === 0,
      () => `no process left of ${mark} (left: ${pidsMatching(mark).join(", ")})`,
    );
    await using again = await MCPClient.start(server);
    expect(firstText(await again.callTool("echo", { text: "after" }))).toBe("after");
    report(task, {
      "error after kill ms": Math.round(ms),
      "orphans left": pidsMatching(mark).length,
      message: (error as Error).message.split("\n")[0]!.slice(0, 160),
    });
  });

  it("an HTTP server process killed mid-call: the caller gets a clear error within 5 s", async ({ task }) => {
    const child: ChildProcess = spawn(process.execPath, [hangHttp], { stdio: ["pipe", "pipe", "inherit"] });
    closers.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    });
    const lines = createInterface({ input: child.stdout! });
    const seen: string[] = [];
    lines.on("line", (l) => seen.push(l));
    await until(
      () => seen.some((l) => l.startsWith("READY ")),
      () => `READY from the HTTP server (seen: ${seen.join(" | ")})`,
      10_000,
    );
    const url = seen.find((l) => l.startsWith("READY "))!.slice(6);
    const client = await MCPClient.start(new StreamableHttpServer({ url, timeoutMs: 60_000 }));
    closers.push(() => client.stop());
    let t0 = 0;
    const pending = settle(client.callTool("hang", {}), () => t0);
    await until(
      () => seen.includes("HANG"),
      () => `HANG from the HTTP server (seen: ${seen.join(" | ")})`,
    );
    t0 = performance.now();
    child.kill("SIGKILL");
    const bound = new Promise<"still pending">((r) => setTimeout(() => r("still pending"), 5000));
    const outcome = await Promise.race([pending, bound]);
    report(task, { outcome: outcome === "still pending" ? "no answer within 5 s" : `error after ${Math.round(outcome.ms)} ms` });
    expect(outcome).not.toBe("still pending");
    const { error } = outcome as { error?: unknown };
    expect(error).toBeInstanceOf(McpRequestError);
    expect((error as Error).message).toContain("tools/call 'hang'");
  });

  it("a tool that hangs past the deadline: every call is abandoned with the seed's text, the tool's signal fires, the session goes on", async ({
    task,
  }) => {
    const started: BodyCounter = { runs: 0 };
    const signals: AbortSignal[] = [];
    const counter: BodyCounter = { runs: 0 };
    const spec = await serve([hangTool(started, signals), echoTool(counter)], { timeoutMs: 200 });
    closers.push(() => spec.stop());
    const client: Client = await sdkClient(spec.url!, spec.authHeaders);
    closers.push(() => client.close());
    const t0 = performance.now();
    const results = (await Promise.all(
      Array.from({ length: 10 }, () => client.callTool({ name: "hang", arguments: {} })),
    )) as CallToolResult[];
    const ms = performance.now() - t0;
    for (const r of results) {
      expect(r.isError).toBe(true);
      expect(firstText(r)).toBe("tool 'hang' did not return within 0.2s and was abandoned");
    }
    expect(ms).toBeLessThan(5000);
    expect(started.runs).toBe(10);
    expect(signals.every((s) => s.aborted && s.reason instanceof Cancelled)).toBe(true);
    expect(firstText((await client.callTool({ name: "echo", arguments: { i: 1, text: "still here" } })) as CallToolResult)).toBe(
      echoText({ i: 1, text: "still here" }),
    );
    report(task, { "10 parallel hangs abandoned after ms": Math.round(ms) });
  });

  it("a tool that throws on every call, 1,000 calls: each is an isError result, the session survives", async ({ task }) => {
    let thrown = 0;
    const boom = tool(
      {
        name: "boom",
        description: "Always fails.",
        input: { type: "object", properties: {}, additionalProperties: false },
        sideEffecting: false,
      },
      () => {
        thrown++;
        throw new Error("the database is on fire");
      },
    );
    const counter: BodyCounter = { runs: 0 };
    const spec = await serve([boom, echoTool(counter)]);
    closers.push(() => spec.stop());
    const client = await MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: spec.authHeaders }));
    closers.push(() => client.stop());
    const sessionId = (client.session.transport as { sessionId?: string } | undefined)?.sessionId;
    const texts = new Map<string, number>();
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < 1000) {
          next++;
          const r = await client.callTool("boom", {});
          const key = `${r.isError === true}|${firstText(r)}`;
          texts.set(key, (texts.get(key) ?? 0) + 1);
        }
      }),
    );
    expect([...texts]).toEqual([["true|tool 'boom' failed: Error: the database is on fire", 1000]]);
    expect(thrown).toBe(1000);
    expect(firstText(await client.callTool("echo", { i: 7, text: "alive" }))).toBe(echoText({ i: 7, text: "alive" }));
    expect((client.session.transport as { sessionId?: string } | undefined)?.sessionId).toBe(sessionId);
    expect(spec.callsSeen).toBe(1001);
    report(task, { "failed calls": 1000, "session kept": "yes" });
  });

  it("the port busy at start: serveRegistry rejects with EADDRINUSE naming the endpoint; nothing crashes; the port works once free", async () => {
    const held = await holdPort();
    let error: unknown;
    try {
      await serveRegistry([echoTool({ runs: 0 })], { name: "rel", ctx: new RunContext(), port: held.port });
    } catch (err) {
      error = err;
    } finally {
      await held.close();
    }
    expect((error as NodeJS.ErrnoException).code).toBe("EADDRINUSE");
    expect((error as Error).message).toContain(`127.0.0.1:${held.port}`);
    const spec = await serve([echoTool({ runs: 0 })], { port: held.port });
    closers.push(() => spec.stop());
    expect(portOf(spec.url!)).toBe(held.port);
    const client = await sdkClient(spec.url!, spec.authHeaders);
    closers.push(() => client.close());
    expect(firstText((await client.callTool({ name: "echo", arguments: { i: 1, text: "ok" } })) as CallToolResult)).toBe(
      echoText({ i: 1, text: "ok" }),
    );
  });

  it("stop() while calls are in flight: stop resolves, every call is answered 'the server stopped' (isError), the tools' signals fire, the port is released", async ({
    task,
  }) => {
    const started: BodyCounter = { runs: 0 };
    const signals: AbortSignal[] = [];
    const spec: McpServerSpec = await serve([hangTool(started, signals)]);
    closers.push(() => spec.stop());
    const port = portOf(spec.url!);
    const sdk = await Promise.all(Array.from({ length: 4 }, () => sdkClient(spec.url!, spec.authHeaders)));
    const ours = await Promise.all(
      Array.from({ length: 4 }, () =>
        MCPClient.start(new StreamableHttpServer({ url: spec.url!, headers: spec.authHeaders, timeoutMs: 60_000 })),
      ),
    );
    for (const c of sdk) closers.push(() => c.close());
    for (const c of ours) closers.push(() => c.stop());
    let t0 = 0;
    const pending = [
      ...sdk.map((c) => settle(c.callTool({ name: "hang", arguments: {} }), () => t0)),
      ...ours.map((c) => settle(c.callTool("hang", {}), () => t0)),
    ];
    await until(
      () => started.runs === 8,
      () => `8 hanging calls to start (started: ${started.runs})`,
    );
    t0 = performance.now();
    await spec.stop();
    const stopMs = performance.now() - t0;
    const bound = new Promise<"still pending">((r) => setTimeout(() => r("still pending"), 5000));
    const outcomes = await Promise.all(pending.map((p) => Promise.race([p, bound])));
    const stuck = outcomes.filter((o) => o === "still pending").length;
    const portFree = await portIsFree(port);
    // Each call is answered before its stream closes: an isError result saying the server stopped.
    const stopText = (o: (typeof outcomes)[number]): string =>
      o === "still pending" || !o.value
        ? ""
        : (o.value as { isError?: boolean; content?: Array<{ text?: string }> }).isError
          ? (o.value as { content: Array<{ text?: string }> }).content.map((b) => b.text ?? "").join("")
          : "";
    report(task, {
      "stop() ms": Math.round(stopMs),
      "calls answered 'the server stopped'": outcomes.filter((o) => stopText(o) === "the server stopped while 'hang' was running").length,
      "calls still pending after 5 s": stuck,
      "tool signals aborted": signals.filter((s) => s.aborted).length,
      "port free": String(portFree),
    });
    expect(stuck).toBe(0);
    expect(outcomes.map(stopText)).toEqual(Array(8).fill("the server stopped while 'hang' was running"));
    expect(signals.filter((s) => s.aborted)).toHaveLength(8);
    expect(portFree).toBe(true);
  });
});
