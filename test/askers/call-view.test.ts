/**
 * @module test/askers/call-view.test
 * A call read by its shape (an edit as a line diff, a write as the new
 * file, a command as a command line), hidden characters made visible with
 * the terminal's escaping; a tool's declarations bounded for display.
 */
import { describe, expect, it } from "vitest";
import { boundedToolFacts, callView, factLabels, lineDiff, MAX_VIEW_LINES } from "../../src/askers/call-view.js";
import { toolFactsOf } from "../../src/contracts/elicitation.js";
import { visible } from "../../src/util/visible-text.js";

const lines = (text: string) => text.split("\n");

describe("lineDiff", () => {
  it("keeps common lines, removes before adding at each change", () => {
    expect(lineDiff(lines("a\nb\nc\nd"), lines("a\nx\nc\nd\ne"))).toEqual([
      { op: " ", text: "a" },
      { op: "-", text: "b" },
      { op: "+", text: "x" },
      { op: " ", text: "c" },
      { op: " ", text: "d" },
      { op: "+", text: "e" },
    ]);
  });

  it("identical, empty and wholly different inputs", () => {
    expect(lineDiff(["a"], ["a"])).toEqual([{ op: " ", text: "a" }]);
    expect(lineDiff([], ["n"])).toEqual([{ op: "+", text: "n" }]);
    expect(lineDiff(["o"], ["n"])).toEqual([
      { op: "-", text: "o" },
      { op: "+", text: "n" },
    ]);
  });

  it("past 1000 changed lines a side: every old line removed, every new one added (exact, not minimal)", () => {
    const before = Array.from({ length: 1500 }, (_, i) => `b${i}`);
    const after = Array.from({ length: 1500 }, (_, i) => `a${i}`);
    const diff = lineDiff(before, after);
    expect(diff).toHaveLength(3000);
    expect(diff.filter((l) => l.op === "-").map((l) => l.text)).toEqual(before);
  });
});

describe("callView", () => {
  it("an Edit-style call is a diff of its strings, hidden characters escaped as the terminal does", () => {
    const view = callView({ file_path: "a\u202e.ts", old_string: "x\ny", new_string: "x\ny\u001b[2J" });
    expect(view).toEqual({
      kind: "edit",
      path: visible("a\u202e.ts"),
      more: 0,
      lines: [
        { op: " ", text: "x" },
        { op: "-", text: "y" },
        { op: "+", text: visible("y\u001b[2J") },
      ],
    });
  });

  it("a MultiEdit-style call is one diff, each edit under its heading; a malformed edits list is not an edit", () => {
    const view = callView({
      file_path: "a.ts",
      edits: [
        { old_string: "a", new_string: "b" },
        { old_string: "c\nd", new_string: "c" },
      ],
    });
    expect(view).toEqual({
      kind: "edit",
      path: "a.ts",
      more: 0,
      lines: [
        { op: "@", text: "edit 1 of 2" },
        { op: "-", text: "a" },
        { op: "+", text: "b" },
        { op: "@", text: "edit 2 of 2" },
        { op: " ", text: "c" },
        { op: "-", text: "d" },
      ],
    });
    expect(callView({ file_path: "a.ts", edits: [{ old_string: 1 }] })).toBeUndefined();
  });

  it("a Write-style call is its content, every line added, bounded with the rest counted", () => {
    const content = Array.from({ length: MAX_VIEW_LINES + 5 }, (_, i) => `l${i}`).join("\n");
    const view = callView({ path: "big.txt", content });
    expect(view).toMatchObject({ kind: "write", path: "big.txt", more: 5 });
    expect(view?.kind === "write" && view.lines.length).toBe(MAX_VIEW_LINES);
  });

  it("a Bash-style call is its command, cwd and timeout; any other shape has no view", () => {
    expect(callView({ command: "ls\u202e", cwd: "/srv", timeout: 5000 })).toEqual({
      kind: "command",
      command: visible("ls\u202e"),
      cwd: "/srv",
      timeout: "5000",
    });
    expect(callView({ query: "x" })).toBeUndefined();
    expect(callView({ content: "no file named" })).toBeUndefined();
  });
});

describe("tool facts", () => {
  it("toolFactsOf keeps the declared fields of the right type only", () => {
    expect(
      toolFactsOf({
        description: "d",
        caps: ["egress", 3],
        sideEffecting: false,
        requiresApproval: "yes",
        annotations: { readOnlyHint: true },
        run() {},
      }),
    ).toEqual({ description: "d", caps: ["egress"], sideEffecting: false, annotations: { readOnlyHint: true } });
    expect(toolFactsOf(null)).toEqual({});
  });

  it("boundedToolFacts cuts the description and the lists, drops non-scalar annotations, and says nothing when nothing is left", () => {
    const facts = boundedToolFacts({
      description: "d".repeat(5000),
      caps: Array.from({ length: 30 }, (_, i) => `c${i}`),
      annotations: { title: "T", nested: { a: 1 }, destructiveHint: true },
    });
    expect(facts?.description).toHaveLength(2000);
    expect(facts?.caps).toHaveLength(20);
    expect(facts?.annotations).toEqual({ title: "T", destructiveHint: true });
    expect(factLabels({ ...facts, sideEffecting: false, requiresApproval: true })).toEqual([
      "read-only",
      "requires approval",
      "title: T",
      "destructiveHint: true",
    ]);
    expect(boundedToolFacts({ description: "  ", caps: [] })).toBeUndefined();
  });
});
