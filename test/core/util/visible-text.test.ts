/**
 * @module test/core/util/visible-text.test
 * The one function that makes what a person reads visible (escapes for
 * controls, C1, bidi and format characters) and the head…tail cut.
 */
import { describe, expect, it } from "vitest";
import { clipMiddle, textWidth, visible, wrapLine } from "../../../src/util/visible-text.js";

describe("visible", () => {
  it.each([
    ["\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"],
    ["\x1b]8;;https://evil.example/\x07link\x1b]8;;\x07", "\\x1b]8;;https://evil.example/\\x07link\\x1b]8;;\\x07"],
    ["a\u009b31mb", "a\\x9b31mb"],
    ["file\u202etxt.exe", "file\\u202etxt.exe"],
    ["\u2066x\u2069\u200e\u200f\u061c", "\\u2066x\\u2069\\u200e\\u200f\\u061c"],
    ["zero\u200bwidth\ufeff", "zero\\u200bwidth\\ufeff"],
    ["tag\u{e0041}", "tag\\u{e0041}"],
    ["line\u2028para\u2029", "line\\u2028para\\u2029"],
    ["a\nb\tc\rd\x7f", "a\\nb\\tc\\rd\\x7f"],
    ["lone \ud800 surrogate", "lone \\ud800 surrogate"],
    ["blank\u3164letter", "blank\\u3164letter"],
  ])("shows %j as %s", (raw, shown) => {
    expect(visible(raw)).toBe(shown);
  });
  it("leaves printable text alone, other scripts and emoji included", () => {
    const text = "café 日本語 עברית 🙂 — “quotes” \\x1b typed literally";
    expect(visible(text)).toBe(text);
  });
  it("keeps line breaks when asked; json style writes only \\uXXXX escapes", () => {
    expect(visible("a\nb\x1b", { newlines: true })).toBe("a\nb\\x1b");
    expect(visible("\x1b\u202e\u{e0041}", { style: "json" })).toBe("\\u001b\\u202e\\udb40\\udc41");
  });
});

describe("clipMiddle and wrapLine", () => {
  it("a line that fits is unchanged; a longer one keeps its head and tail and names how much was cut", () => {
    expect(clipMiddle("short", 10)).toBe("short");
    const cut = clipMiddle(`start${"-".repeat(1000)}end`, 40);
    expect(textWidth(cut)).toBeLessThanOrEqual(40);
    expect(cut).toMatch(/^start-+…\d+ cut…-+end$/);
    const n = Number(/…(\d+) cut…/.exec(cut)![1]);
    expect(cut.length - `…${n} cut…`.length + n).toBe(1008);
  });
  it("counts wide characters as two columns", () => {
    expect(textWidth("日本")).toBe(4);
    expect(textWidth(clipMiddle("日".repeat(100), 21))).toBeLessThanOrEqual(21);
  });
  it("wrapLine leaves nothing out", () => {
    expect(wrapLine("abcdefg", 3)).toEqual(["abc", "def", "g"]);
    expect(wrapLine("", 3)).toEqual([""]);
  });
});
