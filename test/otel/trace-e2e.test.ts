/**
 * @module test/otel/trace-e2e.test
 * One trace across two processes: an `Agent` (AnthropicLLM, real SDK, against
 * the scripted fake API) calls `deploy` of a module served over stdio in a
 * child process; the child's guard asks a scripted Asker, who approves. Both
 * processes are instrumented and export with the real OTLP/HTTP exporter to a
 * receiver on 127.0.0.1: the spans form one tree, parent links intact, the
 * decision's facts are on the served side, and no argument value is anywhere.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Agent, ReActCognition, RunContext } from "arc-agentkit";
import { MCPClient, StdioServer, mcpTools } from "arc-agentkit/mcp";
import { AnthropicLLM } from "arc-agentkit/models";
import { instrument } from "arc-agentkit/otel";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { FakeAnthropic } from "../cli/kit/fake-anthropic.js";
import { otlpReceiver, type ReceivedSpan } from "./otlp-receiver.js";

const NODE = process.execPath;
const MODULE = fileURLToPath(new URL("../fixtures/modules/traced-module.mjs", import.meta.url));
/** The argument value that must never reach a span. */
const SECRET_SERVICE = "payments-7f3a-secret-name";

const byName = (spans: readonly ReceivedSpan[], name: string): ReceivedSpan => {
  const s = spans.find((x) => x.name === name);
  if (!s) throw new Error(`no span '${name}' among: ${spans.map((x) => x.name).join(", ")}`);
  return s;
};

describe("otel: one trace from the agent through MCP to the person who approved", () => {
  it("links the agent's spans and the served call's spans (another process) into one trace, with the decision and no argument values", async () => {
    await using receiver = await otlpReceiver();
    await using api = await FakeAnthropic.start([
      { text: "Deploying.", toolUses: [{ id: "toolu_otel", name: "engine_deploy", input: { service: SECRET_SERVICE } }] },
      { text: "Done." },
    ]);
    const provider = new TracerProvider({
      spanProcessors: [
        new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: receiver.url, headers: { "x-test-process": "agent" } }) }),
      ],
    });
    const ctx = new RunContext({ llm: new AnthropicLLM({ apiKey: "k", baseURL: api.url, maxRetries: 0 }) });
    const detach = instrument(ctx, { tracerProvider: provider });
    {
      await using client = await MCPClient.start(new StdioServer({ command: NODE, args: [MODULE], env: { OTLP_URL: receiver.url } }));
      const agent = new Agent({
        name: "deployer",
        model: "test-model",
        cognition: new ReActCognition({ tools: await mcpTools(client, { prefix: "engine_" }) }),
      });
      const result = await agent.run("Deploy the payments service.", ctx);
      expect(result).toMatchObject({ stopReason: "complete", output: "Done." });
      expect(result.toolCalls[0]).toMatchObject({ name: "engine_deploy", ok: true });
      // The child exports each span as it ends: wait for its served call before closing it.
      await receiver.until((spans) => spans.some((s) => s.service === "server" && s.name === "tools/call deploy"));
    }
    detach();
    await provider.forceFlush();
    await provider.shutdown();
    const spans = receiver.spans;

    const run = byName(spans, "invoke_agent deployer");
    const chats = spans.filter((s) => s.name === "chat test-model");
    const tool = byName(spans, "execute_tool engine_deploy");
    const client = spans.find((s) => s.name === "tools/call deploy" && s.service === "agent")!;
    const served = spans.find((s) => s.name === "tools/call deploy" && s.service === "server")!;
    const gate = byName(spans, "gate mcp__engine__deploy");
    const localGate = byName(spans, "gate engine_deploy");

    // One trace, both processes.
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([run.traceId]));
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(["agent", "server"]));
    // The tree: run > chat (x2), run > execute_tool > tools/call (client) > tools/call (server) > gate.
    expect(run.parentSpanId).toBe("");
    expect(chats).toHaveLength(2);
    for (const c of chats) expect(c.parentSpanId).toBe(run.spanId);
    expect(tool.parentSpanId).toBe(run.spanId);
    expect(client.parentSpanId).toBe(tool.spanId);
    expect(served.parentSpanId).toBe(client.spanId);
    expect(gate.parentSpanId).toBe(served.spanId);
    expect(gate.service).toBe("server");
    // The agent's own gate (the "auto" tier leaves the call ungated: source autonomy) sits under its tool span.
    expect(localGate).toMatchObject({ service: "agent", parentSpanId: tool.spanId });
    expect(localGate.attributes).toMatchObject({
      "agentkit.gate.source": "autonomy",
      "agentkit.gate.asked": false,
      "agentkit.gate.via": "react",
    });

    // GenAI attributes.
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "deployer",
      "agentkit.run.id": ctx.runId,
      "agentkit.stop_reason": "complete",
    });
    expect(chats[0]!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "test-model",
      "gen_ai.usage.input_tokens": 10,
      "gen_ai.usage.output_tokens": 5,
      "gen_ai.response.finish_reasons": ["tool_use"],
    });
    expect(tool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "engine_deploy",
      "gen_ai.tool.call.id": "toolu_otel",
      "agentkit.tool.outcome": "ok",
    });
    expect(client.kind).toBe(3); // CLIENT
    expect(served.kind).toBe(2); // SERVER
    expect(served.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "deploy",
      "agentkit.mcp.server": "engine",
    });
    // The decision.
    expect(gate.attributes).toMatchObject({
      "agentkit.gate.source": "asker",
      "agentkit.gate.allowed": true,
      "agentkit.gate.asked": true,
      "agentkit.gate.actor": "alice",
      "agentkit.gate.kind": "approve",
      "agentkit.gate.via": "mcp_guard",
    });
    expect(typeof gate.attributes["agentkit.gate.question_id"]).toBe("string");

    // No argument value in any span, attribute or exported byte.
    for (const body of receiver.bodies) expect(body).not.toContain(SECRET_SERVICE);
  });
});
