/**
 * @module test/core/util/format.test
 * Message helpers (src/util/format.ts) that keep messages as the seed prints them.
 */
import { describe, expect, it } from "vitest";
import { deepFreeze, describeValue, errorLine, pyList, pyStr, seconds, snakeCase } from "../../../src/util/format.js";

describe("Python-repr helpers", () => {
  it("pyList / pyStr quote like Python", () => {
    expect(pyList(["name", "strict"])).toBe("['name', 'strict']");
    expect(pyList([])).toBe("[]");
    expect(pyStr("it's")).toBe('"it\'s"');
    expect(pyStr(`both ' and "`)).toBe(`'both \\' and "'`);
    expect(pyStr("back\\slash")).toBe("'back\\\\slash'");
  });
});

describe("seconds()", () => {
  it.each([
    [50, "0.05s"],
    [120_000, "120s"],
    [1_500, "1.5s"],
    [30_000, "30s"],
    [0, "0s"],
    [1, "0.001s"],
  ])("%s ms -> %s", (ms, text) => {
    expect(seconds(ms)).toBe(text);
  });
});

describe("snakeCase()", () => {
  it.each([
    ["RunCheck", "run_check"],
    ["runCheck", "run_check"],
    ["run-check", "run_check"],
    ["run check", "run_check"],
    ["HTTPServer", "http_server"],
    ["already_snake", "already_snake"],
    ["V2", "v2"],
  ])("%s -> %s", (name, out) => {
    expect(snakeCase(name)).toBe(out);
  });
});

describe("describeValue()", () => {
  it.each<[unknown, string]>([
    ["yes", 'string "yes"'],
    [7, "number 7"],
    [false, "boolean false"],
    [null, "null"],
    [undefined, "undefined"],
    [[1, 2], "array [1,2]"],
    [{ a: 1 }, 'object {"a":1}'],
  ])("%j -> %s", (v, text) => {
    expect(describeValue(v)).toBe(text);
  });

  it("shortens long values to 60 characters", () => {
    const text = describeValue("x".repeat(100));
    expect(text).toBe(`string "${"x".repeat(56)}...`);
  });

  it("survives values JSON cannot render", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(describeValue(cyclic)).toBe("object [object Object]");
    expect(describeValue(10n)).toBe("bigint 10");
  });
});

describe("errorLine() and deepFreeze()", () => {
  it("errorLine renders 'Name: message', the class's name for an unnamed subclass, a non-Error as such, and never throws", () => {
    expect(errorLine(new RangeError("out"))).toBe("RangeError: out");
    class TimeoutError extends Error {}
    expect(errorLine(new TimeoutError("upstream read timed out after 3s"))).toBe("TimeoutError: upstream read timed out after 3s");
    expect(errorLine(new Error())).toBe("Error");
    expect(errorLine("plain")).toBe('non-Error value thrown: string "plain"');
    const hostile = new Error("x");
    Object.defineProperty(hostile, "message", {
      get: () => {
        throw new Error("no");
      },
    });
    expect(errorLine(hostile)).toBe("an error that could not be read");
  });

  it("deepFreeze freezes nested objects and arrays in place", () => {
    const v = { a: { b: [1, { c: 2 }] } };
    expect(deepFreeze(v)).toBe(v);
    expect(Object.isFrozen(v.a.b[1])).toBe(true);
    expect(deepFreeze(5)).toBe(5);
  });
});
