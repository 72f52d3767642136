/**
 * @module test/build/ci-parts.test
 * The helpers `.ci/run` runs its parts with (`.ci/parts.sh`), run the way CI
 * runs them: sourced by bash under `set -euo pipefail`. A background part's
 * output is printed when it is awaited, its time is recorded, and its failure
 * fails the run with its exit code; two background parts keep their outputs
 * apart. (A stop's CI once died at the first `start_part`: an unset variable
 * under `set -u` that only bash, not a reading, finds.) Also: `bash -n` parses
 * `.ci/run` itself.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
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
});
