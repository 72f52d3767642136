/**
 * @module test/agentkit-cli/stray-arguments.test
 * What the command line prints back: a stray positional argument is refused
 * without being repeated (it may be a secret typed in the wrong place), and
 * `agentkit init` prints a `cd` line a shell reads as one word, whatever the
 * directory is called.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireBuild, runAgentkit } from "./agentkit-process.js";

const SECRET = "sk-live-typed-in-the-wrong-place";
let dir: string;
beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), "akt-stray-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a stray positional argument", () => {
  it.each([
    [["serve", "module.js", SECRET], /agentkit serve: unexpected extra argument #2 /],
    [["call", "some_tool", SECRET], /agentkit call: unexpected extra argument #2 /],
    [["init", join(tmpdir(), "x"), SECRET], /agentkit init: unexpected extra argument #2 /],
    [["inspect", SECRET], /agentkit inspect: unexpected extra argument #1 /],
  ])("%j is refused (exit 2) without repeating it", async (args, message) => {
    const r = await runAgentkit(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(`${r.stdout}${r.stderr}`).not.toContain(SECRET);
  });
});

describe("agentkit init's next steps", () => {
  it("quote the directory as one shell word", async () => {
    const target = join(dir, "my app $(touch pwned)");
    const r = await runAgentkit(["init", target]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`  cd '${target}' && npm install`);
  });
});
