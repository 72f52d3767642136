/**
 * @module test/core/tools/function-tool.test
 * `tool(options, fn)` and `FunctionTool` (src/tools/function-tool.ts):
 * defaults, naming, the frozen schema, and run(): validate first, then await
 * the body once; failures come back as rejected promises.
 */
import "reflect-metadata";
import { describe, expect, it } from "vitest";
import { ToolArgumentError, tool, type RunContext, type Tool } from "../../../src/index.js";
import { FunctionTool } from "../../../src/tools/function-tool.js";
import { makeTestCtx } from "../../../src/testing/index.js";

const NAME_SCHEMA = { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false } as const;

describe("tool(options, fn)", () => {
  it("returns a FunctionTool that satisfies the Tool contract", () => {
    const t: Tool = tool({ description: "Read one customer record.", input: NAME_SCHEMA }, function readRecord() {
      return "r";
    });
    expect(t).toBeInstanceOf(FunctionTool);
    expect(t.name).toBe("read_record");
    expect(t.description).toBe("Read one customer record.");
    expect(typeof t.run).toBe("function");
  });

  it("defaults: sideEffecting true, requiresApproval false, caps [] (assume the worst)", () => {
    const t = tool({ description: "d" }, function notify() {});
    expect(t.sideEffecting).toBe(true);
    expect(t.requiresApproval).toBe(false);
    expect(t.caps).toEqual([]);
    expect(t.schema.parameters).toEqual({ type: "object", properties: {}, additionalProperties: false });
  });

  it("takes the declarations it is given", () => {
    const t = tool(
      { description: "d", sideEffecting: false, requiresApproval: true, caps: ["egress", "private_data"] },
      function deploy() {},
    );
    expect([t.sideEffecting, t.requiresApproval, t.caps]).toEqual([false, true, ["egress", "private_data"]]);
  });

  it("is frozen, its schema and caps too, and copies caps", () => {
    const caps = ["egress"];
    const t = tool({ description: "d", caps }, function notify() {});
    caps.push("private_data");
    expect(t.caps).toEqual(["egress"]);
    expect(Object.isFrozen(t)).toBe(true);
    expect(Object.isFrozen(t.schema)).toBe(true);
    expect(Object.isFrozen(t.caps)).toBe(true);
  });

  it("schema is { name, description, parameters }", () => {
    const t = tool({ name: "lookup", description: "Look up.", input: NAME_SCHEMA }, () => 1);
    expect(t.schema).toEqual({ name: "lookup", description: "Look up.", parameters: NAME_SCHEMA });
  });

  it("owner names the function, for duplicate-name messages", () => {
    expect(tool({ description: "d" }, function fetchPage() {}).owner).toBe("function fetchPage");
    expect(
      tool(
        { name: "x", description: "d" },
        (
          () => () =>
            1
        )(),
      ).owner,
    ).toBe("function x");
  });
});

describe("FunctionTool.run", () => {
  it("passes validated arguments and the run's context to the body", async () => {
    const ctx = makeTestCtx();
    let seen: [unknown, RunContext] | undefined;
    const t = tool({ description: "d", input: NAME_SCHEMA }, function greet(input: { name: string }, c: RunContext) {
      seen = [input, c];
      return `hi ${input.name}`;
    });
    expect(await t.run({ name: "ada" }, ctx)).toBe("hi ada");
    expect(seen).toEqual([{ name: "ada" }, ctx]);
  });

  it("awaits an async body", async () => {
    const t = tool({ description: "d" }, async function later() {
      await new Promise((r) => setImmediate(r)); // a later turn of the event loop, not a timed wait
      return { done: true };
    });
    expect(await t.run({}, makeTestCtx())).toEqual({ done: true });
  });

  it("a bad call returns a rejected promise (never throws synchronously) and the body does not run", async () => {
    let calls = 0;
    const t = tool({ description: "d", input: NAME_SCHEMA }, function greet() {
      calls++;
    });
    const p = t.run({ nom: "ada" }, makeTestCtx());
    expect(p).toBeInstanceOf(Promise);
    await expect(p).rejects.toBeInstanceOf(ToolArgumentError);
    expect(calls).toBe(0);
  });

  it("a body that throws synchronously becomes a rejection with the same error", async () => {
    const boom = new Error("the database is on fire");
    const t = tool({ description: "d" }, function burn() {
      throw boom;
    });
    const p = t.run({}, makeTestCtx());
    expect(p).toBeInstanceOf(Promise);
    await expect(p).rejects.toBe(boom);
  });

  it("runs the body once per call", async () => {
    let calls = 0;
    const t = tool({ description: "d" }, function tick() {
      return ++calls;
    });
    expect(await t.run({}, makeTestCtx())).toBe(1);
    expect(await t.run({}, makeTestCtx())).toBe(2);
  });

  it("a tool without input refuses any argument", async () => {
    const t = tool({ description: "d" }, function ping() {
      return "pong";
    });
    await expect(t.run({ x: 1 }, makeTestCtx())).rejects.toThrow(
      "tool 'ping' call rejected: unexpected argument(s) ['x']. Accepted arguments: []",
    );
    expect(await t.run({}, makeTestCtx())).toBe("pong");
  });
});
