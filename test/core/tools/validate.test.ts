/**
 * @module test/core/tools/validate.test
 * Argument validation before `run` (src/tools/validate.ts): the exact
 * ToolArgumentError texts for DTO and raw-JSON-Schema tools, no implicit
 * conversion, nested paths, and property tests over random JSON.
 */
import "reflect-metadata";
import { Type } from "class-transformer";
import { IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, MinLength, ValidateNested } from "class-validator";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ToolArgumentError, tool, type JsonSchema } from "../../../src/index.js";
import { makeTestCtx } from "../../../src/testing/index.js";
import { rejected } from "../helpers.js";

class RunCheckInput {
  @IsString() name!: string;
  @IsOptional() @IsBoolean() strict?: boolean;
}

class CountInput {
  @IsString() name!: string;
  @IsOptional() @IsBoolean() strict?: boolean;
  @IsOptional() @IsInt() count?: number;
}

class Step {
  @IsString() id!: string;
  @IsOptional() @IsInt() weight?: number;
}

class PlanInput {
  @IsString() @MinLength(2) title!: string;
  @IsIn(["fast", "safe"]) mode!: string;
  @ValidateNested() @Type(() => Step) first!: Step;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => Step) rest?: Step[];
  @IsOptional() @IsString({ each: true }) tags?: string[];
}

const RUN_CHECK_SCHEMA: JsonSchema = {
  type: "object",
  properties: { name: { type: "string" }, strict: { type: "boolean" } },
  required: ["name"],
  additionalProperties: false,
};

/** A DTO tool named run_check whose body records what it received. */
function dtoRunCheck(seen: unknown[] = []) {
  return tool({ name: "run_check", description: "Run the named check.", input: RunCheckInput }, (input: RunCheckInput) => {
    seen.push(input);
    return `${input.name}:ok`;
  });
}

/** The same tool with its input given as a raw JSON Schema. */
function rawRunCheck(seen: unknown[] = []) {
  return tool({ name: "run_check", description: "Run the named check.", input: RUN_CHECK_SCHEMA }, (input: Record<string, unknown>) => {
    seen.push(input);
    return `${String(input.name)}:ok`;
  });
}

/** The ToolArgumentError a call was rejected with (fails the test when the call succeeded). */
function rejection(
  t: { run(a: Record<string, unknown>, c: ReturnType<typeof makeTestCtx>): Promise<unknown> },
  args: unknown,
): Promise<ToolArgumentError> {
  return rejected(t.run(args as Record<string, unknown>, makeTestCtx()), ToolArgumentError);
}

describe.each([
  ["DTO input", dtoRunCheck],
  ["raw JSON Schema input", rawRunCheck],
])("run_check with %s", (_label, make) => {
  it("refuses an unexpected argument with the seed's exact text and typed fields", async () => {
    const seen: unknown[] = [];
    const err = await rejection(make(seen), { name: "lint", verbose: true });
    expect(err.message).toBe("tool 'run_check' call rejected: unexpected argument(s) ['verbose']. Accepted arguments: ['name', 'strict']");
    expect(err.code).toBe("tool_argument");
    expect(err.tool).toBe("run_check");
    expect(err.unexpected).toEqual(["verbose"]);
    expect(err.missing).toEqual([]);
    expect(err.invalid).toEqual([]);
    expect(err.accepted).toEqual(["name", "strict"]);
    expect(err.notAnObject).toBeUndefined();
    expect(seen).toEqual([]);
  });

  it("names every unexpected argument, in the order given", async () => {
    const err = await rejection(make(), { verbose: 1, name: "x", color: "red" });
    expect(err.message).toBe(
      "tool 'run_check' call rejected: unexpected argument(s) ['verbose', 'color']. Accepted arguments: ['name', 'strict']",
    );
  });

  it("refuses a missing required argument, naming it", async () => {
    const err = await rejection(make(), { strict: true });
    expect(err.message).toBe(
      "tool 'run_check' call rejected: missing required argument(s) ['name']. Accepted arguments: ['name', 'strict']",
    );
    expect(err.missing).toEqual(["name"]);
    expect(err.unexpected).toEqual([]);
    expect(err.invalid).toEqual([]);
  });

  it("treats absent arguments (undefined) as an empty object", async () => {
    const err = await rejection(make(), undefined);
    expect(err.missing).toEqual(["name"]);
  });

  it.each([
    [[1], "array [1]"],
    [null, "null"],
    ["name=lint", 'string "name=lint"'],
    [7, "number 7"],
    [true, "boolean true"],
  ])("refuses arguments that are not an object: %j", async (args, rendered) => {
    const seen: unknown[] = [];
    const err = await rejection(make(seen), args);
    expect(err.message).toBe(
      `tool 'run_check' call rejected: arguments must be a JSON object, got ${rendered}. Accepted arguments: ['name', 'strict']`,
    );
    expect(err.notAnObject).toBe(rendered);
    expect(seen).toEqual([]);
  });

  it("combines unexpected and missing in one message", async () => {
    const err = await rejection(make(), { verbose: true });
    expect(err.message).toBe(
      "tool 'run_check' call rejected: unexpected argument(s) ['verbose']; missing required argument(s) ['name']. Accepted arguments: ['name', 'strict']",
    );
    expect(err.unexpected).toEqual(["verbose"]);
    expect(err.missing).toEqual(["name"]);
  });

  it("accepts a good call and passes the arguments to the body", async () => {
    const seen: unknown[] = [];
    const t = make(seen);
    expect(await t.run({ name: "lint", strict: false }, makeTestCtx())).toBe("lint:ok");
    expect(seen).toHaveLength(1);
    expect({ ...(seen[0] as object) }).toEqual({ name: "lint", strict: false });
  });
});

describe("mistyped arguments: which one, what was expected, what came", () => {
  it("DTO: 'false' is not a boolean (no implicit conversion)", async () => {
    const seen: unknown[] = [];
    const err = await rejection(dtoRunCheck(seen), { name: "lint", strict: "false" });
    expect(err.message).toBe(
      "tool 'run_check' call rejected: argument 'strict' must be a boolean value, got string \"false\". Accepted arguments: ['name', 'strict']",
    );
    expect(err.invalid).toEqual([{ argument: "strict", expected: "a boolean value", received: 'string "false"' }]);
    expect(seen).toEqual([]);
  });

  it("raw schema: 'false' is not a boolean (no implicit conversion)", async () => {
    const seen: unknown[] = [];
    const err = await rejection(rawRunCheck(seen), { name: "lint", strict: "false" });
    expect(err.message).toBe(
      "tool 'run_check' call rejected: argument 'strict' must be boolean, got string \"false\". Accepted arguments: ['name', 'strict']",
    );
    expect(err.invalid).toEqual([{ argument: "strict", expected: "boolean", received: 'string "false"' }]);
    expect(seen).toEqual([]);
  });

  it("DTO: '7' stays a string and is refused for an integer; 7.5 is refused too", async () => {
    const t = tool({ name: "count_it", description: "Count.", input: CountInput }, () => "ran");
    const err = await rejection(t, { name: "a", count: "7" });
    expect(err.message).toBe(
      "tool 'count_it' call rejected: argument 'count' must be an integer number, got string \"7\". Accepted arguments: ['name', 'strict', 'count']",
    );
    const frac = await rejection(t, { name: "a", count: 7.5 });
    expect(frac.invalid).toEqual([{ argument: "count", expected: "an integer number", received: "number 7.5" }]);
  });

  it("raw schema: '7' stays a string and is refused for an integer", async () => {
    const t = tool(
      {
        name: "count_it",
        description: "Count.",
        input: { type: "object", properties: { count: { type: "integer" }, on: { type: "boolean" } } },
      },
      () => "ran",
    );
    const err = await rejection(t, { count: "7", on: 0 });
    expect(err.message).toBe(
      "tool 'count_it' call rejected: argument 'count' must be integer, got string \"7\"; argument 'on' must be boolean, got number 0. Accepted arguments: ['count', 'on']",
    );
  });

  it("every kind of fault at once, in the order unexpected; missing; invalid", async () => {
    const t = tool({ name: "count_it", description: "Count.", input: CountInput }, () => "ran");
    const err = await rejection(t, { verbose: 1, strict: "yes", count: "7" });
    expect(err.message).toBe(
      "tool 'count_it' call rejected: unexpected argument(s) ['verbose']; missing required argument(s) ['name']; " +
        "argument 'strict' must be a boolean value, got string \"yes\"; argument 'count' must be an integer number, got string \"7\". " +
        "Accepted arguments: ['name', 'strict', 'count']",
    );
    expect(err.invalid.map((i) => i.argument)).toEqual(["strict", "count"]);
  });

  it("DTO: several constraints on one argument are joined", async () => {
    const t = tool({ name: "plan", description: "Plan.", input: PlanInput }, () => "ran");
    const err = await rejection(t, { title: 5, mode: "fast", first: { id: "a" } });
    expect(err.invalid).toHaveLength(1);
    expect(err.invalid[0]!.argument).toBe("title");
    expect(err.invalid[0]!.received).toBe("number 5");
    expect(err.invalid[0]!.expected.split(" and ").sort()).toEqual(["a string", "longer than or equal to 2 characters"]);
  });

  it("DTO: an enum constraint names the allowed values", async () => {
    const t = tool({ name: "plan", description: "Plan.", input: PlanInput }, () => "ran");
    const err = await rejection(t, { title: "ok", mode: "reckless", first: { id: "a" } });
    expect(err.message).toBe(
      "tool 'plan' call rejected: argument 'mode' must be one of the following values: fast, safe, got string \"reckless\". Accepted arguments: ['title', 'mode', 'first', 'rest', 'tags']",
    );
  });

  it("DTO: each-value constraints say so", async () => {
    const t = tool({ name: "plan", description: "Plan.", input: PlanInput }, () => "ran");
    const err = await rejection(t, { title: "ok", mode: "fast", first: { id: "a" }, tags: ["x", 1] });
    expect(err.invalid).toEqual([{ argument: "tags", expected: "an array whose every value is a string", received: 'array ["x",1]' }]);
  });

  it("raw schema: enum and other keywords are reported, the whole object as '(arguments)'", async () => {
    const t = tool(
      {
        name: "pick",
        description: "Pick.",
        input: { type: "object", properties: { color: { enum: ["red", "blue"] } }, additionalProperties: false, minProperties: 1 },
      },
      () => "ran",
    );
    expect((await rejection(t, { color: "green" })).message).toBe(
      "tool 'pick' call rejected: argument 'color' must be one of [\"red\",\"blue\"], got string \"green\". Accepted arguments: ['color']",
    );
    expect((await rejection(t, {})).message).toBe(
      "tool 'pick' call rejected: argument '(arguments)' must be valid (minProperties: must NOT have fewer than 1 properties), got object {}. Accepted arguments: ['color']",
    );
  });
});

describe("nested arguments are named by path", () => {
  const plan = () => tool({ name: "plan", description: "Plan.", input: PlanInput }, (i: PlanInput) => i);

  it("DTO: a nested mistyped value", async () => {
    const err = await rejection(plan(), { title: "ok", mode: "safe", first: { id: 3 } });
    expect(err.invalid).toEqual([{ argument: "first/id", expected: "a string", received: "number 3" }]);
  });

  it("DTO: a nested unexpected argument is refused, not silently kept", async () => {
    const err = await rejection(plan(), { title: "ok", mode: "safe", first: { id: "a", extra: 1 } });
    expect(err.message).toBe(
      "tool 'plan' call rejected: unexpected argument(s) ['first/extra']. Accepted arguments: ['title', 'mode', 'first', 'rest', 'tags']",
    );
  });

  it("DTO: a nested missing argument is reported as missing", async () => {
    const err = await rejection(plan(), { title: "ok", mode: "safe", first: {} });
    expect(err.missing).toEqual(["first/id"]);
    expect(err.invalid).toEqual([]);
  });

  it("DTO: array elements by index", async () => {
    const err = await rejection(plan(), { title: "ok", mode: "safe", first: { id: "a" }, rest: [{ id: 1 }, { id: "b", zz: true }] });
    expect(err.unexpected).toEqual(["rest/1/zz"]);
    expect(err.invalid).toEqual([{ argument: "rest/0/id", expected: "a string", received: "number 1" }]);
  });

  it("DTO: a nested value that is not an object", async () => {
    const err = await rejection(plan(), { title: "ok", mode: "safe", first: "a" });
    expect(err.invalid).toEqual([{ argument: "first", expected: "either object or array", received: 'string "a"' }]);
  });

  it("DTO: null is refused where the schema does not allow it, even for @IsOptional properties", async () => {
    const err = await rejection(dtoRunCheck(), { name: "lint", strict: null });
    expect(err.message).toBe(
      "tool 'run_check' call rejected: argument 'strict' must be boolean, got null. Accepted arguments: ['name', 'strict']",
    );
    const nested = await rejection(plan(), { title: "ok", mode: "safe", first: { id: "a", weight: null }, rest: null });
    expect(nested.invalid).toEqual([
      { argument: "first/weight", expected: "integer", received: "null" },
      { argument: "rest", expected: "array", received: "null" },
    ]);
    const required = await rejection(plan(), { title: "ok", mode: "safe", first: null });
    expect(required.invalid).toEqual([{ argument: "first", expected: "an object", received: "null" }]);
  });

  it("DTO: a good nested call reaches the body as class instances", async () => {
    const out = (await plan().run(
      { title: "ok", mode: "safe", first: { id: "a", weight: 2 }, rest: [{ id: "b" }] },
      makeTestCtx(),
    )) as PlanInput;
    expect(out).toBeInstanceOf(PlanInput);
    expect(out.first).toBeInstanceOf(Step);
    expect(out.rest![0]).toBeInstanceOf(Step);
    expect(out.first.weight).toBe(2);
  });

  it("raw schema: nested unexpected, missing and mistyped", async () => {
    const t = tool(
      {
        name: "nest",
        description: "Nest.",
        input: {
          type: "object",
          properties: { o: { type: "object", properties: { x: { type: "string" } }, required: ["x"], additionalProperties: false } },
        },
      },
      () => "ran",
    );
    expect((await rejection(t, { o: { y: 1 } })).message).toBe(
      "tool 'nest' call rejected: unexpected argument(s) ['o/y']; missing required argument(s) ['o/x']. Accepted arguments: ['o']",
    );
    expect((await rejection(t, { o: { x: 1 } })).invalid).toEqual([{ argument: "o/x", expected: "string", received: "number 1" }]);
  });
});

describe("raw JSON Schema is enforced exactly as written", () => {
  it("without additionalProperties: false, extra arguments are accepted", async () => {
    const t = tool(
      { name: "lenient", description: "Lenient.", input: { type: "object", properties: { a: { type: "string" } } } },
      (i: Record<string, unknown>) => i,
    );
    expect(await t.run({ a: "x", extra: 1 }, makeTestCtx())).toEqual({ a: "x", extra: 1 });
  });

  it("formats are checked (ajv-formats)", async () => {
    const t = tool(
      { name: "mail", description: "Mail.", input: { type: "object", properties: { to: { type: "string", format: "email" } } } },
      () => "sent",
    );
    expect(await t.run({ to: "a@example.com" }, makeTestCtx())).toBe("sent");
    expect((await rejection(t, { to: "nobody" })).invalid).toEqual([
      { argument: "to", expected: 'valid (format: must match format "email")', received: 'string "nobody"' },
    ]);
  });

  it("a draft 2020-12 schema ($schema) is understood", async () => {
    const t = tool(
      {
        name: "modern",
        description: "Modern.",
        input: {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: false } },
          additionalProperties: false,
        },
      },
      () => "ok",
    );
    expect(await t.run({ pair: ["a", 1] }, makeTestCtx())).toBe("ok");
    expect((await rejection(t, { pair: ["a", "b"] })).invalid.map((i) => i.argument)).toEqual(["pair/1"]);
    expect((await rejection(t, { pair: ["a", 1, 2] })).invalid.map((i) => i.argument)).toEqual(["pair"]);
  });

  it("two tools may carry schemas with the same $id", async () => {
    const schema = { $id: "urn:agentkit:test:same-id", type: "object", properties: { a: { type: "string" } }, additionalProperties: false };
    const one = tool({ name: "one", description: "One.", input: schema }, () => 1);
    const two = tool({ name: "two", description: "Two.", input: { ...schema } }, () => 2);
    expect(await one.run({ a: "x" }, makeTestCtx())).toBe(1);
    expect(await two.run({ a: "x" }, makeTestCtx())).toBe(2);
    expect((await rejection(two, { b: "x" })).unexpected).toEqual(["b"]);
  });
});

// ---------------------------------------------------------------- property tests

const KEYS = ["name", "strict", "count", "verbose", "__proto__", "constructor", "toString", "hasOwnProperty", ""];
const ACCEPTED = ["name", "strict", "count"];

/** Random JSON objects (arguments arrive as parsed JSON), biased towards the interesting keys and values. */
const argsArb = fc
  .dictionary(
    fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 6 })),
    fc.oneof(fc.constantFrom("7", "false", "true", "", 7, 7.5, 0, -1, true, false, null, [], {}), fc.jsonValue({ maxDepth: 2 })),
    { maxKeys: 5 },
  )
  .map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>);

/** What a correct validator decides for CountInput-shaped tools. */
function oracle(args: Record<string, unknown>): { ok: boolean; unexpected: string[]; missing: string[]; invalid: string[] } {
  const keys = Object.keys(args);
  const unexpected = keys.filter((k) => !ACCEPTED.includes(k));
  const missing = Object.hasOwn(args, "name") ? [] : ["name"];
  const invalid: string[] = [];
  if (Object.hasOwn(args, "name") && typeof args.name !== "string") invalid.push("name");
  if (Object.hasOwn(args, "strict") && typeof args.strict !== "boolean") invalid.push("strict");
  if (Object.hasOwn(args, "count") && !Number.isInteger(args.count)) invalid.push("count");
  return { ok: !unexpected.length && !missing.length && !invalid.length, unexpected, missing, invalid };
}

const COUNT_SCHEMA: JsonSchema = {
  type: "object",
  properties: { name: { type: "string" }, strict: { type: "boolean" }, count: { type: "integer" } },
  required: ["name"],
  additionalProperties: false,
};

describe.each([
  ["DTO input", CountInput as unknown as JsonSchema],
  ["raw JSON Schema input", COUNT_SCHEMA],
])("property: random JSON objects against %s", (_label, input) => {
  it("are accepted exactly when valid, otherwise refused with the precise ToolArgumentError, never reaching the body", async () => {
    let calls = 0;
    const t = tool({ name: "count_it", description: "Count.", input }, (i: Record<string, unknown>) => {
      calls++;
      return { ...i };
    });
    await fc.assert(
      fc.asyncProperty(argsArb, async (args) => {
        const before = calls;
        const expected = oracle(args);
        let outcome: unknown;
        let error: unknown;
        try {
          outcome = await t.run(args, makeTestCtx());
        } catch (e) {
          error = e;
        }
        if (expected.ok) {
          expect(error).toBeUndefined();
          expect(calls).toBe(before + 1);
          expect(outcome).toEqual(args);
        } else {
          expect(error).toBeInstanceOf(ToolArgumentError);
          const e = error as ToolArgumentError;
          expect(calls).toBe(before);
          expect(e.tool).toBe("count_it");
          expect(e.accepted).toEqual(ACCEPTED);
          expect([...e.unexpected]).toEqual(expected.unexpected);
          expect([...e.missing]).toEqual(expected.missing);
          // A rejected call must say why: something is named.
          expect(e.unexpected.length + e.missing.length + e.invalid.length).toBeGreaterThan(0);
          // When nothing unexpected disturbs the DTO, each mistyped argument is named exactly.
          if (!expected.unexpected.length) expect(e.invalid.map((i) => i.argument)).toEqual(expected.invalid);
          expect(e.message.startsWith("tool 'count_it' call rejected: ")).toBe(true);
          expect(e.message.endsWith(". Accepted arguments: ['name', 'strict', 'count']")).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("any JSON value at all never crashes the validator", async () => {
    const t = tool({ name: "count_it", description: "Count.", input }, () => "ran");
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (args) => {
        const r = await t.run(args as Record<string, unknown>, makeTestCtx()).then(
          (v) => ({ ok: true as const, v }),
          (e: unknown) => ({ ok: false as const, e }),
        );
        if (!r.ok) expect(r.e).toBeInstanceOf(ToolArgumentError);
        else expect(r.v).toBe("ran");
      }),
      { numRuns: 300 },
    );
  });
});
