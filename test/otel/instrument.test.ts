/**
 * @module test/otel/instrument.test
 * `instrument()` with the real OpenTelemetry SDK (an in-memory exporter behind
 * a simple processor): the exports, the option errors, the span tree of a
 * ReAct run with a gated call a person approved, nested runs on child
 * contexts, detaching, and the approval server's decision joined to the
 * call it settled by tool-use id; and the dormant tracer on the no-op provider.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, ReActCognition, RunContext, tool, type Cognition } from "arc-agentkit";
import { ApprovalServer, MCPClient, StreamableHttpServer } from "arc-agentkit/mcp";
import { FakeLLM, Turn } from "arc-agentkit/testing";
import * as otel from "arc-agentkit/otel";
import { instrument } from "arc-agentkit/otel";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { context, ProxyTracerProvider, ROOT_CONTEXT, trace, type Context, type ContextManager, type Tracer } from "@opentelemetry/api";
import { declaredExports } from "../core/surface.js";
import { askerAnswering } from "../helpers/asker.js";

const SECRET = "hunter2-argument-value";

function memoryProvider(): { provider: TracerProvider; spans: () => ReadableSpan[] } {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  return { provider, spans: () => exporter.getFinishedSpans() };
}

const named = (spans: ReadableSpan[], name: string): ReadableSpan => {
  const s = spans.find((x) => x.name === name);
  if (!s) throw new Error(`no span '${name}' among: ${spans.map((x) => x.name).join(", ")}`);
  return s;
};
const parentOf = (s: ReadableSpan): string | undefined => s.parentSpanContext?.spanId;
/** A context manager whose active context is always `held` (an app's request context, as an AsyncLocalStorage one would hold it). */
const contextManagerHolding = (held: Context): ContextManager => ({
  active: () => held,
  with: (_ctx, fn, thisArg, ...args) => fn.apply(thisArg, args),
  bind: (_ctx, target) => target,
  enable() {
    return this;
  },
  disable() {
    return this;
  },
});
const echo = (name: string, options: { requiresApproval?: boolean } = {}) =>
  tool(
    {
      name,
      description: `The ${name} tool.`,
      requiresApproval: options.requiresApproval ?? false,
      input: { type: "object", properties: { secret: { type: "string" } } },
    },
    async () => "done",
  );

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("arc-agentkit/otel", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(otel).sort()).toEqual(["TRACER_NAME", "instrument"]);
    expect(declaredExports(fileURLToPath(new URL("../../src/otel/index.ts", import.meta.url)))).toEqual([
      "instrument",
      "type InstrumentOptions",
      "TRACER_NAME",
    ]);
  });

  it("refuses what is not a run, a provider without getTracer, and a second instrument() on one run", () => {
    const err = (() => {
      try {
        instrument({} as RunContext);
      } catch (e) {
        return e as { code?: string; where?: string; option?: string; message: string };
      }
    })();
    expect(err).toMatchObject({
      code: "invalid_option",
      where: "instrument",
      option: "ctx",
      message: "instrument: ctx must be a RunContext (the run to trace), e.g. new RunContext() or makeTestCtx()",
    });
    expect(() => instrument(new RunContext(), { tracerProvider: {} as never })).toThrow(
      "instrument: 'tracerProvider' must be an OpenTelemetry TracerProvider (with getTracer()), or be left unset for the global one, got object {}",
    );
    expect(() => instrument(new RunContext(), { provider: memoryProvider().provider } as never)).toThrow(
      expect.objectContaining({
        code: "invalid_option",
        where: "instrument",
        option: "provider",
        message: "instrument: unknown option 'provider'. Accepted options: tracerProvider",
      }),
    );
    const ctx = new RunContext();
    const detach = instrument(ctx, { tracerProvider: memoryProvider().provider });
    expect(() => instrument(ctx.child())).toThrow(
      "instrument: this run is already instrumented; call the detach function instrument() returned first",
    );
    detach();
    instrument(ctx, { tracerProvider: memoryProvider().provider })();
  });

  it("a ReAct run: invoke_agent > chat, execute_tool > gate with the person's decision; no argument value in any span", async () => {
    const { provider, spans } = memoryProvider();
    const llm = FakeLLM.script([
      new Turn({ toolCalls: [{ id: "c1", name: "deploy", arguments: { secret: SECRET } }], usage: { inputTokens: 7, outputTokens: 3 } }),
      new Turn({ content: "deployed" }),
    ]);
    const ctx = new RunContext({ llm, autonomy: "gated", asker: askerAnswering({ kind: "approve", actor: "alice" }) });
    instrument(ctx, { tracerProvider: provider });
    const result = await new Agent({
      name: "ops",
      model: "m-1",
      cognition: new ReActCognition({ tools: [echo("deploy", { requiresApproval: true })] }),
    }).run("deploy it", ctx);
    expect(result.stopReason).toBe("complete");
    const all = spans();
    const run = named(all, "invoke_agent ops");
    const chats = all.filter((s) => s.name === "chat m-1");
    const call = named(all, "execute_tool deploy");
    const gate = named(all, "gate deploy");
    expect(all.map((s) => s.name).sort()).toEqual(["chat m-1", "chat m-1", "execute_tool deploy", "gate deploy", "invoke_agent ops"]);
    // The scope names the package and its version (a trace backend tells releases apart by it).
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    for (const s of all) expect(s.instrumentationScope).toMatchObject({ name: "arc-agentkit", version });
    expect(parentOf(run)).toBeUndefined();
    for (const c of chats) expect(parentOf(c)).toBe(run.spanContext().spanId);
    expect(parentOf(call)).toBe(run.spanContext().spanId);
    expect(parentOf(gate)).toBe(call.spanContext().spanId);
    expect(chats[0]!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "m-1",
      "gen_ai.usage.input_tokens": 7,
      "gen_ai.usage.output_tokens": 3,
    });
    expect(call.attributes).toMatchObject({
      "gen_ai.tool.name": "deploy",
      "gen_ai.tool.call.id": "c1",
      "agentkit.tool.outcome": "ok",
      "agentkit.gate.source": "asker",
      "agentkit.gate.actor": "alice",
    });
    expect(gate.attributes).toMatchObject({
      "agentkit.gate.source": "asker",
      "agentkit.gate.allowed": true,
      "agentkit.gate.asked": true,
      "agentkit.gate.kind": "approve",
      "agentkit.gate.actor": "alice",
      "agentkit.gate.via": "react",
      "agentkit.run.id": ctx.runId,
    });
    expect(gate.attributes["agentkit.gate.question_id"]).toEqual(expect.any(String));
    expect(JSON.stringify(all.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events })))).not.toContain(SECRET);
  });

  it("under an app's context manager: the run nests under the app's active span, and its own spans nest as without one", async () => {
    const { provider, spans } = memoryProvider();
    const appSpan = provider.getTracer("app").startSpan("app request");
    const active = trace.setSpan(ROOT_CONTEXT, appSpan);
    context.setGlobalContextManager(contextManagerHolding(active));
    cleanups.push(() => context.disable());
    const llm = FakeLLM.script([new Turn({ toolCalls: [{ id: "c1", name: "lookup", arguments: {} }] }), new Turn({ content: "found" })]);
    const ctx = new RunContext({ llm });
    instrument(ctx, { tracerProvider: provider });
    expect((await new Agent({ name: "ops", cognition: new ReActCognition({ tools: [echo("lookup")] }) }).run("look", ctx)).stopReason).toBe(
      "complete",
    );
    appSpan.end();
    const all = spans();
    const run = named(all, "invoke_agent ops");
    const call = named(all, "execute_tool lookup");
    expect(parentOf(run)).toBe(appSpan.spanContext().spanId);
    for (const c of all.filter((x) => x.name.startsWith("chat "))) expect(parentOf(c)).toBe(run.spanContext().spanId);
    expect(parentOf(call)).toBe(run.spanContext().spanId);
    expect(parentOf(named(all, "gate lookup"))).toBe(call.spanContext().spanId);
    expect(new Set(all.map((x) => x.spanContext().traceId))).toEqual(new Set([appSpan.spanContext().traceId]));
  });

  it("a refused call: execute_tool ends in error, its gate says who refused", async () => {
    const { provider, spans } = memoryProvider();
    const llm = FakeLLM.script([
      new Turn({ toolCalls: [{ id: "c1", name: "deploy", arguments: {} }] }),
      new Turn({ content: "ok, not deployed" }),
    ]);
    const ctx = new RunContext({ llm, autonomy: "gated", asker: askerAnswering({ kind: "reject", actor: "bob" }) });
    instrument(ctx, { tracerProvider: provider });
    await new Agent({ name: "ops", cognition: new ReActCognition({ tools: [echo("deploy", { requiresApproval: true })] }) }).run(
      "deploy it",
      ctx,
    );
    const call = named(spans(), "execute_tool deploy");
    expect(call.status.code).toBe(2); // ERROR
    expect(call.attributes["agentkit.tool.outcome"]).toBe("error");
    expect(named(spans(), "gate deploy").attributes).toMatchObject({
      "agentkit.gate.allowed": false,
      "agentkit.gate.actor": "bob",
      "agentkit.gate.kind": "reject",
    });
  });

  it("children: an agent run inside a tool, on ctx.child(), nests under that tool's span; after detach nothing is traced", async () => {
    const { provider, spans } = memoryProvider();
    const inner = new Agent({ name: "inner", cognition: new ReActCognition({ tools: [] }) });
    const delegate = tool({ name: "delegate", description: "Ask the inner agent.", sideEffecting: false }, async (_args, ctx) => {
      using child = ctx.child();
      return (await inner.run("sub-task", child)).output;
    });
    const llm = FakeLLM.script([
      new Turn({ toolCalls: [{ id: "d1", name: "delegate", arguments: {} }] }),
      new Turn({ content: "inner says hi" }),
      new Turn({ content: "done" }),
    ]);
    const ctx = new RunContext({ llm });
    const detach = instrument(ctx, { tracerProvider: provider });
    await new Agent({ name: "outer", cognition: new ReActCognition({ tools: [delegate] }) }).run("go", ctx);
    const call = named(spans(), "execute_tool delegate");
    const innerRun = named(spans(), "invoke_agent inner");
    expect(parentOf(innerRun)).toBe(call.spanContext().spanId);
    expect(innerRun.spanContext().traceId).toBe(call.spanContext().traceId);
    const count = spans().length;
    detach();
    await new Agent({ name: "after", cognition: new ReActCognition({ tools: [] }) }).run(
      "x",
      new RunContext({ llm: FakeLLM.script([new Turn({ content: "y" })]) }),
    );
    ctx.emit("agent.start", { agent: "late" });
    expect(spans()).toHaveLength(count);
  });

  it("the approval server's decision joins the call it settled by tool-use id (its prompt carries no trace), and says so", async () => {
    const { provider, spans } = memoryProvider();
    const approvalsCtx = new RunContext();
    instrument(approvalsCtx, { tracerProvider: provider });
    const approvals = new ApprovalServer({ asker: askerAnswering({ kind: "approve", actor: "carol" }), ctx: approvalsCtx });
    await approvals.start();
    cleanups.push(() => approvals.stop());
    const client = await MCPClient.start(new StreamableHttpServer({ url: approvals.url, headers: { ...approvals.authHeaders } }));
    cleanups.push(() => client.stop());
    // Stands in for the CLI asking its permission prompt about the call it is making: a tool of the run whose body asks.
    const write = tool({ name: "Write", description: "Write a file.", sideEffecting: false }, async () => {
      const answer = await client.callTool("approve", { tool_name: "Write", input: { file_path: SECRET }, tool_use_id: "toolu_42" });
      return JSON.stringify(answer.content);
    });
    const llm = FakeLLM.script([
      new Turn({ toolCalls: [{ id: "toolu_42", name: "Write", arguments: {} }] }),
      new Turn({ content: "written" }),
    ]);
    const runCtx = new RunContext({ llm });
    instrument(runCtx, { tracerProvider: provider });
    await new Agent({ name: "writer", cognition: new ReActCognition({ tools: [write] }) }).run("write", runCtx);
    const call = named(spans(), "execute_tool Write");
    const decision = spans().find((s) => s.name === "gate Write" && s.attributes["agentkit.gate.via"] === "approval_server")!;
    expect(parentOf(decision)).toBe(call.spanContext().spanId);
    expect(decision.attributes).toMatchObject({
      "agentkit.gate.linked_by": "tool_call_id",
      "gen_ai.tool.call.id": "toolu_42",
      "agentkit.gate.actor": "carol",
      "agentkit.gate.source": "asker",
      "agentkit.run.id": approvalsCtx.runId,
    });
    expect(JSON.stringify(spans().map((s) => s.attributes))).not.toContain(SECRET);
  });

  it("a run that ends with a call still open ends that call's span too (outcome unfinished), so nothing stays open", async () => {
    const { provider, spans } = memoryProvider();
    // A cognition that starts a call and stops without its result (a CLI killed mid-call looks like this).
    const abandoning: Cognition = {
      run: async ({ ctx }) => {
        ctx.emit("tool.call", { id: "lost_1", tool: "deploy" });
        return { output: "", stopReason: "cancelled", steps: 1, toolCalls: [], usage: {} };
      },
    };
    const ctx = new RunContext();
    instrument(ctx, { tracerProvider: provider });
    await new Agent({ name: "quitter", cognition: abandoning }).run("go", ctx);
    const call = named(spans(), "execute_tool deploy");
    expect(call.attributes["agentkit.tool.outcome"]).toBe("unfinished");
    expect(parentOf(call)).toBe(named(spans(), "invoke_agent quitter").spanContext().spanId);
  });

  it("on a provider with no SDK behind it the tracer is dormant (no span started, no event built for it); it wakes when one registers, and builds no event it does not read", async () => {
    // A proxy provider with no delegate is the API's no-op one (the global provider before an app registers an SDK).
    class CountingProxy extends ProxyTracerProvider {
      starts = 0;
      override getTracer(name: string, version?: string): Tracer {
        const inner = super.getTracer(name, version);
        const count = (): void => void this.starts++;
        return {
          startSpan: (...a: Parameters<Tracer["startSpan"]>) => (count(), inner.startSpan(...a)),
          startActiveSpan: ((...a: unknown[]) => (
            count(),
            (inner.startActiveSpan as (...b: unknown[]) => unknown)(...a)
          )) as Tracer["startActiveSpan"],
        };
      }
    }
    const proxy = new CountingProxy();
    const turns = [new Turn({ toolCalls: [{ id: "c1", name: "lookup", arguments: { secret: SECRET } }] }), new Turn({ content: "done" })];
    const ctx = new RunContext({ llm: FakeLLM.script([...turns, ...turns]) });
    instrument(ctx, { tracerProvider: proxy });
    let built = 0;
    const data = {
      get built() {
        built++;
        return true;
      },
    };
    const agent = new Agent({ name: "dormant", cognition: new ReActCognition({ tools: [echo("lookup")] }) });
    expect((await agent.run("look it up", ctx.child())).stopReason).toBe("complete");
    ctx.emit("probe", data); // an event is built by copying its data: a getter there counts each copy
    expect({ starts: proxy.starts, built }).toEqual({ starts: 0, built: 0 });

    const { provider, spans } = memoryProvider();
    proxy.setDelegate(provider);
    expect((await agent.run("look it up", ctx.child())).stopReason).toBe("complete");
    // Awake, the tracer still builds no event it does not read (a streamed piece, an unknown event)...
    ctx.emit("probe", data);
    ctx.emit("llm.delta", data);
    expect(built).toBe(0);
    // ...while an event a listener hears is copied for it, once.
    const off = ctx.on(() => undefined);
    ctx.emit("probe", data);
    off();
    expect(built).toBe(1);
    expect(proxy.starts).toBeGreaterThan(0);
    expect(
      spans()
        .map((x) => x.name)
        .sort(),
    ).toEqual(["chat default", "chat default", "execute_tool lookup", "gate lookup", "invoke_agent dormant"]);
  });
});
