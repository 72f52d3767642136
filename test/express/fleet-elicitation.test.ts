/**
 * @module test/express/fleet-elicitation.test
 * Questions a hosted tool asks, statelessly: on 2026-07-28 the call is
 * answered `input_required` with a `requestState` signed by the fleet key,
 * and the client's retry is sent to a SECOND router (another express app on
 * another port, same key, same resource, same call-record store): the tool
 * runs again there, its earlier answers read from the call's record, and
 * completes. A router with another key
 * refuses the state; a 2025-era client gets a clear tool error; the approval
 * guard's record carries the token's caller.
 */
import "reflect-metadata";
import { container } from "tsyringe";
import { afterEach, describe, expect, it } from "vitest";
import { Tool, tool, type Asker, type Decision, type RunContext as Ctx } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { McpServer } from "../../src/mcp/index.js";
import { MemoryCallRecords } from "../../src/records/memory-call-records.js";
import { closeAll, grant, hosted, messages, modernCall, post, sayYes } from "./kit.js";
import { v2Client } from "../helpers/v2-client.js";

afterEach(closeAll);

const KEY = "a fleet key of at least thirty-two bytes!";
const ASK = { type: "object", properties: { answer: { type: "string" } } } as const;

/** A tool asking two questions; `runs` records where each run started and how far it got. */
function interview(where: string, runs: string[]) {
  return tool(
    {
      name: "interview",
      description: "Asks twice.",
      sideEffecting: false,
      input: { type: "object", properties: { topic: { type: "string" } } },
    },
    async ({ topic }: { topic?: string }, ctx: Ctx) => {
      runs.push(`${where}: start`);
      const first = await ctx.elicit({ message: `First about ${topic}?`, requestedSchema: ASK as never });
      runs.push(`${where}: got first`);
      const second = await ctx.elicit({ message: "Second?", requestedSchema: ASK as never });
      runs.push(`${where}: done`);
      return JSON.stringify({ first: first.content, second: second.content });
    },
  );
}

const textOf = (r: unknown): string => (r as { content: Array<{ text?: string }> }).content[0]?.text ?? "";

describe("hosted elicitation across a fleet (2026-07-28 multi-round-trip)", () => {
  it("the question is asked by router A, the answer lands on router B (same key), and the call completes there", async () => {
    const runs: string[] = [];
    // One fleet: the same key and the same call-record store.
    const records = new MemoryCallRecords();
    const a = await hosted([interview("A", runs)], { fleetKey: KEY, tasks: { store: records } });
    const b = await hosted([interview("B", runs)], { fleetKey: KEY, tasks: { store: records }, resource: a.url });
    const token = grant(a, "t-fleet", []);
    b.tokens.set(token, a.tokens.get(token)!);
    // The first tools/call goes to A; every retry (with the requestState) to B.
    const toB = (url: string, method: string, nth: number): string =>
      method === "tools/call" && nth > 1 ? url.replace(a.url, b.url) : url;
    await using client = await v2Client(a.url, { token, version: "2026-07-28", elicit: sayYes, route: toB });
    const result = await client.callTool({ name: "interview", arguments: { topic: "deploys" } });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toEqual({ first: { answer: "yes to First about deploys?" }, second: { answer: "yes to Second?" } });
    expect(client.sent.filter((s) => s.method === "tools/call")).toHaveLength(3);
    expect(runs).toEqual(["A: start", "B: start", "B: got first", "B: start", "B: got first", "B: done"]);
  });

  it("a router with another fleet key refuses the state with -32602 naming the key; the tool does not run there", async () => {
    const runs: string[] = [];
    const a = await hosted([interview("A", runs)], { fleetKey: KEY });
    const b = await hosted([interview("B", runs)], { fleetKey: "another key, also thirty-two bytes long", resource: a.url });
    const token = grant(a, "t-keys", []);
    b.tokens.set(token, a.tokens.get(token)!);
    const auth = { authorization: `Bearer ${token}` };
    const first = modernCall("interview", { topic: "x" });
    const asked = (await messages(await post(a.url, first.body, { ...first.headers, ...auth }))).at(-1) as {
      result: { resultType: string; requestState: string; inputRequests: Record<string, unknown> };
    };
    expect(asked.result.resultType).toBe("input_required");
    const [key] = Object.keys(asked.result.inputRequests);
    const retry = modernCall(
      "interview",
      { topic: "x" },
      { requestState: asked.result.requestState, inputResponses: { [key!]: { action: "accept", content: { answer: "y" } } } },
    );
    const refused = (await messages(await post(b.url, retry.body, { ...retry.headers, ...auth }))).at(-1) as {
      error?: { code: number; message: string };
    };
    expect(refused.error).toMatchObject({ code: -32602, message: expect.stringContaining("signature does not verify") });
    expect(refused.error!.message).toContain("fleetKey");
    // Another caller cannot use the state either, even on the right key.
    const other = grant(a, "t-other", [], { clientId: "client-b", subject: "mallory" });
    const stolen = (await messages(await post(a.url, retry.body, { ...retry.headers, authorization: `Bearer ${other}` }))).at(-1) as {
      error?: { message: string };
    };
    expect(stolen.error?.message).toContain("it was issued to another caller");
    expect(runs).toEqual(["A: start"]);
  });

  it("a 2025-era client (no session) gets a tool error that says why and what works", async () => {
    const runs: string[] = [];
    const h = await hosted([interview("A", runs)], { fleetKey: KEY });
    await using client = await v2Client(h.url, { token: grant(h, "t-old-era", []), elicit: sayYes });
    const result = await client.callTool({ name: "interview", arguments: { topic: "x" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(
      "hosted statelessly (arc-agentkit/express), and a client on a 2025-era MCP protocol has no session to be asked on mid-call",
    );
    expect(textOf(result)).toContain("2026-07-28");
  });
});

describe("hosted module: the approval guard's record carries the caller", () => {
  const ASKER = Symbol.for("test:fleet:asker");
  @Tool({ description: "Ship a release.", requiresApproval: true, scopes: ["ship"] })
  class Ship {
    run(): string {
      return "shipped";
    }
  }
  @McpServer({ name: "ships", tools: [Ship], approvals: ASKER, guard: "asker" })
  class ShipModule {}

  it("the Asker hears which client asks, and the gate.check record names the client and subject", async () => {
    const questions: string[] = [];
    const asker: Asker = { ask: async (q): Promise<Decision> => (questions.push(q.question), { kind: "approve", actor: "ops" }) };
    const parent = container.createChildContainer();
    parent.register(ASKER, { useValue: asker });
    const ctx = makeTestCtx();
    const h = await hosted(ShipModule, { container: parent, ctx });
    await using client = await v2Client(h.url, {
      token: grant(h, "t-ship", ["ship"], { clientId: "release-bot", subject: "carol" }),
      version: "2026-07-28",
      elicit: sayYes,
    });
    expect(textOf(await client.callTool({ name: "ship", arguments: {} }))).toBe("shipped");
    expect(questions[0]).toContain("Client 'release-bot' (for 'carol') asks to run 'ship'");
    const checks = ctx.eventsNamed("gate.check").map((e) => e.data);
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({
      tool: "mcp__ships__ship",
      allowed: true,
      via: "mcp_guard",
      caller: { clientId: "release-bot", subject: "carol" },
    });
  });
});
