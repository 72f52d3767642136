/**
 * @module test/core/tools/tool-options.test
 * Option checking when `@Tool` / `tool()` is applied (src/tools/tool-options.ts):
 * every bad option throws `DefinitionError` at once, naming the class (or
 * function) and the key; default names are the snake_case of the class or
 * function name.
 */
import { optionsError } from "../helpers.js";
import "reflect-metadata";
import { Type } from "class-transformer";
import { IsString, ValidateNested } from "class-validator";
import { describe, expect, it } from "vitest";
import { AgentkitError, DefinitionError, Tool, tool, type ToolOptions } from "../../../src/index.js";
import { getToolMetadata } from "../../../src/tools/tool.decorator.js";
import { thrown } from "../helpers.js";

/** Apply @Tool(options) to a fresh class named `name` with a run() method; returns the class. */
function decorate(name: string, options: unknown): { name: string } {
  const cls = {
    [name]: class {
      run(): string {
        return "ran";
      }
    },
  }[name]!;
  Tool(options as ToolOptions)(cls);
  return cls;
}

/** The DefinitionError `fn` throws, checked to be an AgentkitError with code "definition". */
function definitionError(fn: () => unknown): DefinitionError {
  const err = thrown(fn, DefinitionError);
  expect(err).toBeInstanceOf(AgentkitError);
  expect(err.code).toBe("definition");
  return err;
}

const NAME_RULE = "'name' must be a non-empty string of at most 128 characters without surrounding whitespace or control characters";

describe("@Tool options are checked at decoration time", () => {
  it.each([
    ["", 'string ""'],
    ["  ", 'string "  "'],
    [" run_check", 'string " run_check"'],
    ["run\ncheck", 'string "run\\ncheck"'],
    ["x".repeat(129), `string "${"x".repeat(56)}...`],
    [42, "number 42"],
  ])("a bad name %j", (name, shown) => {
    const err = definitionError(() => decorate("BadName", { name, description: "d" }));
    expect(err.target).toBe("BadName");
    expect(err.key).toBe("name");
    expect(err.message).toBe(`@Tool on BadName: ${NAME_RULE}, got ${shown}`);
  });

  it("accepts a name of exactly 128 characters", () => {
    const cls = decorate("LongName", { name: "x".repeat(128), description: "d" });
    expect(getToolMetadata(cls)!.name).toHaveLength(128);
  });

  it.each([
    [undefined, "is required (a non-empty string the model reads to decide when to call the tool)"],
    ["", 'must be a non-empty string the model reads to decide when to call the tool, got string ""'],
    ["   ", 'must be a non-empty string the model reads to decide when to call the tool, got string "   "'],
    [7, "must be a non-empty string the model reads to decide when to call the tool, got number 7"],
  ])("a missing or empty description (%j)", (description, why) => {
    const err = definitionError(() => decorate("NoDescription", description === undefined ? {} : { description }));
    expect(err.target).toBe("NoDescription");
    expect(err.key).toBe("description");
    expect(err.message).toBe(`@Tool on NoDescription: 'description' ${why}`);
  });

  it.each([
    ["egress", 'string "egress"'],
    [[""], 'array [""]'],
    [["egress", 3], 'array ["egress",3]'],
    [{ egress: true }, 'object {"egress":true}'],
  ])("bad caps %j", (caps, shown) => {
    const err = definitionError(() => decorate("BadCaps", { description: "d", caps }));
    expect(err.key).toBe("caps");
    expect(err.message).toBe(`@Tool on BadCaps: 'caps' must be an array of non-empty strings (e.g. ["egress"]), got ${shown}`);
  });

  it.each(["sideEffecting", "requiresApproval"])("a non-boolean %s", (key) => {
    const err = definitionError(() => decorate("BadFlag", { description: "d", [key]: "yes" }));
    expect(err.key).toBe(key);
    expect(err.message).toBe(`@Tool on BadFlag: '${key}' must be true or false, got string "yes"`);
  });

  it.each([
    ["deploy:write", 'string "deploy:write"'],
    [["two words"], 'array ["two words"]'],
    [[""], 'array [""]'],
    [['quo"te'], 'array ["quo\\"te"]'],
  ])("bad scopes %j", (scopes, shown) => {
    const err = definitionError(() => decorate("BadScopes", { description: "d", scopes }));
    expect(err.key).toBe("scopes");
    expect(err.message).toBe(
      `@Tool on BadScopes: 'scopes' must be an array of OAuth scope names (printable ASCII, no spaces, quotes or backslashes; e.g. ["deploy:write"]), got ${shown}`,
    );
  });

  it("an unknown key (the Python spelling side_effecting) is refused, not ignored", () => {
    const err = definitionError(() => decorate("PySpelling", { description: "d", side_effecting: false }));
    expect(err.target).toBe("PySpelling");
    expect(err.key).toBe("side_effecting");
    expect(err.message).toBe(
      "@Tool on PySpelling: unknown option 'side_effecting'. Accepted options: name, description, input, sideEffecting, requiresApproval, caps, scopes, outputSchema, maxResultChars, searchHint, alwaysLoad, task",
    );
  });

  it("missing options altogether", () => {
    const err = definitionError(() => decorate("NoOptions", undefined));
    expect(err.key).toBe("options");
    expect(err.message).toBe("@Tool on NoOptions: options are required ({ description, input?, ... })");
  });

  it("a class without run()", () => {
    class NoRun {}
    const err = definitionError(() => Tool({ description: "d" })(NoRun));
    expect(err.target).toBe("NoRun");
    expect(err.key).toBe("run");
    expect(err.message).toBe("@Tool on NoRun: the class must define run(input, ctx)");
  });

  it("a run() inherited from a base class is accepted", () => {
    class Base {
      run(): string {
        return "base";
      }
    }
    class Derived extends Base {}
    Tool({ description: "d" })(Derived);
    expect(getToolMetadata(Derived)!.name).toBe("derived");
  });

  it.each([
    [
      { type: "array", items: { type: "string" } },
      'a JSON Schema input must have type "object" (tool arguments are a JSON object), got "array"',
    ],
    [
      { properties: { a: { type: "string" } } },
      'a JSON Schema input must have type "object" (tool arguments are a JSON object), got no type',
    ],
    [5, "input must be a Standard Schema (zod 4, valibot, arktype), a class-validator DTO class or a JSON Schema object, got number"],
    [null, "input must be a Standard Schema (zod 4, valibot, arktype), a class-validator DTO class or a JSON Schema object, got null"],
    [
      ["name"],
      "input must be a Standard Schema (zod 4, valibot, arktype), a class-validator DTO class or a JSON Schema object, got an array",
    ],
  ])("a bad input %j", (input, why) => {
    const err = definitionError(() => decorate("BadInput", { description: "d", input }));
    expect(err.key).toBe("input");
    expect(err.message).toBe(`@Tool on BadInput: invalid 'input': ${why}`);
  });

  it("an input that is not valid JSON Schema is refused now, not on the first call or at registration", () => {
    const err = definitionError(() =>
      decorate("BadSchema", { description: "d", input: { type: "object", properties: { a: { type: "text" } } } }),
    );
    expect(err.key).toBe("input");
    expect(err.message).toMatch(
      /^@Tool on BadSchema: invalid 'input': schema is invalid: data\/properties\/a\/type must be equal to one of the allowed values/,
    );
  });

  it("a DTO whose nested property lacks @Type(() => ...) is refused (its value would go unvalidated)", () => {
    class Inner {
      @IsString() id!: string;
    }
    class Outer {
      @ValidateNested() inner!: Inner;
    }
    const err = definitionError(() => decorate("Untyped", { description: "d", input: Outer }));
    expect(err.key).toBe("input");
    expect(err.message).toBe(
      "@Tool on Untyped: invalid 'input': Outer.inner has @ValidateNested() but no @Type(() => ...) from class-transformer; without it the nested value is never validated",
    );
  });

  it("the @Type check reaches nested DTOs of nested DTOs", () => {
    class Leaf {
      @IsString() id!: string;
    }
    class Branch {
      @ValidateNested({ each: true }) leaves!: Leaf[];
    }
    class Root {
      @ValidateNested() @Type(() => Branch) branch!: Branch;
    }
    expect(definitionError(() => decorate("Deep", { description: "d", input: Root })).message).toMatch(
      /Branch\.leaves has @ValidateNested\(\) but no @Type/,
    );
  });

  it("a failed decoration records no metadata", () => {
    class Half {
      run(): void {}
    }
    definitionError(() => Tool({ description: "" })(Half));
    expect(getToolMetadata(Half)).toBeUndefined();
  });
});

describe("tool() options are checked when called", () => {
  it("names the function and the key", () => {
    const err = definitionError(() => tool({ description: "d", caps: "egress" as never }, function notify() {}));
    expect(err.target).toBe("notify");
    expect(err.key).toBe("caps");
    expect(err.message).toBe(`tool() on notify: 'caps' must be an array of non-empty strings (e.g. ["egress"]), got string "egress"`);
  });

  it("an anonymous function needs a name", () => {
    const err = definitionError(() =>
      tool(
        { description: "d" },
        (
          () => () =>
            1
        )(),
      ),
    );
    expect(err.target).toBe("anonymous function");
    expect(err.key).toBe("name");
    expect(err.message).toBe(`tool() on anonymous function: ${NAME_RULE}, got string ""`);
  });

  it("unknown keys are refused", () => {
    const err = definitionError(() => tool({ description: "d", requires_approval: true } as never, function deploy() {}));
    expect(err.key).toBe("requires_approval");
  });

  it("a function is required", () => {
    expect(() => tool({ description: "d" }, "deploy" as never)).toThrow(
      optionsError("tool(): the second argument must be the tool's function, got string"),
    );
  });
});

describe("default names: snake_case of the class or function name", () => {
  it.each([
    ["RunCheck", "run_check"],
    ["Deploy", "deploy"],
    ["HTTPServer", "http_server"],
    ["ParseJSON", "parse_json"],
    ["MyHTTPTool", "my_http_tool"],
    ["IOError", "io_error"],
    ["S3Bucket", "s3_bucket"],
    ["FetchV2Page", "fetch_v2_page"],
    ["ABC", "abc"],
  ])("class %s -> %s", (className, expected) => {
    expect(getToolMetadata(decorate(className, { description: "d" }))!.name).toBe(expected);
  });

  it.each([
    ["runCheck", "run_check"],
    ["readRecord", "read_record"],
    ["fetch_page", "fetch_page"],
    ["getHTTPStatus", "get_http_status"],
  ])("function %s -> %s", (fnName, expected) => {
    const fn = { [fnName]: () => 1 }[fnName]!;
    expect(tool({ description: "d" }, fn).name).toBe(expected);
  });

  it("an explicit name wins", () => {
    expect(getToolMetadata(decorate("RunCheck", { name: "check.run", description: "d" }))!.name).toBe("check.run");
  });
});
