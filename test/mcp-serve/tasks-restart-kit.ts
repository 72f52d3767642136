/**
 * @module test/mcp-serve/tasks-restart-kit
 * The serving process of the restart tests (test/fixtures/servers/task-restart-server.mjs,
 * a real subprocess on a PGlite directory or a PostgreSQL database), killed
 * with a signal, and the restart matrix: `runs` rounds, each killing the
 * process with SIGKILL at a seeded random point while tasks are open, then
 * restarting it on the same store and driving every task to its end. Its
 * checks: every task is known after the restart (never lost), ends
 * `completed`, `failed` (only "the server restarted while ... was running")
 * or `cancelled`, and each side effect (a line in a counter file) happened at
 * most once, and exactly once for a task that completed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { callTool, pollTask, taskRpc, type Target } from "./tasks-helpers.js";
import { seeded } from "../helpers/seeded.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/servers/task-restart-server.mjs", import.meta.url));

/** A running fixture: the process and where it serves. */
export interface Serving {
  readonly child: ChildProcess;
  readonly target: Target;
}

/** Where the fixture keeps its tasks: a PGlite directory or a PostgreSQL URL (its schema migrated). */
export type RestartStore = { readonly dataDir: string } | { readonly databaseUrl: string };

/** Every fixture process started, so a test's `afterEach` can kill what is left (`killAll`). */
const children: ChildProcess[] = [];

/** Start the fixture on `store`, its counter file `counter`, its temp files under `tmp`; resolves once it printed where it serves. */
export function serving(store: RestartStore, counter: string, tmp: string): Promise<Serving> {
  // The fixture's own temp files (its MCP config) go under the test's directory: a process killed with SIGKILL cannot remove them.
  mkdirSync(tmp, { recursive: true });
  const where = "dataDir" in store ? { DATA_DIR: store.dataDir } : { DATABASE_URL: store.databaseUrl };
  const child = spawn(process.execPath, [FIXTURE], {
    env: { ...process.env, ...where, COUNTER: counter, TMPDIR: tmp },
    stdio: ["pipe", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once("exit", (code, signal) => reject(new Error(`the fixture exited before serving (${code ?? signal})`)));
    createInterface({ input: child.stdout! }).once("line", (line) => {
      const { url, headers } = JSON.parse(line) as { url: string; headers: Record<string, string> };
      resolve({ child, target: { url, headers } });
    });
  });
}

/** Send `signal` to `child` and wait for it to exit. */
export function killed(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill(signal);
  });
}

/** SIGKILL every fixture still running (a test's cleanup). */
export async function killAll(): Promise<void> {
  for (const c of children.splice(0)) await killed(c, "SIGKILL");
}

/** A whole number from an environment variable (`fallback` when unset). */
export function envCount(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === "") return fallback;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a whole number from 1, got '${v}'`);
  return n;
}

const FINAL = new Set(["completed", "failed", "cancelled"]);
const RESTARTED = (tool: string) => `the server restarted while '${tool}' was running; it was not run again`;

/** What one round opened before the kill: the task ids by tool. */
interface Opened {
  deploy?: string;
  ask?: string;
  busy?: string;
}

/** Lines of the counter file. */
function lines(counter: string): string[] {
  return readFileSync(counter, "utf8").split("\n").filter(Boolean);
}

/**
 * Drive a task to its end after the restart: approve it in the inbox while
 * it waits for approval, answer its question while it is `input_required`
 * (again each second while it still waits: the restarted process puts an
 * approval back in its inbox a moment after the record reads "waiting", and
 * an answer to a question already answered is ignored).
 */
async function settle(s: Serving, id: string, answer: () => Promise<void>): Promise<Record<string, unknown>> {
  let answeredAt = 0;
  return pollTask(
    s.target,
    id,
    (t) => {
      if (FINAL.has(t.status as string)) return true;
      const waiting = t.statusMessage === "waiting for approval" || t.status === "input_required";
      if (waiting && Date.now() - answeredAt >= 1_000) {
        answeredAt = Date.now();
        void answer();
      }
      return false;
    },
    120_000,
  );
}

/**
 * One round: open the tasks step by step (a deploy waiting for approval, an
 * ask waiting on its question, a busy task running, the approval given in the
 * inbox, the question answered), SIGKILL the process after a seeded number of
 * steps (plus a seeded 0–30 ms), restart on the same store, drive every task
 * to its end and check it.
 */
async function round(store: RestartStore, dir: string, run: number, random: () => number): Promise<string> {
  const counter = join(dir, `counter-${run}.txt`);
  writeFileSync(counter, "");
  const tmp = join(dir, "tmp");
  const target = `r${run}`;
  const killAfter = 1 + Math.floor(random() * 5);
  const jitterMs = Math.floor(random() * 30);
  const opened: Opened = {};
  const first = await serving(store, counter, tmp);
  const steps: Array<() => Promise<void>> = [
    async () => {
      opened.deploy = (await callTool(first.target, "deploy", { target })).result!.taskId!;
      await pollTask(first.target, opened.deploy, (t) => t.statusMessage === "waiting for approval", 60_000);
    },
    async () => {
      opened.ask = (await callTool(first.target, "ask")).result!.taskId!;
      await pollTask(first.target, opened.ask, (t) => t.status === "input_required", 60_000);
    },
    async () => {
      opened.busy = (await callTool(first.target, "busy")).result!.taskId!;
      await expect.poll(() => lines(counter), { timeout: 60_000 }).toContain("busy");
    },
    async () => void first.child.stdin!.write("approve\n"),
    async () =>
      void (await taskRpc(first.target, "update", opened.ask!, {
        inputResponses: { "elicit-1": { action: "accept", content: { colour: target } } },
      })),
  ];
  for (const step of steps.slice(0, killAfter)) await step();
  // A seeded moment after the last step: the kill may land while the approval or the answer is being taken.
  // A real wait, kept (class d): what it spreads is where the child process is in its own work when killed.
  await new Promise((r) => setTimeout(r, jitterMs));
  await killed(first.child, "SIGKILL");

  const second = await serving(store, counter, tmp);
  const ends: Record<string, Record<string, unknown>> = {};
  try {
    if (opened.deploy) ends.deploy = await settle(second, opened.deploy, async () => void second.child.stdin!.write("approve\n"));
    if (opened.ask)
      ends.ask = await settle(
        second,
        opened.ask,
        async () =>
          void (await taskRpc(second.target, "update", opened.ask!, {
            inputResponses: { "elicit-1": { action: "accept", content: { colour: target } } },
          })),
      );
    if (opened.busy) ends.busy = await settle(second, opened.busy, async () => {});
  } finally {
    await killed(second.child, "SIGTERM");
  }
  const done = lines(counter);
  const why = `run ${run} (killed after step ${killAfter} + ${jitterMs} ms): ${JSON.stringify({ ends, done })}`;
  const expected: Record<keyof Opened, { line: string; text: string }> = {
    deploy: { line: `deploy ${target}`, text: `deployed ${target}` },
    ask: { line: `ask ${target}`, text: `colour ${target}` },
    busy: { line: "busy", text: "" },
  };
  for (const [tool, end] of Object.entries(ends) as Array<[keyof Opened, Record<string, unknown>]>) {
    const { line, text } = expected[tool];
    const times = done.filter((l) => l === line).length;
    expect(times, `${tool} ran at most once; ${why}`).toBeLessThanOrEqual(1);
    if (end.status === "completed") {
      expect(end.result, why).toEqual({ content: [{ type: "text", text }] });
      expect(times, `${tool} completed: it ran exactly once; ${why}`).toBe(1);
    } else {
      expect(end, why).toMatchObject({ status: "failed", error: { message: RESTARTED(tool) } });
    }
  }
  if (opened.busy) expect(ends.busy?.status, why).toBe("failed");
  return `run ${run}: killed after step ${killAfter} + ${jitterMs} ms; ${Object.entries(ends)
    .map(([t, e]) => `${t} ${String(e.status)}`)
    .join(", ")}`;
}

/** The restart matrix: `runs` rounds on `store` (seeded by `seed`); the line of each round. */
export async function restartMatrix(store: RestartStore, dir: string, runs: number, seed: number): Promise<string[]> {
  const random = seeded(seed);
  const out: string[] = [];
  for (let run = 1; run <= runs; run++) out.push(await round(store, dir, run, random));
  return out;
}
