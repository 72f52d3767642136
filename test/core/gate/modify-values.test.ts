/**
 * @module test/core/gate/modify-values.test
 * Issue 14, defect 5, at every gate entry point: a `modify` whose value is not
 * a plain JSON object (one that survives a JSON round trip with nothing lost)
 * is a deny naming why, and the tool never runs; a Decision whose `kind`
 * getter throws is a deny recorded `asked: true` (the Asker was called).
 */
import { describe, expect, it } from "vitest";
import type { Asker, Decision } from "../../../src/index.js";
import { ENTRY_POINTS, runThrough } from "./entry-points.js";

class Target {
  constructor(readonly target: string) {}
}
const circular = (): Record<string, unknown> => {
  const v: Record<string, unknown> = { target: "staging" };
  v.self = v;
  return v;
};

/** [what, the modify value, a word the denial must contain] */
const BAD_VALUES: Array<[string, () => unknown, RegExp]> = [
  ["a Date", () => new Date(0), /Date/],
  ["a BigInt inside", () => ({ target: "staging", n: 10n }), /BigInt/],
  ["a circular object", circular, /circular/],
  ["an array", () => [{ target: "staging" }], /array/],
  ["a class instance", () => new Target("staging"), /Target/],
  ["a function inside", () => ({ target: "staging", run: () => 1 }), /function/],
  ["an undefined value inside", () => ({ target: "staging", extra: undefined }), /undefined/],
  ["a non-finite number inside", () => ({ target: "staging", n: Number.NaN }), /NaN/],
  ["a Date inside", () => ({ target: new Date(0) }), /Date/],
];

const answering = (decision: () => unknown) => (): Asker => ({ ask: async () => decision() as Decision });

describe.each(ENTRY_POINTS)("defect 5 via %s", (entry) => {
  it.each(BAD_VALUES)("modify with %s is a deny naming why; nothing runs", async (_what, value, why) => {
    const out = await runThrough(entry, {
      asker: answering(() => ({ kind: "modify", actor: "ops", value: value() })),
      requiresApproval: true,
    });
    expect(out.allowed).toBe(false);
    expect(out.askerCalls).toBe(1);
    expect(out.message).toMatch(why);
    expect(out.record).toMatchObject({ allowed: false, asked: true, source: "asker", actor: "ops" });
  });

  it("a Decision whose kind getter throws is a deny recorded asked: true", async () => {
    const hostile = {
      get kind(): string {
        throw new Error("kind exploded");
      },
    };
    const out = await runThrough(entry, { asker: answering(() => hostile), requiresApproval: true });
    expect(out.allowed).toBe(false);
    expect(out.askerCalls).toBe(1);
    expect(out.message).toMatch(/kind exploded/);
    expect(out.record).toMatchObject({ allowed: false, asked: true, source: "error" });
  });
});
