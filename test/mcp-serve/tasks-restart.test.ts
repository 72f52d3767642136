/**
 * @module test/mcp-serve/tasks-restart.test
 * MCP tasks survive their serving process (test/fixtures/servers/task-restart-server.mjs,
 * a real subprocess on a PGlite directory, killed with SIGKILL): after a
 * restart on the same store with a new bearer token, `tasks/get` knows every
 * task; a task that was waiting for approval runs once when approved (its
 * side effect, a line in a counter file, happens exactly once); a task whose
 * body was running ends `failed`, saying the server restarted and it was not
 * run again. (PGlite's first start takes tens of seconds on a loaded
 * machine: the limits are generous, nothing sleeps.)
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { callTool, pollTask, taskRpc, type Target } from "./tasks-helpers.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/servers/task-restart-server.mjs", import.meta.url));
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) await killed(c, "SIGKILL");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Start the fixture on `dataDir`; resolves with where it serves once it printed its line. */
function serving(dataDir: string, counter: string): Promise<{ child: ChildProcess; target: Target }> {
  // The fixture's own temp files (its MCP config) go under the test's directory: a process killed with SIGKILL cannot remove them.
  const tmp = join(dirname(dataDir), "tmp");
  mkdirSync(tmp, { recursive: true });
  const child = spawn(process.execPath, [FIXTURE], { env: { ...process.env, DATA_DIR: dataDir, COUNTER: counter, TMPDIR: tmp }, stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once("exit", (code, signal) => reject(new Error(`the fixture exited before serving (${code ?? signal})`)));
    createInterface({ input: child.stdout! }).once("line", (line) => {
      const { url, headers } = JSON.parse(line) as { url: string; headers: Record<string, string> };
      resolve({ child, target: { url, headers } });
    });
  });
}

function killed(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill(signal);
  });
}

describe("MCP tasks across a restart of the serving process (PGlite)", () => {
  it("SIGKILL while one task waits for approval and another runs: after a restart tasks/get knows both; the waiting one runs once when approved; the running one ended failed and was not run again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "akt-tasks-restart-"));
    dirs.push(dir);
    const counter = join(dir, "counter.txt");
    writeFileSync(counter, "");
    const first = await serving(join(dir, "db"), counter);
    const handle = await callTool(first.target, "deploy", { target: "prod" });
    expect(handle.result?.resultType).toBe("task");
    const waitingId = handle.result!.taskId!;
    await pollTask(first.target, waitingId, (t) => t.status === "input_required", 60_000);
    const busy = await callTool(first.target, "busy");
    const busyId = busy.result!.taskId!;
    await expect.poll(() => readFileSync(counter, "utf8"), { timeout: 60_000 }).toBe("busy\n");
    await killed(first.child, "SIGKILL");

    const second = await serving(join(dir, "db"), counter);
    expect(second.target.headers).not.toEqual(first.target.headers);
    const waiting = await pollTask(second.target, waitingId, (t) => t.status === "input_required", 60_000);
    const [key] = Object.keys(waiting.inputRequests as Record<string, unknown>);
    const failed = await pollTask(second.target, busyId, (t) => t.status !== "working", 60_000);
    expect(failed).toMatchObject({ status: "failed", error: { message: "the server restarted while 'busy' was running; it was not run again" } });

    await taskRpc(second.target, "update", waitingId, { inputResponses: { [key!]: { action: "accept", content: { approve: true } } } });
    const done = await pollTask(second.target, waitingId, (t) => t.status === "completed", 60_000);
    expect(done.result).toEqual({ content: [{ type: "text", text: "deployed prod" }] });
    expect(readFileSync(counter, "utf8")).toBe("busy\ndeploy prod\n");
    await killed(second.child, "SIGTERM");
  }, 300_000);
});
