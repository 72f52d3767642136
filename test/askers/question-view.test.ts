/**
 * @module test/askers/question-view.test
 * The pure text of a terminal question: countdown format, argument parsing
 * (only a JSON object is accepted), truncation and details.
 */
import { describe, expect, it } from "vitest";
import { toolCall } from "../../src/agents/elicitation.js";
import { MAX_ARGUMENT_LINES, parseArguments, questionLines, timeLeft } from "../../src/askers/question-view.js";

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
    expect(lines.slice(0, 2)).toEqual(["Approve tool call: (no tool)", "  from an unnamed source · no deadline"]);
  });
});
