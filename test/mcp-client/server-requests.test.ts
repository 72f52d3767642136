/**
 * @module test/mcp-client/server-requests.test
 * What a server asks of the client, answered by the run: server-everything's
 * elicitation and sampling tools driven by an agent run (FakeLLM), over stdio
 * and streamable HTTP; a scripted Asker answers, and under "gated" the gate
 * asks it before the run's model is sampled. Roots answer roots/list.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Agent, ReActCognition, RunContext } from "../../src/index.js";
import { MCPClient, StdioServer, StreamableHttpServer, mcpTools } from "../../src/mcp/index.js";
import { FakeLLM, Turn } from "../../src/testing/index.js";
import { EVERYTHING, NODE, captureLog, startEverythingHttp, type ServerProcess } from "./support.js";
import { untilValue } from "../helpers/wait.js";
import { askerScripted } from "../helpers/asker.js";

/** An Asker that answers from `answers` in order and records what it was asked (and the options it was handed). */

const stdio = () => new StdioServer({ command: NODE, args: [EVERYTHING, "stdio"] });
let http: ServerProcess | undefined;
afterEach(async () => {
  await http?.[Symbol.asyncDispose]();
  http = undefined;
});

/** One agent run over the client's tools; `ctx` carries the run's FakeLLM and Asker. */
async function agentRun(client: MCPClient, ctx: RunContext) {
  const tools = await mcpTools(client, { prefix: "ev_" });
  const agent = new Agent({ name: "t", model: "fake", prompt: "Use the tools.", cognition: new ReActCognition({ tools }) });
  return agent.run("go", ctx);
}

describe("elicitation -> the run's Asker", () => {
  it("a form elicitation mid tool call is answered by the scripted Asker; exactly its values are sent, no default it left out is added (issue #25.5)", async () => {
    const llm = FakeLLM.script([
      new Turn({ toolCalls: [{ id: "1", name: "ev_trigger-elicitation-request", arguments: {} }] }),
      new Turn({ content: "done" }),
    ]);
    const asker = askerScripted({ kind: "approve", value: { name: "Ada Lovelace" } });
    const ctx = new RunContext({ llm, asker, autonomy: "auto" });
    await using client = await MCPClient.start(stdio(), { ctx });
    const result = await agentRun(client, ctx);
    expect(result.stopReason).toBe("complete");
    expect(asker.seen).toHaveLength(1);
    const q = asker.seen[0]!;
    expect(q.source).toBe("mcp_elicitation");
    // The question carries its request: a signal (aborted when the server gives up) and an id.
    expect(asker.options[0]!.signal).toBeInstanceOf(AbortSignal);
    expect(asker.options[0]!.questionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(q.form?.schema).toMatchObject({ type: "object", required: ["name"] });
    const text = result.toolCalls[0]!.result;
    expect(text).toContain("Ada Lovelace");
    // A field the Asker did not fill, with a default in the schema, is not sent: no person saw that value.
    const props = (q.form!.schema as { properties: Record<string, { default?: unknown }> }).properties;
    const defaulted = Object.entries(props).find(([k, v]) => k !== "name" && v.default !== undefined)!;
    expect(text).not.toContain(String(defaulted[1].default));
  });

  it("reject declines and expired cancels; the tool reports each", async () => {
    for (const [kind, word] of [
      ["reject", "decline"],
      ["expired", "cancel"],
    ] as const) {
      const asker = askerScripted({ kind });
      await using client = await MCPClient.start(stdio(), { ctx: new RunContext({ asker }) });
      const r = await client.callTool("trigger-elicitation-request", {});
      expect(JSON.stringify(r.content).toLowerCase()).toContain(word);
    }
  });

  it("a URL elicitation reaches the Asker as a link to open", async () => {
    const asker = askerScripted({ kind: "approve" });
    await using client = await MCPClient.start(stdio(), { ctx: new RunContext({ asker }) });
    await client.callTool("trigger-url-elicitation", { url: "https://example.com/connect", message: "Connect your account" });
    expect(asker.seen[0]).toMatchObject({ url: "https://example.com/connect", source: "mcp_elicitation" });
    expect(asker.seen[0]!.question).toContain("https://example.com/connect");
  });

  it("no Asker: declined, with a warning naming the server", async () => {
    const log = captureLog();
    try {
      await using client = await MCPClient.start(stdio(), { ctx: new RunContext() });
      const r = await client.callTool("trigger-elicitation-request", {});
      expect(JSON.stringify(r.content).toLowerCase()).toContain("decline");
      expect(log.warnings.join("\n")).toMatch(
        /MCP stdio server '.*server-everything.*' asked the user something \(elicitation\/create\) and the run has no Asker: declined/,
      );
    } finally {
      log.restore();
    }
  });
});

describe("sampling -> the run's LLM, through the gate", () => {
  for (const transport of ["stdio", "http"] as const) {
    it(`over ${transport}: under "gated" the Asker approves the tool call, then the sampling; the FakeLLM answers, given maxTokens`, async () => {
      const llm = FakeLLM.script([
        new Turn({ toolCalls: [{ id: "1", name: "ev_trigger-sampling-request", arguments: { prompt: "What is 6 x 7?", maxTokens: 42 } }] }),
        new Turn({ content: "the answer is 42" }), // the server's sampling request
        new Turn({ content: "done" }),
      ]);
      const asker = askerScripted({ kind: "approve" }, { kind: "approve" });
      const checks: unknown[] = [];
      const ctx = new RunContext({ llm, asker, autonomy: "gated", sink: (e) => e.event === "gate.check" && checks.push(e.data) });
      if (transport === "http") http = await startEverythingHttp();
      await using client = await MCPClient.start(transport === "http" ? new StreamableHttpServer({ url: http!.url }) : stdio(), { ctx });
      const result = await agentRun(client, ctx);
      expect(result.stopReason).toBe("complete");
      expect(result.toolCalls[0]!.result).toContain("the answer is 42");
      expect(asker.seen.map((q) => q.source)).toEqual(["react", "mcp_sampling"]);
      expect(asker.seen[1]!.question).toMatch(/asks to use the model \(sampling, up to 42 tokens\)/);
      const sampled = llm.requests[1]!;
      expect(sampled.maxTokens).toBe(42);
      expect(sampled.messages.at(-1)).toMatchObject({ role: "user", content: expect.stringContaining("What is 6 x 7?") });
      // Each gate record keeps the questionId its Asker was handed, with a signal.
      expect(asker.options.map((o) => o!.signal instanceof AbortSignal)).toEqual([true, true]);
      expect(checks).toContainEqual(expect.objectContaining({ via: "react", source: "asker", questionId: asker.options[0]!.questionId }));
      expect(checks).toContainEqual(
        expect.objectContaining({ via: "mcp_sampling", source: "asker", allowed: true, questionId: asker.options[1]!.questionId }),
      );
    });
  }

  it('a rejected sampling is refused to the server and the model is never called; under "auto" a server with allowSampling is not asked', async () => {
    const llm = FakeLLM.script([new Turn({ content: "sampled freely" })]);
    const asker = askerScripted({ kind: "reject", note: "not now" });
    await using gated = await MCPClient.start(stdio(), { ctx: new RunContext({ llm, asker, autonomy: "gated" }) });
    const refused = await gated.callTool("trigger-sampling-request", { prompt: "hi" }).catch((e: Error) => e);
    expect(JSON.stringify(refused instanceof Error ? refused.message : refused)).toMatch(/sampling refused: rejected/);
    expect(llm.requests).toHaveLength(0);
    await using auto = await MCPClient.start(stdio(), { ctx: new RunContext({ llm, asker, autonomy: "auto" }), allowSampling: true });
    const r = await auto.callTool("trigger-sampling-request", { prompt: "hi" });
    expect(JSON.stringify(r.content)).toContain("sampled freely");
    expect(asker.seen).toHaveLength(1);
  });
});

describe("roots", () => {
  it("roots/list answers the roots given to open; setRoots changes them and tells the server", async () => {
    await using client = await MCPClient.start(stdio(), { ctx: new RunContext(), roots: [{ uri: "file:///tmp/project-a", name: "a" }] });
    expect(JSON.stringify((await client.callTool("get-roots-list", {})).content)).toContain("file:///tmp/project-a");
    await client.setRoots([{ uri: "file:///tmp/project-b", name: "b" }]);
    // The server asks roots/list again when told; its answer arrives on its own time.
    const after = await untilValue(
      async () => JSON.stringify((await client.callTool("get-roots-list", {})).content),
      (t) => t.includes("project-b"),
      "the roots list to name project-b",
    );
    expect(after).toContain("file:///tmp/project-b");
    expect(after).not.toContain("project-a");
  });

  it("a root without a file:// uri is refused, naming what is accepted", async () => {
    await expect(MCPClient.start(stdio(), { roots: [{ uri: "https://x" }] })).rejects.toThrow(
      /MCPClient.start: each root needs a file:\/\/ uri/,
    );
  });
});
