/**
 * @module test/global-setup
 * Suite-wide hygiene: every process the suite starts inherits a marker in its
 * environment; at the end no process carrying it may be alive, and no
 * agentkit temp directory made during the run may remain.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "./helpers/wait.js";

const MARK = "AGENTKIT_TEST_RUN";

function markedProcesses(id: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${pid}/environ`, "latin1");
      if (env.split("\0").includes(`${MARK}=${id}`)) {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim();
        const state = readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]?.[0];
        if (state !== "Z") found.push(`${pid}: ${cmd.slice(0, 160)}`);
      }
    } catch {
      // process gone or not ours to read
    }
  }
  return found;
}

/** Set while a setup of this process is in force: a config with several projects runs each project's global setup in one process, and one suite needs one marker and one private temp directory. */
const ACTIVE = Symbol.for("agentkit:test-suite-setup");

export function setup(): () => Promise<void> {
  const holder = globalThis as { [ACTIVE]?: boolean };
  if (holder[ACTIVE]) return async () => {};
  holder[ACTIVE] = true;
  const id = randomBytes(6).toString("hex");
  process.env[MARK] = id;
  const outer = tmpdir();
  const privateTmp = mkdtempSync(join(outer, "akt-suite-"));
  process.env.TMPDIR = privateTmp;
  // Node >= 22 keeps a module compile cache under the temp directory for any
  // program that enables it (TypeScript's tsc does): Node's own cache, not a
  // test's leak — kept off so the check below reads only what tests leave.
  process.env.NODE_DISABLE_COMPILE_CACHE = "1";
  // No test calls a real model API: a developer's keys never reach the
  // workers or the samples they spawn (npm start picks a real model when set).
  for (const k of ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL"])
    delete process.env[k];
  return async () => {
    // A process on its way out gets up to 3 s (scaled for the machine).
    await until(() => markedProcesses(id).length === 0, "the suite's processes to exit", 3000).catch(() => {});
    const left = markedProcesses(id);
    const dirs = readdirSync(privateTmp).map((d) => join(privateTmp, d));
    process.env.TMPDIR = outer;
    rmSync(privateTmp, { recursive: true, force: true });
    const problems = [...left.map((p) => `leaked process ${p}`), ...dirs.map((d) => `leaked temp directory ${d}`)];
    if (problems.length) {
      // vitest ignores an error thrown from a global teardown (the run still
      // exits 0), so say it and fail the process explicitly.
      process.stderr.write(`\ntest hygiene check failed:\n  ${problems.join("\n  ")}\n`);
      process.exitCode = 1;
    }
  };
}
