/**
 * @module test/askers/terminal-approval-server.test
 * A real ApprovalServer answered by a TerminalAsker in a pseudo-terminal
 * (tmux), called over loopback like the Claude CLI calls it: a modified
 * answer reaches the CLI as `updatedInput` with source `asker` and the OS
 * user as actor, and a question left unanswered is withdrawn on the screen
 * while the server denies it at its own deadline. Needs `npm run build`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { TmuxTerminal } from "./tmux-terminal.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/askers/approval-server-terminal.mjs", import.meta.url));
const EDITOR_SCRIPT = fileURLToPath(new URL("../fixtures/askers/scripted-editor.mjs", import.meta.url));
const ACTOR = userInfo().username || "terminal";
const WAIT = 8000;

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Starts the fixture on `scenario` with a scripted editor making `edits`. */
function serving(
  scenario: object,
  edits: string[] = [],
): { term: TmuxTerminal; answers: () => Array<{ answer: Record<string, unknown>; decision: Record<string, unknown> }> } {
  const dir = mkdtempSync(join(tmpdir(), "akt-askers-"));
  writeFileSync(join(dir, "scenario.json"), JSON.stringify(scenario));
  writeFileSync(join(dir, "edits.json"), JSON.stringify(edits));
  const env = { VISUAL: "", EDITOR: `'${process.execPath}' '${EDITOR_SCRIPT}' '${dir}'` };
  const term = TmuxTerminal.start([process.execPath, FIXTURE, join(dir, "scenario.json")], { env });
  cleanups.push(
    () => term.close(),
    () => rmSync(dir, { recursive: true, force: true }),
  );
  const answers = () =>
    readFileSync(join(dir, "answers.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  return { term, answers };
}

describe("ApprovalServer answered on the terminal", () => {
  it("a modify in $EDITOR reaches the CLI as updatedInput, source asker, actor the OS user", async () => {
    const { term, answers } = serving({ timeoutMs: 60_000, calls: [{ tool_name: "Write", input: { file_path: "a.txt" } }] }, [
      '{"file_path": "safe.txt"}',
    ]);
    const s = await term.until(/\[m\] modify/, WAIT);
    expect(s).toContain("Approve tool call: Write");
    expect(s).toContain("from approval_server");
    expect(s).toMatch(/time left 1:00|time left 0:5\d/);
    term.keys("m");
    await term.until(/SERVED DONE/, WAIT);
    const [a] = answers();
    expect(a!.answer).toEqual({ behavior: "allow", updatedInput: { file_path: "safe.txt" } });
    expect(a!.decision).toMatchObject({ tool: "Write", allowed: true, source: "asker", asked: true, actor: ACTOR });
  });

  it("at the server's deadline the question is withdrawn on screen and the CLI is denied (source timeout)", async () => {
    const { term, answers } = serving({ timeoutMs: 1500, calls: [{ tool_name: "Bash", input: { command: "rm -rf build" } }] });
    await term.until(/Approve tool call: Bash/, WAIT);
    const s = await term.until(/SERVED DONE/, WAIT);
    expect(s).toMatch(/⌛ Bash withdrawn before it was answered: its 1\.5s deadline passed/);
    const [a] = answers();
    expect(a!.answer).toMatchObject({ behavior: "deny" });
    expect(a!.decision).toMatchObject({ tool: "Bash", allowed: false, source: "timeout" });
  });
});
