/**
 * @module test/mcp-serve/tasks-restart.test
 * MCP tasks survive their serving process (test/fixtures/servers/task-restart-server.mjs,
 * a real subprocess on a PGlite directory, killed with SIGKILL): after a
 * restart on the same store with a new bearer token, `tasks/get` knows every
 * task; a task that was waiting for approval is back in the inbox and runs
 * once when approved there (its side effect, a line in a counter file,
 * happens exactly once); a task waiting on `ctx.elicit()` is still
 * `input_required` and completes when answered; a task whose body was
 * running ends `failed`, saying the server restarted and it was not run
 * again. (PGlite's first start takes tens of seconds on a loaded
 * machine: the limits are generous, nothing sleeps.)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { callTool, pollTask, taskRpc } from "./tasks-helpers.js";
import { killAll, killed, serving as servingOn } from "./tasks-restart-kit.js";

const dirs: string[] = [];
afterEach(async () => {
  await killAll();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The fixture on the PGlite directory `dataDir` (its temp files beside it). */
const serving = (dataDir: string, counter: string) => servingOn({ dataDir }, counter, join(dataDir, "..", "tmp"));

describe("MCP tasks across a restart of the serving process (PGlite)", () => {
  it("SIGKILL while a task waits for approval, one waits on ctx.elicit() and one runs: after a restart tasks/get knows all three; the approval is back in the inbox and, approved there, runs once; the elicit is still input_required and completes when answered; the running one ended failed and was not run again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "akt-tasks-restart-"));
    dirs.push(dir);
    const counter = join(dir, "counter.txt");
    writeFileSync(counter, "");
    const first = await serving(join(dir, "db"), counter);
    const handle = await callTool(first.target, "deploy", { target: "prod" });
    expect(handle.result?.resultType).toBe("task");
    const waitingId = handle.result!.taskId!;
    await pollTask(first.target, waitingId, (t) => t.statusMessage === "waiting for approval", 60_000);
    const asking = await callTool(first.target, "ask");
    const askId = asking.result!.taskId!;
    await pollTask(first.target, askId, (t) => t.status === "input_required", 60_000);
    const busy = await callTool(first.target, "busy");
    const busyId = busy.result!.taskId!;
    await expect.poll(() => readFileSync(counter, "utf8"), { timeout: 60_000 }).toBe("busy\n");
    await killed(first.child, "SIGKILL");

    const second = await serving(join(dir, "db"), counter);
    expect(second.target.headers).not.toEqual(first.target.headers);
    const waiting = await pollTask(second.target, waitingId, (t) => t.statusMessage === "waiting for approval", 60_000);
    expect(waiting.status).toBe("working");
    const asked = await pollTask(second.target, askId, (t) => t.status === "input_required", 60_000);
    expect(Object.keys(asked.inputRequests as Record<string, unknown>)).toEqual(["elicit-1"]);
    const failed = await pollTask(second.target, busyId, (t) => t.status !== "working", 60_000);
    expect(failed).toMatchObject({
      status: "failed",
      error: { message: "the server restarted while 'busy' was running; it was not run again" },
    });

    second.child.stdin!.write("approve\n");
    const done = await pollTask(second.target, waitingId, (t) => t.status === "completed", 60_000);
    expect(done.result).toEqual({ content: [{ type: "text", text: "deployed prod" }] });
    await taskRpc(second.target, "update", askId, { inputResponses: { "elicit-1": { action: "accept", content: { colour: "red" } } } });
    const answered = await pollTask(second.target, askId, (t) => t.status === "completed", 60_000);
    expect(answered.result).toEqual({ content: [{ type: "text", text: "colour red" }] });
    expect(readFileSync(counter, "utf8").split("\n").filter(Boolean).sort()).toEqual(["ask red", "busy", "deploy prod"]);
    await killed(second.child, "SIGTERM");
  }, 300_000);
});
