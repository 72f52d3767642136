/**
 * @module test/core/prompts/prompt-template.test
 * `PromptTemplate` (src/prompts/prompt-template.ts): a named, versioned template.
 */
import { optionsError } from "../helpers.js";
import { describe, expect, it } from "vitest";
import { PromptTemplate } from "../../../src/index.js";

describe("PromptTemplate", () => {
  it("holds name, template and version (default '1'), frozen", () => {
    const p = new PromptTemplate({ name: "review", template: "Review {{file}}." });
    expect([p.name, p.template, p.version]).toEqual(["review", "Review {{file}}.", "1"]);
    expect(new PromptTemplate({ name: "r", template: "", version: "2024-06" }).version).toBe("2024-06");
    expect(Object.isFrozen(p)).toBe(true);
  });

  it("render fills every {{placeholder}}, spaces allowed, values stringified", () => {
    const p = new PromptTemplate({ name: "review", template: "Review {{ file }} in {{mode}} mode ({{n}} passes); {{file}} again." });
    expect(p.render({ file: "a.ts", mode: "strict", n: 2 })).toBe("Review a.ts in strict mode (2 passes); a.ts again.");
  });

  it("render without placeholders needs no values", () => {
    expect(new PromptTemplate({ name: "plain", template: "Just do it." }).render()).toBe("Just do it.");
  });

  it("render names a placeholder that has no value", () => {
    const p = new PromptTemplate({ name: "review", template: "Review {{file}} for {{who}}." });
    expect(() => p.render({ file: "a.ts" })).toThrow(optionsError("PromptTemplate 'review': no value for placeholder 'who'"));
  });

  it("refuses an unknown option by name, with the accepted ones", () => {
    expect(() => new PromptTemplate({ name: "p", template: "x", versoin: "2" } as never)).toThrow(
      expect.objectContaining({
        code: "invalid_option",
        where: "PromptTemplate",
        option: "versoin",
        message: "PromptTemplate: unknown option 'versoin'. Accepted options: name, template, version",
      }),
    );
    expect(() => new PromptTemplate({ name: "p", template: "x", version: 2 } as never)).toThrow(
      expect.objectContaining({ code: "invalid_option", option: "version" }),
    );
  });

  it("refuses a missing name or a non-string template", () => {
    expect(() => new PromptTemplate({ name: "", template: "x" })).toThrow(
      optionsError("PromptTemplate: 'name' is required (a non-empty string), got string \"\""),
    );
    expect(() => new PromptTemplate({ name: "p", template: 3 as never })).toThrow(
      optionsError("PromptTemplate: 'template' must be a string with {{placeholders}}, got number 3"),
    );
  });
});
