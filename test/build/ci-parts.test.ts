/**
 * @module test/build/ci-parts.test
 * The helpers `.ci/run` runs its parts with (`.ci/parts.sh`), run the way CI
 * runs them: sourced by bash under `set -euo pipefail`. A background part's
 * output is printed when it is awaited, its time is recorded, and its failure
 * fails the run with its exit code; two background parts keep their outputs
 * apart. (A stop's CI once died at the first `start_part`: an unset variable
 * under `set -u` that only bash, not a reading, finds.) Also: `bash -n` parses
 * `.ci/run` itself, and no part that runs beside `npm test` (which rebuilds
 * `dist/`: its prebuild deletes it) runs a test that spawns the built CLI (a
 * stop's CI failed so: `agentkit call`'s wait, started beside the suite, found
 * `dist/bin/agentkit.js` missing).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs `script` after sourcing .ci/parts.sh under CI's shell options, in the repository root. */
function runParts(script: string): { status: number | null; stdout: string; stderr: string } {
  const bgDir = mkdtempSync(join(tmpdir(), "akt-ci-parts-"));
  dirs.push(bgDir);
  const result = spawnSync("bash", ["-c", `set -euo pipefail\nbg_dir=${JSON.stringify(bgDir)}\nsource .ci/parts.sh\n${script}`], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe(".ci/parts.sh under set -euo pipefail", () => {
  it("runs two background parts beside a foreground one, prints each one's own output when awaited, and records every time", () => {
    const run = runParts(
      [
        `start_part "first" bash -c 'echo one-out; echo one-err >&2'`,
        `start_part "second" bash -c 'echo two-out'`,
        `part "foreground" echo fg-out`,
        `await_part "second"`,
        `await_part "first"`,
        `printf '%s\\n' "\${timings[@]}"`,
      ].join("\n"),
    );
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const out = run.stdout;
    expect(out).toContain("=== first (started in the background)");
    expect(out).toContain("=== foreground\nfg-out");
    // Each background part's output follows its own heading, stderr included.
    expect(out).toMatch(/=== second \(output\)\ntwo-out\n/);
    expect(out).toMatch(/=== first \(output\)\none-out\none-err\n/);
    expect(out.split("\n").filter((line) => /^(foreground|second \(background\)|first \(background\)) +\d+ min \d\d s$/.test(line))).toHaveLength(3);
  });

  it("fails the run with a background part's exit code, after printing its output", () => {
    const run = runParts([`start_part "broken" bash -c 'echo what-broke; exit 7'`, `await_part "broken"`, `echo not-reached`].join("\n"));
    expect(run.status).toBe(7);
    expect(run.stdout).toContain("=== broken (output)\nwhat-broke\n=== broken failed (exit 7)");
    expect(run.stdout).not.toContain("not-reached");
  });

  it("fails the run when a foreground part fails", () => {
    const run = runParts([`part "fails" false`, `echo not-reached`].join("\n"));
    expect(run.status).toBe(1);
    expect(run.stdout).not.toContain("not-reached");
  });

  it("parses .ci/run", () => {
    const check = spawnSync("bash", ["-n", ".ci/run"], { cwd: ROOT, encoding: "utf8" });
    expect(check.stderr).toBe("");
    expect(check.status).toBe(0);
  });

  it("runs no test that needs the build beside npm test, which deletes and rebuilds dist/", () => {
    const lines = readFileSync(join(ROOT, ".ci/run"), "utf8").split("\n");
    const suite = lines.findIndex((line) => /^part ".*" (env [A-Z_]+=\S+ )*npm test( -- .*)?$/.test(line));
    expect(suite, "`part ... npm test` in .ci/run").toBeGreaterThan(0);
    // background parts started before the suite and awaited after it
    const beside = lines
      .slice(0, suite)
      .map((line) => /^start_part "([^"]+)" .*--project ([\w-]+)/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .filter((m) => lines.slice(suite).some((line) => line === `await_part "${m[1]}"`))
      .map((m) => m[2]!);
    expect(beside).toContain("human-paced");
    // vitest.reliability.config.ts read as text (importing it would put it in the tests' type check)
    const config = readFileSync(join(ROOT, "vitest.reliability.config.ts"), "utf8");
    for (const name of beside) {
      const project = new RegExp(`name: "${name}",[^}]*?include: \\[([^\\]]*)\\]`).exec(config);
      expect(project, `project ${name} and its include list in vitest.reliability.config.ts`).not.toBeNull();
      // the projects beside the suite name their files (no globs: this check reads them)
      const files = [...project![1]!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
      expect(files.filter((file) => /[*?{[]/.test(file))).toEqual([]);
      expect(files.length).toBeGreaterThan(0);
      const needBuild = files.filter((file) => /requireBuild|agentkit-process\.js|\bdist\//.test(readFileSync(join(ROOT, file), "utf8")));
      expect(needBuild, `tests of project ${name}, run beside npm test, that need dist/`).toEqual([]);
    }
  });
});
