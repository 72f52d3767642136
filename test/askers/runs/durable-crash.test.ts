/**
 * @module test/askers/runs/durable-crash.test
 * The crash matrix of durable runs, in real processes (the built package):
 * a 10-turn run with three side-effecting tools (one needing approval) is
 * SIGKILLed at a seeded random point (a model answer, a tool body or a
 * store write: before or after it), then resumed by a new process until it
 * finishes. Per run: it finishes; each side effect happened once, or at
 * most once more per `resume` question a person approved; no model turn is
 * answered again once it was recorded. PGlite (RUNS_CRASH_PGLITE runs,
 * default 100) and a real PostgreSQL (RUNS_CRASH_POSTGRES, default 50).
 * Its own CI part (`npm run test:crash`; `npm test` leaves it out unless
 * RUNS_CRASH is set). Needs `npm run build`.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { migrateInboxStore } from "../../../src/askers/index.js";
import { startPostgres, type TestPostgres } from "../../helpers/postgres.js";
import { seeded } from "../../helpers/seeded.js";

const WORKER = fileURLToPath(new URL("../../fixtures/askers/durable-run-worker.mjs", import.meta.url));
const COUNTS = { pglite: Number(process.env["RUNS_CRASH_PGLITE"] ?? 100), postgres: Number(process.env["RUNS_CRASH_POSTGRES"] ?? 50) };
const dir = mkdtempSync(join(tmpdir(), "runs-crash-"));
let pg: TestPostgres | undefined;

afterAll(() => {
  pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Run the worker once; its exit code or signal and its stdout. */
function worker(
  env: Record<string, string>,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** What one matrix run's log shows, checked. */
function checkLog(lines: readonly string[]): { killedAt: string; resumeYes: number } {
  const count = (re: RegExp) => lines.filter((l) => re.test(l)).length;
  const resumeYes = (name: string) => count(new RegExp(`^\\d+ approved ${name} resume$`));
  for (const name of ["send", "notify", "deploy"]) {
    const effects = count(new RegExp(`^\\d+ effect ${name} `));
    expect
      .soft(effects, `${name}: its side effect happened ${effects} times with ${resumeYes(name)} resume approvals`)
      .toBeGreaterThanOrEqual(1);
    expect
      .soft(effects, `${name}: its side effect happened ${effects} times with ${resumeYes(name)} resume approvals`)
      .toBeLessThanOrEqual(1 + resumeYes(name));
  }
  for (let n = 1; n <= 10; n++) {
    const recordedIn1 = lines.some((l) => l.startsWith("1 recorded turn ") && l.endsWith(` turn ${n}`));
    const answers = count(new RegExp(`^\\d+ answer ${n}$`));
    const answeredAgain = count(new RegExp(`^2 answer ${n}$`));
    expect.soft(answers, `turn ${n} answered ${answers} times`).toBeGreaterThanOrEqual(1);
    if (recordedIn1) expect.soft(answeredAgain, `turn ${n} was recorded before the crash and answered again after it`).toBe(0);
  }
  return {
    killedAt: lines.find((l) => / kill /.test(l)) ?? "never",
    resumeYes: resumeYes("send") + resumeYes("notify") + resumeYes("deploy"),
  };
}

/** The store a matrix or named-point run of `kind` works on (a real PostgreSQL started once, for every run of the file). */
async function storeEnvOf(kind: "pglite" | "postgres", name: string): Promise<Record<string, string>> {
  if (kind === "pglite") return { STORE_DIR: join(dir, `${name}-pglite`) };
  pg ??= await startPostgres();
  await migrateInboxStore({ connectionString: pg.connectionString, schema: name });
  return { STORE_URL: pg.connectionString, SCHEMA: name, LEASE_MS: "1000" };
}

// A call's end is written while the next model request goes out: a SIGKILL then leaves the call started and not
// finished, which a resume settles by the rules for one.
describe.each(["pglite", "postgres"] as const)("durable runs on %s: SIGKILL after a call finished, before its end is durable", (kind) => {
  it.each([
    ["side-effecting", "model 3", "send", 2],
    ["read-only", "model 2", "read", 1],
  ] as const)("a %s call (killed at '%s') is settled by the resume rules", { timeout: 120_000 }, async (_, killWhen, tool, n) => {
    const storeEnv = await storeEnvOf(kind, `ends_${tool}`);
    const log = join(dir, `${kind}-ends-${tool}.log`);
    writeFileSync(log, "");
    const runId = `${kind}-ends-${tool}`;
    const first = await worker({ ...storeEnv, MODE: "start", RUN_ID: runId, LOG: log, PROC: "1", KILL_WHEN: killWhen });
    expect(first.signal, first.stderr).toBe("SIGKILL");
    const second = await worker({ ...storeEnv, MODE: "resume", RUN_ID: runId, LOG: log, PROC: "2" });
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout.trim())).toMatchObject({ output: "done after 9 turns", stopReason: "complete" });
    const lines = readFileSync(log, "utf8").trim().split("\n");
    // it finished in the first process; the resume did not read that back
    expect(lines).toContain(`1 ran ${tool} ${n}`);
    expect(lines).not.toContain(`1 recorded call_finished ${3 * n}`);
    if (tool === "send") {
      // side-effecting: run again only after a person said yes to a `resume` question
      expect(lines.filter((l) => l === "2 approved send resume")).toHaveLength(1);
      expect(lines.filter((l) => /^\d effect send 2$/.test(l))).toHaveLength(2);
    } else {
      // read-only: run again without asking
      expect(lines).toContain("2 ran read 1");
      expect(lines.filter((l) => / approved read /.test(l))).toEqual([]);
    }
    checkLog(lines);
  });
});

describe.each([
  ["pglite", COUNTS.pglite],
  ["postgres", COUNTS.postgres],
] as const)("durable runs on %s survive SIGKILL at seeded random points", (kind, runs) => {
  it(`${runs} runs, each killed once and resumed to the end`, { timeout: 60_000 + runs * 30_000 }, async () => {
    const storeEnv: Record<string, string> = {};
    if (kind === "pglite") storeEnv["STORE_DIR"] = join(dir, "pglite");
    else {
      pg ??= await startPostgres();
      await migrateInboxStore({ connectionString: pg.connectionString, schema: "crash" });
      Object.assign(storeEnv, { STORE_URL: pg.connectionString, SCHEMA: "crash", LEASE_MS: "1000" });
    }
    // the points an uninterrupted run passes
    const calibrate = join(dir, `${kind}-calibrate.log`);
    writeFileSync(calibrate, "");
    const whole = await worker({ ...storeEnv, MODE: "start", RUN_ID: `${kind}-whole`, LOG: calibrate, PROC: "1", KILL_AT: "0" });
    expect(whole.code, whole.stderr).toBe(0);
    const { points, output } = JSON.parse(whole.stdout.trim()) as { points: number; output: string };
    expect(output).toBe("done after 9 turns");
    const random = seeded(kind === "pglite" ? 40 : 4050);
    const tally = { finished: 0, killed: 0, resumeYes: 0 };
    for (let i = 1; i <= runs; i++) {
      const killAt = 1 + Math.floor(random() * points);
      const log = join(dir, `${kind}-${i}.log`);
      writeFileSync(log, "");
      const runId = `${kind}-${i}`;
      const first = await worker({ ...storeEnv, MODE: "start", RUN_ID: runId, LOG: log, PROC: "1", KILL_AT: String(killAt) });
      expect(first.signal, `run ${i} (kill at ${killAt}) was not killed: ${first.stderr}`).toBe("SIGKILL");
      tally.killed++;
      const second = await worker({ ...storeEnv, MODE: "resume", RUN_ID: runId, LOG: log, PROC: "2", KILL_AT: "0" });
      expect(second.code, `run ${i} (kill at ${killAt}) did not resume: ${second.stderr}`).toBe(0);
      const end = JSON.parse(second.stdout.trim()) as { output: string; stopReason: string };
      expect(end, `run ${i}`).toMatchObject({ output: "done after 9 turns", stopReason: "complete" });
      tally.finished++;
      tally.resumeYes += checkLog(readFileSync(log, "utf8").trim().split("\n")).resumeYes;
    }
    process.stdout.write(
      `crash matrix ${kind}: ${tally.finished}/${runs} finished after SIGKILL (${points} points per run; ${tally.resumeYes} resume questions approved)\n`,
    );
    expect(tally.finished).toBe(runs);
  });
});
