/**
 * @module test/core/tools/schema.test
 * DTO -> JSON Schema (src/tools/schema.ts): `type: "object"`, `properties`,
 * `required`, `additionalProperties: false` in that order, nested DTOs under
 * `$defs` (each closed too), frozen; raw schemas are deep-copied and frozen.
 */
import "reflect-metadata";
import { Type } from "class-transformer";
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, Min, ValidateNested } from "class-validator";
import { describe, expect, it } from "vitest";
import { tool } from "../../../src/index.js";
import { dtoToJsonSchema } from "../../../src/tools/schema.js";
import { EMPTY_SCHEMA, copyJsonSchema, isDtoClass, schemaProperties } from "../../../src/tools/schema.js";

class RunCheckInput {
  @IsString() name!: string;
  @IsOptional() @IsBoolean() strict?: boolean;
}

class Address {
  @IsString() city!: string;
  @IsOptional() @IsString() zip?: string;
}

class Geo {
  @IsInt() @Min(-90) @Max(90) lat!: number;
}

class Site {
  @ValidateNested() @Type(() => Geo) where!: Geo;
}

class Customer {
  @IsString() id!: string;
  @IsIn(["gold", "silver"]) tier!: string;
  @ValidateNested() @Type(() => Address) address!: Address;
  @IsOptional() @IsArray() @ArrayMaxSize(3) @ValidateNested({ each: true }) @Type(() => Site) sites?: Site[];
}

class Empty {}

describe("dtoToJsonSchema", () => {
  it("derives the closed object schema, keys in order", () => {
    const s = dtoToJsonSchema(RunCheckInput);
    expect(s).toEqual({
      type: "object",
      properties: { name: { type: "string" }, strict: { type: "boolean" } },
      required: ["name"],
      additionalProperties: false,
    });
    expect(Object.keys(s)).toEqual(["type", "properties", "required", "additionalProperties"]);
  });

  it("is deeply frozen", () => {
    const s = dtoToJsonSchema(RunCheckInput) as { properties: { name: object }; required: string[] };
    expect(Object.isFrozen(s)).toBe(true);
    expect(Object.isFrozen(s.properties)).toBe(true);
    expect(Object.isFrozen(s.properties.name)).toBe(true);
    expect(Object.isFrozen(s.required)).toBe(true);
  });

  it("omits required when every property is optional, and handles a DTO without properties", () => {
    class AllOptional {
      @IsOptional() @IsString() q?: string;
    }
    expect(dtoToJsonSchema(AllOptional)).toEqual({ type: "object", properties: { q: { type: "string" } }, additionalProperties: false });
    expect(dtoToJsonSchema(Empty)).toEqual({ type: "object", properties: {}, additionalProperties: false });
  });

  it("puts nested DTOs (and their nested DTOs) under $defs, each closed", () => {
    const s = dtoToJsonSchema(Customer);
    expect(s).toEqual({
      type: "object",
      properties: {
        id: { type: "string" },
        tier: { type: "string", enum: ["gold", "silver"] },
        address: { $ref: "#/$defs/Address" },
        sites: { type: "array", maxItems: 3, items: { $ref: "#/$defs/Site" } },
      },
      required: ["id", "tier", "address"],
      additionalProperties: false,
      $defs: {
        Address: {
          type: "object",
          properties: { city: { type: "string" }, zip: { type: "string" } },
          required: ["city"],
          additionalProperties: false,
        },
        Site: { type: "object", properties: { where: { $ref: "#/$defs/Geo" } }, required: ["where"], additionalProperties: false },
        Geo: {
          type: "object",
          properties: { lat: { type: "integer", minimum: -90, maximum: 90 } },
          required: ["lat"],
          additionalProperties: false,
        },
      },
    });
  });

  it("a $defs schema is what a DTO tool shows the model", () => {
    const t = tool({ name: "save_customer", description: "Save.", input: Customer }, () => "saved");
    expect(t.schema.parameters).toEqual(dtoToJsonSchema(Customer));
  });
});

describe("raw schemas", () => {
  it("copyJsonSchema deep-copies and freezes, leaving the caller's object alone", () => {
    const mine = { type: "object", properties: { a: { type: "string" } } };
    const copy = copyJsonSchema(mine);
    expect(copy).toEqual(mine);
    expect(copy).not.toBe(mine);
    expect(Object.isFrozen(copy)).toBe(true);
    expect(Object.isFrozen((copy as { properties: object }).properties)).toBe(true);
    expect(Object.isFrozen(mine)).toBe(false);
    mine.properties.a.type = "integer";
    expect((copy as { properties: { a: { type: string } } }).properties.a.type).toBe("string");
  });

  it("a tool's raw schema is shown exactly as written", () => {
    const input = { type: "object", properties: { n: { type: "integer", minimum: 1 } }, required: ["n"] };
    expect(tool({ name: "n", description: "N.", input }, () => 1).schema.parameters).toEqual(input);
  });

  it("EMPTY_SCHEMA is a closed, frozen object schema", () => {
    expect(EMPTY_SCHEMA).toEqual({ type: "object", properties: {}, additionalProperties: false });
    expect(Object.isFrozen(EMPTY_SCHEMA)).toBe(true);
  });

  it("schemaProperties lists property names in declaration order", () => {
    expect(schemaProperties({ type: "object", properties: { b: {}, a: {}, c: {} } })).toEqual(["b", "a", "c"]);
    expect(schemaProperties({ type: "object" })).toEqual([]);
  });

  it("isDtoClass tells classes from schema objects", () => {
    expect(isDtoClass(RunCheckInput)).toBe(true);
    expect(isDtoClass({ type: "object" })).toBe(false);
  });
});
