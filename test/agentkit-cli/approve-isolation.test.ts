/**
 * @module test/agentkit-cli/approve-isolation.test
 * `agentkit approve --tty` in a real pseudo-terminal (tmux) with a child that
 * asks for Bash `rm -rf ~/important` (test/fixtures/clis/prompting-child.mjs,
 * speaking MCP to the approval server as claude would):
 *  - #25.9: a grandchild of the child tries to push `a` into the terminal
 *    (TIOCSTI) while the prompt is shown; the child has no controlling
 *    terminal and no terminal descriptor, so nothing is approved by it.
 *  - #24.5: Ctrl-C with the prompt pending exits non-zero and names the
 *    withdrawn prompt (the child itself exits 0 on SIGINT).
 * Needs `npm run build`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { TmuxTerminal } from "../askers/tmux-terminal.js";
import { untilValue } from "../helpers/wait.js";
import { AGENTKIT, ROOT, requireBuild } from "./agentkit-process.js";

const CHILD = join(ROOT, "test/fixtures/clis/prompting-child.mjs");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentkit-approve-iso-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function approveInTmux(env: Record<string, string> = {}): TmuxTerminal {
  requireBuild();
  const argv = [process.execPath, AGENTKIT, "approve", "--tty", "--timeout-ms", "60000", "--", process.execPath, CHILD];
  return TmuxTerminal.start(argv, { env: { VISUAL: "", EDITOR: "", ...env } });
}

it("a grandchild pushing 'a' into the terminal (TIOCSTI) approves nothing: the child runs without a controlling terminal", async () => {
  const go = join(dir, "go");
  await using term = approveInTmux({ INJECT_GO: go });
  const prompt = await term.until(/\[m\] modify/, 20_000);
  expect(prompt).toContain("Bash");
  writeFileSync(go, "");
  const tried = await untilValue(
    () => (existsSync(`${go}.out`) ? readFileSync(`${go}.out`, "utf8") : ""),
    (t) => t.includes("TIOCSTI"),
    "the TIOCSTI attempt's report",
    10_000,
  );
  expect(tried).toMatch(/^CTTY none/);
  expect(tried).not.toMatch(/TIOCSTI ok/);
  expect(term.screen()).not.toContain("DECISION allow");
  // Keys typed after the attempt come after anything it pushed: Ctrl-C settles the prompt unless 'a' already did.
  term.keys("C-c");
  const done = await term.until(/EXITED \d+/, 20_000);
  expect(done).not.toContain("DECISION allow");
  expect(done).toMatch(/withdrawn \(never answered by a person\): Bash/);
});

it("Ctrl-C with a permission prompt pending exits non-zero and names the withdrawn prompt (the child exited 0)", async () => {
  await using term = approveInTmux();
  await term.until(/\[m\] modify/, 20_000);
  term.keys("C-c");
  const done = await term.until(/EXITED \d+/, 20_000);
  expect(done).toMatch(
    /agentkit approve: interrupted with 1 permission prompt\(s\) pending; withdrawn \(never answered by a person\): Bash\. node exited 0/,
  );
  expect(done).toContain("EXITED 130");
  expect(done).not.toMatch(/permission prompt\(s\) decided/);
});
