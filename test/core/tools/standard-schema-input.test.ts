/**
 * @module test/core/tools/standard-schema-input.test
 * A Standard Schema as a tool's `input` (src/tools/standard-schema.ts):
 * zod 4, valibot and arktype schemas give `tool()` its function's input type
 * (checked by tsc: this file is in tsconfig.json), the wire schema is the
 * library's own JSON Schema, every call is validated (the package's message
 * style first, the library's refinements after), and an `input` that cannot
 * be read is refused when the tool is defined.
 */
import "reflect-metadata";
import { type } from "arktype";
import { container } from "tsyringe";
import * as v from "valibot";
import { toJsonSchema } from "@valibot/to-json-schema";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { DefinitionError, Tool, ToolArgumentError, ToolRegistry, tool, type RunContext } from "../../../src/index.js";
import { makeTestCtx } from "../../../src/testing/index.js";
import { rejected, thrown } from "../helpers.js";

const ZodGreet = z.strictObject({ name: z.string().describe("Who to greet"), times: z.number().int().min(1).default(1) });
const ValibotGreet = v.strictObject({
  name: v.pipe(v.string(), v.description("Who to greet")),
  times: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1),
});
const ArkGreet = type({ "+": "reject", name: "string", "times?": "number.integer >= 1" });

/** A greet tool over `input`, whose body echoes what it was given. */
function greetWith(input: unknown) {
  return tool({ description: "Greet someone.", input: input as never }, function greet(args: unknown) {
    return args;
  });
}

/** The message a call with `args` is refused with. */
async function refusal(t: ReturnType<typeof greetWith>, args: Record<string, unknown>): Promise<string> {
  return (await rejected(t.run(args, makeTestCtx()), ToolArgumentError)).message;
}

describe("tool() infers its function's input from a Standard Schema (tsc checks these)", () => {
  it("zod: the function gets the schema's output type, and a wrong annotation does not compile", () => {
    const t = tool({ name: "greet", description: "Greet someone.", input: ZodGreet }, ({ name, times }) => {
      expectTypeOf(name).toEqualTypeOf<string>();
      expectTypeOf(times).toEqualTypeOf<number>();
      return name.repeat(times);
    });
    // @ts-expect-error name is a string in the schema, not a number
    tool({ name: "greet", description: "Greet someone.", input: ZodGreet }, ({ name }: { name: number }) => name);
    // @ts-expect-error no such property in the schema's output
    tool({ name: "greet", description: "Greet someone.", input: ZodGreet }, ({ nmae }) => nmae);
    expect(t.name).toBe("greet");
  });

  it("valibot and arktype: the same inference", () => {
    tool({ name: "greet", description: "d", input: ValibotGreet }, ({ name, times }) => {
      expectTypeOf(name).toEqualTypeOf<string>();
      expectTypeOf(times).toEqualTypeOf<number>();
    });
    tool({ name: "greet", description: "d", input: ArkGreet }, ({ name, times }) => {
      expectTypeOf(name).toEqualTypeOf<string>();
      expectTypeOf(times).toEqualTypeOf<number | undefined>();
    });
    // @ts-expect-error valibot: name is a string
    tool({ name: "greet", description: "d", input: ValibotGreet }, ({ name }: { name: boolean }) => name);
  });

  it("@Tool with a Standard Schema: run's input must accept the schema's output", () => {
    @Tool({ description: "Greet someone.", input: ZodGreet })
    class Greet {
      run(input: z.infer<typeof ZodGreet>): string {
        return input.name;
      }
    }
    // @ts-expect-error run takes a number where the schema gives a string
    @Tool({ description: "Greet someone.", input: ZodGreet })
    class Mistyped {
      run(input: { name: number }): number {
        return input.name;
      }
    }
    expect([Greet.name, Mistyped.name]).toEqual(["Greet", "Mistyped"]);
  });
});

describe("the wire schema is the library's own JSON Schema", () => {
  it("zod 4: z.toJSONSchema of the input, draft 2020-12", () => {
    expect(greetWith(ZodGreet).schema.parameters).toEqual(z.toJSONSchema(ZodGreet, { io: "input", target: "draft-2020-12" }));
    expect(greetWith(ZodGreet).schema.parameters).toMatchObject({
      type: "object",
      properties: { name: { type: "string", description: "Who to greet" } },
      required: ["name"],
      additionalProperties: false,
    });
  });

  it("valibot: @valibot/to-json-schema's conversion of the input, draft 2020-12", () => {
    expect(greetWith(ValibotGreet).schema.parameters).toEqual(toJsonSchema(ValibotGreet, { target: "draft-2020-12", typeMode: "input" }));
  });

  it("arktype: its own converter", () => {
    expect(greetWith(ArkGreet).schema.parameters).toEqual(ArkGreet.toJsonSchema({ target: "draft-2020-12" }));
  });

  it("a valibot custom check is left out of the wire schema (as zod leaves out refinements) and still runs", async () => {
    const t = greetWith(
      v.object({
        version: v.pipe(
          v.string(),
          v.check((s) => s.startsWith("v"), "must start with v"),
        ),
      }),
    );
    expect(t.schema.parameters).toMatchObject({ properties: { version: { type: "string" } } });
    expect(await refusal(t, { version: "1.0" })).toBe(
      `tool 'greet' call rejected: argument 'version' must be valid (must start with v), got string "1.0". Accepted arguments: ['version']`,
    );
  });
});

describe("every call is validated, in the package's message style", () => {
  for (const [library, input] of [
    ["zod", ZodGreet],
    ["valibot", ValibotGreet],
    ["arktype", ArkGreet],
  ] as const) {
    it(`${library}: { name: 42 } and {} are refused naming the argument; an unexpected one too`, async () => {
      const t = greetWith(input);
      expect(await refusal(t, { name: 42 })).toBe(
        "tool 'greet' call rejected: argument 'name' must be string, got number 42. Accepted arguments: ['name', 'times']",
      );
      expect(await refusal(t, {})).toBe(
        "tool 'greet' call rejected: missing required argument(s) ['name']. Accepted arguments: ['name', 'times']",
      );
      expect(await refusal(t, { name: "Ada", loud: true })).toBe(
        "tool 'greet' call rejected: unexpected argument(s) ['loud']. Accepted arguments: ['name', 'times']",
      );
      expect(() => t.checkArguments({ name: "Ada", times: 0 })).toThrow(/argument 'times' must be valid \(.*\), got number 0/);
    });
  }

  it("the function receives the library's output: defaults applied, transforms run", async () => {
    expect(await greetWith(ZodGreet).run({ name: "Ada" }, makeTestCtx())).toEqual({ name: "Ada", times: 1 });
    expect(await greetWith(ValibotGreet).run({ name: "Ada" }, makeTestCtx())).toEqual({ name: "Ada", times: 1 });
    const trimmed = greetWith(z.object({ name: z.string().transform((s) => s.trim().toUpperCase()) }));
    expect(await trimmed.run({ name: "  ada " }, makeTestCtx())).toEqual({ name: "ADA" });
  });

  it("a zod refinement JSON Schema cannot say is the library's message", async () => {
    const t = greetWith(z.object({ env: z.string().refine((s) => s !== "production", { message: "production needs the deploy tool" }) }));
    expect(await refusal(t, { env: "production" })).toBe(
      `tool 'greet' call rejected: argument 'env' must be valid (production needs the deploy tool), got string "production". Accepted arguments: ['env']`,
    );
  });

  it("an @Tool class with a zod input is validated the same way when called through a registry", async () => {
    @Tool({ description: "Greet someone.", input: ZodGreet })
    class Greet {
      run(input: z.infer<typeof ZodGreet>, _ctx: RunContext): string {
        return `hi ${input.name} x${input.times}`;
      }
    }
    const registry = ToolRegistry.fromTools([Greet], { container: container.createChildContainer() });
    const t = registry.get("greet")!;
    expect(await t.run({ name: "Ada" }, makeTestCtx())).toBe("hi Ada x1");
    expect((await rejected(t.run({ name: 42 }, makeTestCtx()), ToolArgumentError)).message).toContain(
      "argument 'name' must be string, got number 42",
    );
  });

  it("a schema that validates asynchronously fails the call saying so (arguments are checked synchronously)", async () => {
    const t = greetWith(z.object({ name: z.string().refine(async () => true) }));
    const err = await rejected(t.run({ name: "Ada" }, makeTestCtx()), Error);
    expect(err.message).toBe(
      "tool 'greet': its zod input schema validates asynchronously (an async refinement); tool arguments are checked synchronously, so move the async check into the tool's body",
    );
  });
});

describe("an input agentkit cannot read is refused when the tool is defined", () => {
  const define = (input: unknown) => thrown(() => tool({ description: "d", input: input as never }, function greet() {}), DefinitionError);

  it("a zod type JSON cannot carry (a Date)", () => {
    const err = define(z.object({ at: z.date() }));
    expect(err.key).toBe("input");
    expect(err.message).toBe(
      "tool() on greet: invalid 'input': the zod schema cannot be converted to JSON Schema (Date cannot be represented in JSON Schema); a tool's arguments arrive as JSON, so use types JSON carries",
    );
  });

  it("a valibot type JSON cannot carry", () => {
    expect(define(v.object({ at: v.date() })).message).toBe(
      `tool() on greet: invalid 'input': the valibot schema cannot be converted to JSON Schema (The "date" schema cannot be converted to JSON Schema.); a tool's arguments arrive as JSON, so use types JSON carries`,
    );
  });

  it("a schema of something other than an object", () => {
    expect(define(z.string()).message).toBe(
      `tool() on greet: invalid 'input': the JSON Schema its library derived must have type "object" (tool arguments are a JSON object), got "string"`,
    );
  });

  it("a Standard Schema without a JSON Schema converter, and a '~standard' that is not one", () => {
    const bare = { "~standard": { version: 1, vendor: "acme", validate: (value: unknown) => ({ value }) } };
    expect(define(bare).message).toBe(
      "tool() on greet: invalid 'input': a Standard Schema from 'acme' without a JSON Schema converter ('~standard.jsonSchema'), so the schema a model is shown cannot be derived from it. Accepted: a zod 4 (4.2 or later), valibot or arktype schema, a JSON Schema object, or a class-validator DTO class",
    );
    expect(define({ "~standard": { version: 2 } }).message).toContain("input has a '~standard' member but is not a Standard Schema v1");
    const oldZod = { "~standard": { version: 1, vendor: "zod", validate: (value: unknown) => ({ value }) } };
    expect(define(oldZod).message).toContain(
      "this zod schema has no JSON Schema converter (zod 3, or zod 4 before 4.2): upgrade with npm install zod@^4.2",
    );
  });

  it("an object that is not plain JSON Schema (a class instance, as a zod 3 schema is) instead of validating nothing", () => {
    class ZodObject {
      readonly type = "object";
    }
    expect(define(new ZodObject()).message).toBe(
      "tool() on greet: invalid 'input': input is a ZodObject instance, not a plain JSON Schema object, and carries no '~standard' member to read it by. Accepted: a Standard Schema (zod 4, valibot, arktype), a class-validator DTO class or a JSON Schema object",
    );
  });
});
