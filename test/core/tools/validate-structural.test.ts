/**
 * @module test/core/tools/validate-structural
 * What JSON Schema cannot see is refused before validation: non-finite
 * numbers (a request's 1e400 parses to Infinity) and absurd nesting.
 */
import { IsInt } from "class-validator";
import { describe, expect, it } from "vitest";
import { ToolArgumentError, tool } from "../../../src/index.js";
import { makeTestCtx } from "../../../src/testing/index.js";

class CountInput {
  @IsInt() i!: number;
}

describe("structural argument checks", () => {
  const raw = tool(
    {
      name: "echo",
      description: "Echo.",
      input: { type: "object", properties: { i: { type: "integer" }, list: { type: "array" } }, required: ["i"] },
    },
    ({ i }) => i,
  );
  const dto = tool({ name: "count", description: "Count.", input: CountInput }, ({ i }: CountInput) => i);

  it("Infinity (JSON.parse of 1e400) is refused for a raw-schema tool and a DTO tool, naming the argument", async () => {
    const args = JSON.parse('{"i": 1e400}') as Record<string, unknown>;
    for (const t of [raw, dto]) {
      const err = await t.run(args, makeTestCtx()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ToolArgumentError);
      expect((err as Error).message).toContain("argument 'i' must be a finite number (JSON has no Infinity or NaN), got number Infinity");
    }
    const nested = await raw.run(JSON.parse('{"i": 1, "list": [1, -1e400]}'), makeTestCtx()).catch((e: unknown) => e);
    expect((nested as Error).message).toContain("argument 'list/1' must be a finite number");
  });

  it("nesting 50,000 levels deep is a rejected call, not a stack overflow", async () => {
    const deep = JSON.parse(`{"i": 1, "list": ${"[".repeat(50_000)}${"]".repeat(50_000)}}`) as Record<string, unknown>;
    const err = await raw.run(deep, makeTestCtx()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolArgumentError);
    expect((err as Error).message).toContain("must be nested at most 512 levels deep");
  });

  it("ordinary values still pass", async () => {
    expect(await raw.run({ i: 3, list: [[1, 2], { a: [null] }] }, makeTestCtx())).toBe(3);
    expect(await dto.run({ i: 4 }, makeTestCtx())).toBe(4);
  });
});
