/**
 * @module test/express/hosted-rounds.test
 * A hosted multi-round-trip call is one record in the module's call-record
 * store, and each of its rounds is answered once: an answered
 * `requestState` replayed (to the process that took it, or to another one
 * on the same store) is refused with -32602 and the code after the question
 * ran once; a retry reaching a process whose store has no such record is
 * refused naming the fix; a guarded call with two questions asks its
 * approver once.
 */
import "reflect-metadata";
import { container } from "tsyringe";
import { afterEach, describe, expect, it } from "vitest";
import { Tool, tool, type Asker, type Decision, type RunContext as Ctx } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { McpServer } from "../../src/mcp/index.js";
import { MemoryCallRecords } from "../../src/records/memory-call-records.js";
import { closeAll, grant, hosted, messages, modernCall, post, sayYes, type Hosted } from "./kit.js";
import { v2Client } from "../helpers/v2-client.js";

afterEach(closeAll);

const KEY = "a fleet key of at least thirty-two bytes!";
const ASK = { type: "object", properties: { answer: { type: "string" } } } as const;

/** A tool asking one question; `after` counts how often the code after it ran. */
function confirmer(after: string[]) {
  return tool(
    {
      name: "confirm",
      description: "Asks once.",
      sideEffecting: true,
      input: { type: "object", properties: { what: { type: "string" } } },
    },
    async ({ what }: { what?: string }, ctx: Ctx) => {
      const answer = await ctx.elicit({ message: `Do ${what}?`, requestedSchema: ASK as never });
      after.push(`${what}: ${answer.action}`);
      return `done ${what}`;
    },
  );
}

interface Wire {
  result?: {
    resultType?: string;
    requestState?: string;
    inputRequests?: Record<string, unknown>;
    content?: Array<{ text: string }>;
    isError?: boolean;
  };
  error?: { code: number; message: string };
}

/** One raw 2026-07-28 `tools/call` of `name` on `h` with `token`; the final JSON-RPC message. */
async function call(
  h: Hosted,
  token: string,
  name: string,
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<Wire> {
  const c = modernCall(name, args, extra);
  return (await messages(await post(h.url, c.body, { ...c.headers, authorization: `Bearer ${token}` }))).at(-1) as Wire;
}

/** The retry params answering the open question of `asked` with `answer`. */
function retryOf(asked: Wire, answer = "yes"): Record<string, unknown> {
  const [key] = Object.keys(asked.result!.inputRequests!);
  return { requestState: asked.result!.requestState, inputResponses: { [key!]: { action: "accept", content: { answer } } } };
}

describe("hosted multi-round-trip: each round is answered once", () => {
  it("one process: an answered state replayed is refused with -32602; the code after the question ran once", async () => {
    const after: string[] = [];
    const h = await hosted([confirmer(after)], { fleetKey: KEY });
    const token = grant(h, "t-one", []);
    const asked = await call(h, token, "confirm", { what: "deploy" });
    expect(asked.result?.resultType).toBe("input_required");
    const retry = retryOf(asked);
    const done = await call(h, token, "confirm", { what: "deploy" }, retry);
    expect(done.result?.content?.[0]?.text).toBe("done deploy");
    const replayed = await call(h, token, "confirm", { what: "deploy" }, retry);
    expect(replayed.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining("requestState: round 1 of this call was already answered"),
    });
    expect(after).toEqual(["deploy: accept"]);
  });

  it("two processes on one store: the state replayed to either is refused; the code after the question ran once", async () => {
    const after: string[] = [];
    const records = new MemoryCallRecords();
    const a = await hosted([confirmer(after)], { fleetKey: KEY, tasks: { store: records } });
    const b = await hosted([confirmer(after)], { fleetKey: KEY, tasks: { store: records }, resource: a.url });
    const token = grant(a, "t-two", []);
    b.tokens.set(token, a.tokens.get(token)!);
    const asked = await call(a, token, "confirm", { what: "ship" });
    const retry = retryOf(asked);
    expect((await call(b, token, "confirm", { what: "ship" }, retry)).result?.content?.[0]?.text).toBe("done ship");
    for (const h of [a, b, a]) {
      const replayed = await call(h, token, "confirm", { what: "ship" }, retry);
      expect(replayed.error).toMatchObject({ code: -32602, message: expect.stringContaining("already answered") });
    }
    expect(after).toEqual(["ship: accept"]);
  });

  it("a retry on a process whose store has no such record is refused, naming the fix (one store for the fleet)", async () => {
    const after: string[] = [];
    const a = await hosted([confirmer(after)], { fleetKey: KEY, tasks: { store: new MemoryCallRecords() } });
    const b = await hosted([confirmer(after)], { fleetKey: KEY, tasks: { store: new MemoryCallRecords() }, resource: a.url });
    const token = grant(a, "t-split", []);
    b.tokens.set(token, a.tokens.get(token)!);
    const asked = await call(a, token, "confirm", { what: "x" });
    const refused = await call(b, token, "confirm", { what: "x" }, retryOf(asked));
    expect(refused.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining("give every process of the fleet the same store"),
    });
    expect(refused.error!.message).toContain("agentkit host --store postgres://");
    expect(after).toEqual([]);
    // The process that asked still takes the answer.
    expect((await call(a, token, "confirm", { what: "x" }, retryOf(asked))).result?.content?.[0]?.text).toBe("done x");
  });

  it("a call with two questions: a first-round state replayed after the second round is refused too; each piece of code after a question ran once", async () => {
    const runs: string[] = [];
    const twice = tool(
      { name: "twice", description: "Asks twice.", sideEffecting: true, input: { type: "object", properties: {} } },
      async (_a: Record<string, never>, ctx: Ctx) => {
        runs.push("start");
        await ctx.elicit({ message: "One?", requestedSchema: ASK as never });
        runs.push("after one");
        await ctx.elicit({ message: "Two?", requestedSchema: ASK as never });
        runs.push("after two");
        return "both";
      },
    );
    const h = await hosted([twice], { fleetKey: KEY });
    const token = grant(h, "t-twice", []);
    const one = await call(h, token, "twice", {});
    const two = await call(h, token, "twice", {}, retryOf(one));
    expect(two.result?.resultType).toBe("input_required");
    expect((await call(h, token, "twice", {}, retryOf(one))).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining("round 1 of this call was already answered"),
    });
    expect((await call(h, token, "twice", {}, retryOf(two))).result?.content?.[0]?.text).toBe("both");
    expect((await call(h, token, "twice", {}, retryOf(two))).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining("round 2 of this call was already answered"),
    });
    // Code before a question may run again (the documented contract); code after the last one ran once.
    expect(runs.filter((r) => r === "after two")).toHaveLength(1);
    expect(runs).toEqual(["start", "start", "after one", "start", "after one", "after two"]);
  });
});

describe("hosted: a guarded call asks its approver once", () => {
  const ASKER = Symbol.for("test:hosted-rounds:asker");
  @Tool({ description: "Ship after two questions.", requiresApproval: true })
  class Ship {
    async run(_input: unknown, ctx: Ctx): Promise<string> {
      const a = await ctx.elicit({ message: "Which region?", requestedSchema: ASK as never });
      const b = await ctx.elicit({ message: "Sure?", requestedSchema: ASK as never });
      return `shipped ${String(a.content?.answer)} ${String(b.content?.answer)}`;
    }
  }
  @McpServer({ name: "ships", tools: [Ship], approvals: ASKER, guard: "asker" })
  class ShipModule {}

  it("two questions, three requests: the approver is asked once, one gate.check is recorded", async () => {
    const questions: string[] = [];
    const asker: Asker = { ask: async (q): Promise<Decision> => (questions.push(q.question), { kind: "approve", actor: "ops" }) };
    const parent = container.createChildContainer();
    parent.register(ASKER, { useValue: asker });
    const ctx = makeTestCtx();
    const h = await hosted(ShipModule, { container: parent, ctx, fleetKey: KEY });
    await using client = await v2Client(h.url, { token: grant(h, "t-ship", []), version: "2026-07-28", elicit: sayYes });
    const result = await client.callTool({ name: "ship", arguments: {} });
    expect((result.content as Array<{ text: string }>)[0]!.text).toBe("shipped yes to Which region? yes to Sure?");
    expect(client.sent.filter((s) => s.method === "tools/call")).toHaveLength(3);
    expect(questions).toHaveLength(1);
    expect(ctx.eventsNamed("gate.check")).toHaveLength(1);
  });
});
