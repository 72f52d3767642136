/**
 * @module test/mcp-client/server-request-caps.test
 * The client's bounds on what a server may ask of it (issue #25.6), against a
 * real stdio MCP server that floods its client (test/fixtures/servers/
 * flooding-stdio-server.mjs): sampling asks the run's Asker under every tier
 * unless the server is allowed (`allowSampling`), a server's `maxTokens` is
 * capped, and the server-initiated requests pending at once per server are
 * capped, the excess refused with a JSON-RPC error naming the cap.
 */
import { describe, expect, it } from "vitest";
import { RunContext, type Asker, type Decision, type Elicitation, type LLM, type LLMRequest } from "../../src/index.js";
import { MCPClient, StdioServer } from "../../src/mcp/index.js";
import { DEFAULT_MAX_SAMPLING_TOKENS, DEFAULT_MAX_SERVER_REQUESTS } from "../../src/mcp/client/server-requests.js";
import { NODE, fixture } from "./support.js";

const flooding = () => new StdioServer({ command: NODE, args: [fixture("flooding-stdio-server.mjs")] });

interface FloodResult {
  answered: number;
  refused: string[];
  texts: unknown[];
}

async function flood(client: MCPClient, kind: "sampling" | "elicitation", count: number, maxTokens?: number): Promise<FloodResult> {
  const r = await client.callTool("flood", { kind, count, ...(maxTokens !== undefined ? { maxTokens } : {}) });
  const block = (r.content as Array<{ type: string; text?: string }>)[0]!;
  return JSON.parse(block.text!) as FloodResult;
}

/** A model that holds each call a little and records how many were in flight at once and what it was asked. */
function heldModel(holdMs = 150): LLM & { requests: LLMRequest[]; peak: number } {
  let inFlight = 0;
  const self = {
    requests: [] as LLMRequest[],
    peak: 0,
    async complete(request: LLMRequest) {
      self.requests.push(request);
      self.peak = Math.max(self.peak, ++inFlight);
      await new Promise((r) => setTimeout(r, holdMs));
      inFlight--;
      return { content: "sampled", stopReason: "end_turn" as const };
    },
  };
  return self;
}

/** An Asker that answers `decision` after a short hold and records what it was asked and its peak of open questions. */
function heldAsker(decision: Decision, holdMs = 150): Asker & { asked: Elicitation[]; peak: number } {
  let open = 0;
  const self = {
    asked: [] as Elicitation[],
    peak: 0,
    async ask(q: Elicitation) {
      self.asked.push(q);
      self.peak = Math.max(self.peak, ++open);
      await new Promise((r) => setTimeout(r, holdMs));
      open--;
      return decision;
    },
  };
  return self;
}

describe("sampling asks by default; allowSampling opts a server out", () => {
  it('under the default "auto" tier a sampling request asks the run\'s Asker; a refusal reaches the server and the model is not called', async () => {
    const llm = heldModel(0);
    const asker = heldAsker({ kind: "reject", note: "no" }, 0);
    await using client = await MCPClient.start(flooding(), { ctx: new RunContext({ llm, asker }) });
    const r = await flood(client, "sampling", 1);
    expect(asker.asked.map((q) => q.source)).toEqual(["mcp_sampling"]);
    expect(r.answered).toBe(0);
    expect(r.refused.join("\n")).toMatch(/sampling refused: rejected/);
    expect(llm.requests).toHaveLength(0);
  });

  it('allowSampling: true lets the server sample without asking under "auto"', async () => {
    const llm = heldModel(0);
    const asker = heldAsker({ kind: "reject" }, 0);
    await using client = await MCPClient.start(flooding(), { ctx: new RunContext({ llm, asker }), allowSampling: true });
    const r = await flood(client, "sampling", 1);
    expect(r).toMatchObject({ answered: 1, refused: [] });
    expect(asker.asked).toHaveLength(0);
  });

  it("a non-boolean allowSampling and a bad cap are refused naming the option", async () => {
    await expect(MCPClient.start(flooding(), { allowSampling: "yes" as never })).rejects.toThrow(
      /MCPClient.start: allowSampling must be true or false/,
    );
    await expect(MCPClient.start(flooding(), { maxServerRequests: 0 })).rejects.toThrow(
      /MCPClient.start: maxServerRequests must be a positive integer/,
    );
    await expect(MCPClient.start(flooding(), { maxSamplingTokens: 1.5 })).rejects.toThrow(
      /MCPClient.start: maxSamplingTokens must be a positive integer/,
    );
  });
});

describe("caps on what one server asks", () => {
  it("a server's maxTokens of 100000 reaches the model capped (default cap), and the question says so", async () => {
    const llm = heldModel(0);
    const asker = heldAsker({ kind: "approve" }, 0);
    await using client = await MCPClient.start(flooding(), { ctx: new RunContext({ llm, asker }) });
    await flood(client, "sampling", 1, 100_000);
    expect(llm.requests[0]!.maxTokens).toBe(DEFAULT_MAX_SAMPLING_TOKENS);
    expect(asker.asked[0]!.question).toContain(`up to ${DEFAULT_MAX_SAMPLING_TOKENS} tokens; it asked for 100000`);
    await using small = await MCPClient.start(flooding(), { ctx: new RunContext({ llm, asker }), maxSamplingTokens: 50 });
    await flood(small, "sampling", 1, 100_000);
    expect(llm.requests[1]!.maxTokens).toBe(50);
  });

  it("200 sampling requests at once: at most the cap reach the model, the rest are refused with an error naming the cap", async () => {
    const llm = heldModel();
    await using client = await MCPClient.start(flooding(), { ctx: new RunContext({ llm }), allowSampling: true });
    const r = await flood(client, "sampling", 200);
    expect(llm.peak).toBeLessThanOrEqual(DEFAULT_MAX_SERVER_REQUESTS);
    expect(r.answered).toBeGreaterThanOrEqual(1);
    expect(r.answered).toBeLessThan(200);
    expect(r.refused).toHaveLength(1);
    expect(r.refused[0]).toMatch(
      new RegExp(
        `too many requests from this server at once: ${DEFAULT_MAX_SERVER_REQUESTS} sampling/elicitation requests are already pending \\(the client's cap, MCPClient\\.start maxServerRequests\\)`,
      ),
    );
  });

  it('under "gated", 300 elicitations at once put at most maxServerRequests questions to the person', async () => {
    const asker = heldAsker({ kind: "approve", value: { ok: true } });
    await using client = await MCPClient.start(flooding(), { ctx: new RunContext({ asker, autonomy: "gated" }), maxServerRequests: 2 });
    const r = await flood(client, "elicitation", 300);
    expect(asker.peak).toBeLessThanOrEqual(2);
    expect(asker.asked.length).toBeLessThan(300);
    expect(r.answered).toBe(asker.asked.length);
    expect(r.refused[0]).toMatch(/too many requests from this server at once: 2 sampling\/elicitation requests are already pending/);
  });
});
