/**
 * @module test/core/gate/engine.test
 * The approval engine (src/gate) on its own: every Decision kind, the order
 * autoAllow -> tier -> Asker, the enforced deadline, an Asker that throws or
 * returns nonsense, autoAllowWhen subtracting only, the frozen verdict and its
 * record, and the plain-JSON check of a modify value.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Asker, Decision } from "../../../src/contracts/elicitation.js";
import { setLogger, type Logger } from "../../../src/util/logger.js";
import { checkTimeoutMs } from "../../../src/options/option-checks.js";
import {
  GATE_SOURCES,
  gateCheckOf,
  gateVerdict,
  isAutoAllowed,
  plainJsonObject,
  verdictFromDecision,
  type GateRequest,
  type GateSubject,
} from "../../../src/gate/index.js";
import { askerAnswering } from "../../helpers/asker.js";

const write = (path = "/etc/passwd"): GateSubject => ({
  tool: "Write",
  arguments: { file_path: path },
  id: "toolu_1",
  via: "approval_server",
});
type Policy = Omit<GateRequest, keyof GateSubject> & Partial<GateSubject>;
/** The engine, called the way the old decide(prompt, policy) was. */
const decide = (subject: Pick<GateSubject, "tool" | "arguments"> & Partial<GateSubject>, policy: Policy) =>
  gateVerdict({ via: "approval_server", ...subject, ...policy });

/** An Asker that never answers. */
const askerNeverAnswering = (): Asker & { calls: number } => {
  const a = { calls: 0, ask: () => (a.calls++, new Promise<Decision>(() => {})) };
  return a;
};
const askerThrowing = (err: unknown): Asker => ({ ask: async () => Promise.reject(err) });

function captureWarnings(): string[] {
  const warned: string[] = [];
  const logger: Logger = { debug: () => {}, info: () => {}, warn: (m) => warned.push(m), error: (m) => warned.push(m) };
  const prev = setLogger(logger);
  restore.push(() => setLogger(prev));
  return warned;
}
const restore: Array<() => void> = [];
afterEach(() => restore.splice(0).forEach((r) => r()));

describe("verdictFromDecision: the seed's table", () => {
  it("approve -> allow with the original arguments; actor kept", () => {
    const v = verdictFromDecision({ kind: "approve", actor: "ci" }, write("out.txt"), 30_000);
    expect(v).toMatchObject({ allowed: true, source: "asker", asked: true, actor: "ci", modified: false, reason: "approved by ci" });
    expect(v.arguments).toEqual({ file_path: "out.txt" });
  });

  it("modify with an object value -> allow with the edited arguments", () => {
    const v = verdictFromDecision({ kind: "modify", actor: "ops", value: { file_path: "/tmp/x" }, note: "use tmp" }, write(), undefined);
    expect(v).toMatchObject({ allowed: true, source: "asker", modified: true, reason: "approved with changes by ops: use tmp" });
    expect(v.arguments).toEqual({ file_path: "/tmp/x" });
  });

  it("modify without a plain JSON object is a deny naming why", () => {
    const why: Array<[unknown, string]> = [
      [undefined, "there is no value"],
      ["x", "the value is a string, not an object"],
      [["a"], "the value is an array, not an object"],
      [null, "the value is null, not an object"],
    ];
    for (const [value, reason] of why) {
      const v = verdictFromDecision({ kind: "modify", actor: "ops", value }, write(), undefined);
      expect(v).toMatchObject({
        allowed: false,
        source: "asker",
        asked: true,
        kind: "modify",
        reason: `denied: 'modify' from ops carried no plain JSON object to run with (${reason})`,
      });
    }
  });

  it("reject -> deny whose message is the note exactly; refusal names who", () => {
    const v = verdictFromDecision({ kind: "reject", actor: "ci", note: "/etc is out of scope" }, write(), 30_000);
    expect(v).toMatchObject({
      allowed: false,
      source: "asker",
      asked: true,
      actor: "ci",
      reason: "/etc is out of scope",
      refusal: "rejected by ci: /etc is out of scope",
    });
    expect(verdictFromDecision({ kind: "reject" }, write(), undefined)).toMatchObject({ reason: "rejected by the reviewer", actor: null });
  });

  it("any other kind -> deny with the note, or a message naming the kind", () => {
    expect(verdictFromDecision({ kind: "maybe", note: "ask me later" }, write(), undefined)).toMatchObject({
      allowed: false,
      source: "asker",
      reason: "ask me later",
    });
    expect(verdictFromDecision({ kind: "maybe", actor: "bo" }, write(), undefined).reason).toBe(
      'denied: bo answered with decision kind string "maybe", which is neither approve nor modify',
    );
    expect(verdictFromDecision({}, write(), undefined)).toMatchObject({ allowed: false, source: "asker" });
  });

  it("expired -> deny (source asker) whose message names the deadline", () => {
    expect(verdictFromDecision({ kind: "expired" }, write(), 120_000)).toMatchObject({
      allowed: false,
      source: "asker",
      asked: true,
      reason: "approval for 'Write' expired: nobody answered before the 120s deadline",
    });
    expect(verdictFromDecision({ kind: "expired", note: "queue closed" }, write(), undefined).reason).toBe(
      "approval for 'Write' expired: nobody answered before the Asker's own deadline (no timeoutMs is set) (queue closed)",
    );
  });

  it("something that is not a Decision -> deny, source error", () => {
    for (const d of [undefined, null, "approve", 1]) {
      expect(verdictFromDecision(d, write(), undefined)).toMatchObject({ allowed: false, source: "error", asked: true });
    }
    expect(verdictFromDecision(undefined, write(), undefined).reason).toBe(
      "approval for 'Write' failed: the Asker returned undefined instead of a Decision; denied (not a policy decision)",
    );
  });
});

describe("isAutoAllowed: names only, and autoAllowWhen only subtracts", () => {
  const allow = new Set(["Read"]);
  it("a listed tool is allowed whatever its arguments; an unlisted one never", () => {
    expect(isAutoAllowed({ tool: "Read", arguments: { file_path: "/etc/passwd" } }, allow, undefined)).toBe(true);
    expect(isAutoAllowed({ tool: "Write", arguments: {} }, allow, undefined)).toBe(false);
    expect(isAutoAllowed({ tool: "read", arguments: {} }, allow, undefined)).toBe(false);
  });

  it("a predicate returning true cannot let in a tool that is not listed (never consulted)", () => {
    let consulted = 0;
    const yes = () => (consulted++, true);
    expect(isAutoAllowed({ tool: "Write", arguments: {} }, allow, yes)).toBe(false);
    expect(isAutoAllowed({ tool: "Write", arguments: {} }, undefined, yes)).toBe(false);
    expect(consulted).toBe(0);
  });

  it("the predicate narrows a listed tool; anything but true counts as no", () => {
    const notEtc = (_t: string, a: Record<string, unknown>) => !String(a.file_path ?? "").startsWith("/etc/");
    expect(isAutoAllowed({ tool: "Read", arguments: { file_path: "README.md" } }, allow, notEtc)).toBe(true);
    expect(isAutoAllowed({ tool: "Read", arguments: { file_path: "/etc/passwd" } }, allow, notEtc)).toBe(false);
    expect(isAutoAllowed({ tool: "Read", arguments: {} }, allow, (() => 1) as unknown as () => boolean)).toBe(false);
  });

  it("a predicate that throws falls through (false) and is logged", () => {
    const warned = captureWarnings();
    const boom = () => {
      throw new Error("bad filter");
    };
    expect(isAutoAllowed({ tool: "Read", arguments: {} }, allow, boom)).toBe(false);
    expect(warned).toEqual(["approvals: autoAllowWhen threw for 'Read' (Error: bad filter); asking the Asker instead"]);
  });
});

describe("decide: order, deadline, failures", () => {
  const policy = (p: Partial<Policy> & { asker: Asker }): Policy => ({ autonomy: "gated", ...p });

  it("autoAllow is checked before the tier, and asks nobody", async () => {
    const asker = askerAnswering({ kind: "reject" });
    for (const autonomy of ["gated", "auto"] as const) {
      const v = await decide(
        { tool: "Read", arguments: { file_path: "/etc/passwd" } },
        policy({ asker, autonomy, autoAllow: new Set(["Read"]) }),
      );
      expect(v).toMatchObject({
        allowed: true,
        source: "auto_allow",
        asked: false,
        actor: null,
        reason: "'Read' is in autoAllow; no one was asked",
      });
    }
    expect(asker.seen).toHaveLength(0);
  });

  it("under auto, an unlisted prompt is allowed without asking (source autonomy)", async () => {
    const asker = askerAnswering({ kind: "reject" });
    const v = await decide(write(), policy({ asker, autonomy: "auto" }));
    expect(v).toMatchObject({
      allowed: true,
      source: "autonomy",
      asked: false,
      reason: `autonomy "auto" does not gate 'Write'; no one was asked`,
    });
    expect(v.arguments).toEqual({ file_path: "/etc/passwd" });
    expect(asker.seen).toHaveLength(0);
  });

  it("under gated (and by default), it goes to the Asker with an Elicitation carrying the tool call", async () => {
    const asker = askerAnswering({ kind: "approve", actor: "ci" });
    const v = await decide(write("out.txt"), { asker, timeoutMs: 30_000, question: "Allow?" });
    expect(v).toMatchObject({ allowed: true, source: "asker", asked: true });
    expect(asker.seen).toEqual([
      {
        question: "Allow?",
        toolCall: { id: "toolu_1", name: "Write", arguments: { file_path: "out.txt" } },
        source: "approval_server",
        timeoutMs: 30_000,
      },
    ]);
  });

  it("a raising autoAllowWhen falls through to the Asker", async () => {
    captureWarnings();
    const asker = askerAnswering({ kind: "reject", note: "no" });
    const v = await decide(
      { tool: "Read", arguments: {} },
      policy({
        asker,
        autoAllow: new Set(["Read"]),
        autoAllowWhen: () => {
          throw new Error("x");
        },
      }),
    );
    expect(v).toMatchObject({ allowed: false, source: "asker", asked: true, reason: "no" });
    expect(asker.seen).toHaveLength(1);
  });

  it("the server's deadline: an Asker that never answers -> deny, source timeout, asked, message names the deadline", async () => {
    const asker = askerNeverAnswering();
    const v = await decide(write(), policy({ asker, timeoutMs: 50 }));
    expect(v).toMatchObject({ allowed: false, source: "timeout", asked: true, actor: null });
    expect(v.reason).toBe("approval for 'Write' timed out: nobody answered within 0.05s; denied (a timeout, not a refusal)");
    expect(asker.calls).toBe(1);
  });

  it("an Asker that throws (async or sync) -> deny carrying the reason, source error", async () => {
    const v = await decide(write(), policy({ asker: askerThrowing(new Error("socket closed")) }));
    expect(v).toMatchObject({
      allowed: false,
      source: "error",
      asked: true,
      reason: "approval for 'Write' failed: the Asker threw Error: socket closed; denied (not a policy decision)",
    });
    const sync: Asker = {
      ask: () => {
        throw new TypeError("not wired");
      },
    };
    expect((await decide(write(), policy({ asker: sync }))).reason).toBe(
      "approval for 'Write' failed: the Asker threw TypeError: not wired; denied (not a policy decision)",
    );
    expect((await decide(write(), policy({ asker: askerThrowing("plain string") }))).reason).toContain(
      'the Asker threw non-Error value thrown: string "plain string"',
    );
  });

  it("an abort signal abandons a pending ask as a denial (source error)", async () => {
    const controller = new AbortController();
    const pending = decide(write(), policy({ asker: askerNeverAnswering(), signal: controller.signal }));
    controller.abort(new Error("the approval server stopped before anyone answered"));
    expect(await pending).toMatchObject({
      allowed: false,
      source: "error",
      asked: true,
      reason: "approval for 'Write' failed: the approval server stopped before anyone answered; denied (not a policy decision)",
    });
  });

  it("the Asker gets a copy: editing what it was shown does not change what an approve runs", async () => {
    const asker: Asker = {
      ask: async (r) => {
        (r.toolCall!.arguments as Record<string, unknown>).file_path = "/etc/shadow";
        return { kind: "approve" };
      },
    };
    const v = await decide(write("out.txt"), policy({ asker }));
    expect(v.arguments).toEqual({ file_path: "out.txt" });
  });

  it("timeoutMs is checked where given", () => {
    expect(checkTimeoutMs(undefined, "X")).toBeUndefined();
    expect(checkTimeoutMs(50, "X")).toBe(50);
    for (const bad of [0, -1, Number.NaN, Infinity, "30", 2 ** 31]) {
      expect(() => checkTimeoutMs(bad, "ApprovalServer")).toThrow(/^ApprovalServer: timeoutMs must be a positive number of milliseconds/);
    }
  });
});

describe("the verdict and its record", () => {
  it("is frozen, carries a frozen record, and gate.check is the record without the arguments", async () => {
    const v = await decide(write("out.txt"), { asker: askerAnswering({ kind: "modify", actor: "ops", value: { file_path: "/tmp/x" } }) });
    expect(Object.isFrozen(v) && Object.isFrozen(v.record) && Object.isFrozen(v.record.arguments)).toBe(true);
    expect(v.record).toMatchObject({
      tool: "Write",
      id: "toolu_1",
      via: "approval_server",
      allowed: true,
      source: "asker",
      asked: true,
      kind: "modify",
      actor: "ops",
    });
    expect(v.record.arguments).toEqual({ file_path: "out.txt" });
    expect(v.record.updatedArguments).toEqual({ file_path: "/tmp/x" });
    expect(Object.keys(gateCheckOf(v.record)).sort()).toEqual([
      "actor",
      "allowed",
      "asked",
      "at",
      "id",
      "kind",
      "questionId",
      "reason",
      "source",
      "tool",
      "via",
    ]);
  });

  it("the closed source set", () => {
    expect(GATE_SOURCES).toEqual(["asker", "auto_allow", "autonomy", "timeout", "error"]);
    expect(Object.isFrozen(GATE_SOURCES)).toBe(true);
  });

  it("the tier: requiresApproval asks under auto; a non-key step under gated does not", async () => {
    const asker = askerAnswering({ kind: "approve" });
    expect(await decide(write(), { asker, autonomy: "auto", requiresApproval: true })).toMatchObject({ source: "asker", asked: true });
    expect(await decide(write(), { asker, autonomy: "gated", keyStep: false })).toMatchObject({
      allowed: true,
      source: "autonomy",
      asked: false,
    });
    expect(asker.seen).toHaveLength(1);
  });

  it("no Asker, or a signal aborted before asking: a deny that asked nobody", async () => {
    expect(await decide(write(), {})).toMatchObject({ allowed: false, source: "error", asked: false });
    const aborted = AbortSignal.abort(new Error("gone"));
    const asker = askerAnswering({ kind: "approve" });
    expect(await decide(write(), { asker, signal: aborted })).toMatchObject({
      allowed: false,
      source: "error",
      asked: false,
      reason: "approval for 'Write' failed: gone; denied (not a policy decision)",
    });
    expect(asker.seen).toHaveLength(0);
  });

  it("a Decision whose getters throw, or a Proxy that throws, is a deny recorded asked: true", async () => {
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error("trap");
        },
      },
    );
    for (const d of [
      {
        get kind(): string {
          throw new Error("kind exploded");
        },
      },
      {
        kind: "approve",
        get actor(): string {
          throw new Error("actor exploded");
        },
      },
      hostile,
    ]) {
      const v = await decide(write(), { asker: askerAnswering(d as Decision) });
      expect(v).toMatchObject({ allowed: false, source: "error", asked: true });
      // (a Proxy whose get trap throws already fails when the Asker's promise reads its `then`)
      expect(v.reason).toMatch(
        /^approval for 'Write' failed: (reading the Asker's Decision threw Error: (kind exploded|actor exploded)|the Asker threw Error: trap); denied \(not a policy decision\)$/,
      );
    }
  });
});

describe("plainJsonObject: a modify value must survive a JSON round trip whole", () => {
  class Box {
    v = 1;
  }
  const cyc: Record<string, unknown> = {};
  cyc.a = { b: cyc };
  it.each<[string, unknown, string]>([
    ["a Date", new Date(0), "value is a Date, not plain JSON"],
    ["a nested BigInt", { n: 1n }, "value.n is a BigInt, which JSON cannot encode"],
    ["a cycle", cyc, "value.a.b is circular (it contains itself)"],
    ["a class instance", new Box(), "value is a Box, not plain JSON"],
    ["a Map", { m: new Map() }, "value.m is a Map, not plain JSON"],
    ["a function", { f: () => 1 }, "value.f is a function, which JSON drops"],
    ["undefined", { u: undefined }, "value.u is undefined, which JSON drops"],
    ["Infinity", { x: [1, Infinity] }, "value.x[1] is a non-finite number (Infinity), which JSON turns into null"],
    // eslint-disable-next-line no-sparse-arrays -- the hole is the point
    ["a sparse array", { x: [1, , 3] }, "value.x is a sparse array or has extra keys, which JSON does not keep"],
    ["a symbol key", { [Symbol("s")]: 1 }, "value has symbol keys, which JSON drops"],
  ])("refuses %s", (_what, value, why) => {
    expect(plainJsonObject(value)).toEqual({ ok: false, why });
  });

  it("a getter that throws is a reason, not an exception", () => {
    expect(
      plainJsonObject({
        get x(): number {
          throw new Error("no");
        },
      }),
    ).toEqual({ ok: false, why: "reading the value threw Error: no" });
    // The one error line (errorLine): a subclass by its class name, a thrown non-Error by its JSON type.
    class LockedError extends Error {}
    expect(
      plainJsonObject({
        get x(): number {
          throw new LockedError("held");
        },
      }),
    ).toEqual({ ok: false, why: "reading the value threw LockedError: held" });
    expect(
      plainJsonObject({
        get x(): number {
          throw "nope";
        },
      }),
    ).toEqual({ ok: false, why: 'reading the value threw non-Error value thrown: string "nope"' });
  });

  it("accepts plain JSON and returns a fresh copy read once; a __proto__ key stays a key", () => {
    let reads = 0;
    const src = {
      a: [1, "two", null, { b: true }],
      get once() {
        reads++;
        return "x";
      },
    };
    const r = plainJsonObject(src);
    expect(r).toEqual({ ok: true, value: { a: [1, "two", null, { b: true }], once: "x" } });
    expect(reads).toBe(1);
    const proto = plainJsonObject(JSON.parse('{"__proto__": {"polluted": true}}'));
    expect(proto.ok && Object.getPrototypeOf(proto.value)).toBe(Object.prototype);
    expect(proto.ok && Object.keys(proto.value)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
