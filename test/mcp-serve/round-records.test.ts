/**
 * @module test/mcp-serve/round-records.test
 * The record of a multi-round-trip call, without a wire: a question is in the
 * store before its state exists, the state names only the record and round,
 * a round is taken once (a second take is -32602, also from a second
 * `RoundRecords` on the same store), the guard's verdict is the record's
 * `guard` answer, and a question whose state expired is ended by the sweep.
 */
import type { ServerContext } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryCallRecords } from "../../src/records/memory-call-records.js";
import { RequestStateSigner } from "../../src/mcp/serve/request-state.js";
import { admittedBy, clientAnswers, RoundRecords, type RoundCall } from "../../src/mcp/serve/round-records.js";

const KEY = "a fleet key of at least thirty-two bytes!";

/** A retry's context carrying `answers` under their keys (and no HTTP request: the principal is fixed). */
function extraWith(answers: Record<string, unknown> = {}): ServerContext {
  return {
    mcpReq: { inputResponses: answers, envelope: { "io.modelcontextprotocol/clientInfo": { name: "unit-client" } } },
  } as unknown as ServerContext;
}

function roundsOn(store: MemoryCallRecords, ttlMs = 60_000): RoundRecords {
  return new RoundRecords(store, new RequestStateSigner(KEY, ttlMs, () => "alice"), "engine", () => "owner-1");
}

const call = (extra = extraWith(), admitted?: RoundCall["admitted"]): RoundCall => ({
  tool: "deploy",
  args: { to: "prod" },
  extra,
  ...(admitted ? { admitted } : {}),
});

afterEach(() => vi.useRealTimers());

describe("round records", () => {
  it("a question is a 'rounds' record in the store before its state is minted; the state names the record and round only", async () => {
    const store = new MemoryCallRecords();
    const seen: string[] = [];
    store.subscribeRecords((e) => seen.push(`${e.record.kind} ${e.record.status} round ${e.record.round}`));
    const asked = await roundsOn(store).asked(
      undefined,
      call(undefined, () => ({ allowed: true, arguments: { to: "staging" } })),
      "elicitation/create",
      { message: "Sure?" },
    );
    expect(seen).toEqual(["rounds input_required round 1"]);
    expect(asked.key).toBe("elicit-1");
    expect(asked.record).toMatchObject({
      kind: "rounds",
      owner: "owner-1",
      server: "engine",
      tool: "deploy",
      question: { key: "elicit-1", method: "elicitation/create" },
    });
    expect(admittedBy(asked.record)).toEqual({ allowed: true, arguments: { to: "staging" } });
    expect(clientAnswers(asked.record)).toEqual([]);
    const body = JSON.parse(Buffer.from(asked.state.split(".")[1]!, "base64url").toString("utf8")) as { p: Record<string, unknown> };
    expect(Object.keys(body.p).sort()).toEqual(["h", "n", "r", "t", "x"]);
    expect(body.p).toMatchObject({ r: asked.record.id, n: 1, t: "deploy" });
  });

  it("a round is taken once: the same state again, here or on a second RoundRecords on the same store, is -32602", async () => {
    const store = new MemoryCallRecords();
    const here = roundsOn(store);
    const there = roundsOn(store);
    const asked = await here.asked(undefined, call(), "elicitation/create", { message: "Sure?" });
    const retry = call(extraWith({ "elicit-1": { action: "accept", content: { ok: true } } }));
    const claim = await there.open(asked.state, retry);
    const taken = await there.take(claim, undefined, retry);
    expect(taken.value).toEqual({ action: "accept", content: { ok: true } });
    expect(clientAnswers(taken.record)).toEqual([
      {
        key: "elicit-1",
        method: "elicitation/create",
        value: { action: "accept", content: { ok: true } },
        by: "unit-client (requestState retry)",
      },
    ]);
    for (const rounds of [here, there]) {
      await expect(rounds.take(await rounds.open(asked.state, retry), undefined, retry)).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining("round 1 of this call was already answered"),
      });
    }
    // Two retries at once: the store's compare-and-set lets one through.
    const second = await here.asked(taken.record, call(), "elicitation/create", { message: "Really?" });
    const again = call(extraWith({ "elicit-2": { action: "decline" } }));
    const c2 = await here.open(second.state, again);
    const both = await Promise.allSettled([here.take(c2, undefined, again), there.take(c2, undefined, again)]);
    expect(both.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
  });

  it("the sweep ends a question whose state expired (cancelled), and leaves a fresh one waiting", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-12-06T06:00:00Z"));
    const store = new MemoryCallRecords();
    const rounds = roundsOn(store, 1000);
    const old = await rounds.asked(undefined, call(), "elicitation/create", { message: "Old?" });
    const ended: string[] = [];
    store.subscribeRecords((e) => e.record.status === "cancelled" && ended.push(e.record.id));
    vi.setSystemTime(new Date("2026-12-06T06:02:00Z"));
    const fresh = await rounds.asked(undefined, call(), "elicitation/create", { message: "New?" });
    await vi.waitFor(() => expect(ended).toEqual([old.record.id]), { timeout: 10_000 });
    // Final and past its TTL (17 state lifetimes from its creation): dropped in the same sweep.
    await vi.waitFor(() => expect(store.has(old.record.id)).toBe(false), { timeout: 10_000 });
    expect((await store.getRecord(fresh.record.id, "owner-1"))?.status).toBe("input_required");
  });
});
