/**
 * @module test/express/fleet-tasks.test
 * MCP tasks across a hosted fleet, all real: three `agentkit host` processes
 * with one fleet key and one PostgreSQL store (`--store`), a real nginx
 * round-robining over them (each response names its upstream in
 * `X-Upstream`, so the test knows which process served each request and
 * fails if nginx pins everything to one), a real local authorization server.
 * A task created on one process is polled through all three, answered
 * (`tasks/update`) and cancelled (`tasks/cancel`) through the others; its body
 * runs once, on the process that created it. Another principal's token gets
 * -32602 for the same task id through every process. Every `tasks/*`
 * request carries `Mcp-Name: <taskId>`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHostedFleet, type HostedFleet } from "../../bench/lib/hosted-fleet.js";
import { migrateInboxStore } from "../../src/askers/index.js";
import { FIXTURES, requireBuild } from "../agentkit-cli/agentkit-process.js";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";
import { untilValue } from "../helpers/wait.js";
import { callTool, taskRpc, type Rpc, type Target } from "../mcp-serve/tasks-helpers.js";

const ALICE = { id: "alice-bot", secret: "alice-secret-value", scopes: [] as string[] };
const MALLORY = { id: "mallory-bot", secret: "mallory-secret-value", scopes: [] as string[] };

let pg: TestPostgres;
let fleet: HostedFleet;
let dir: string;
let notes: string;

beforeAll(async () => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), "agentkit-fleet-tasks-"));
  notes = join(dir, "notes.txt");
  writeFileSync(notes, "");
  pg = await startPostgres();
  await migrateInboxStore({ connectionString: pg.connectionString, roles: false });
  fleet = await startHostedFleet({
    module: join(FIXTURES, "hosted-tasks-module.mjs"),
    flags: ["--store", pg.connectionString],
    env: { AGENTKIT_FLEET_KEY: "a-fleet-key-shared-by-three-processes-0123456789", AGENTKIT_TEST_TASKS: notes },
    clients: [ALICE, MALLORY],
  });
}, 90_000);

afterAll(async () => {
  await fleet?.close();
  pg?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** nginx, with a token of `client`. */
async function through(client: { id: string; scopes: string[] }): Promise<Target> {
  return { url: fleet.resource, headers: { authorization: `Bearer ${await fleet.mint(client)}` } };
}

/** The pid of the fleet process that served `r` (nginx's `X-Upstream`). */
const servedBy = (r: Rpc): number => fleet.servedBy(r.headers!);

/** The lines of the shared notes file that start with `prefix`. */
const noted = (prefix: string): string[] =>
  readFileSync(notes, "utf8")
    .split("\n")
    .filter((l) => l.startsWith(prefix));

/**
 * `tasks/get` through nginx until the task is in `status` and the poll was
 * served by `pid` (so, round-robin, the next request goes to another
 * process); the pids that served the polls, in order.
 */
async function pollUntilServedBy(
  target: Target,
  taskId: string,
  status: string,
  pid: number,
): Promise<{ task: Record<string, unknown>; served: number[] }> {
  return pollThrough(
    target,
    taskId,
    (task, served) => task.status === status && served.at(-1) === pid,
    `'${status}' on a poll served by ${pid}`,
  );
}

/** `tasks/get` through nginx until the task is in `status`; the last task and the pids that served the polls. */
async function pollUntil(target: Target, taskId: string, status: string): Promise<{ task: Record<string, unknown>; served: number[] }> {
  return pollThrough(target, taskId, (task) => task.status === status, `'${status}'`);
}

/** `tasks/get` through nginx (polled by `untilValue`) until `holds(task, served)`; the task then and the pids that served the polls. */
async function pollThrough(
  target: Target,
  taskId: string,
  holds: (task: Record<string, unknown>, served: number[]) => boolean,
  state: string,
): Promise<{ task: Record<string, unknown>; served: number[] }> {
  const served: number[] = [];
  const task = await untilValue(
    async () => {
      const r = await taskRpc(target, "get", taskId);
      expect(r.error, JSON.stringify(r.error)).toBeUndefined();
      served.push(servedBy(r));
      return r.result!;
    },
    (t) => holds(t, served),
    () => `task ${taskId} to be ${state} (served by ${served.join(",")})`,
    10_000,
  );
  return { task, served };
}

describe("MCP tasks on a fleet of three agentkit host on one PostgreSQL store, behind nginx", () => {
  it("a task created on one process is polled through all three, answered through another, and completes once, on the process that runs it", async () => {
    const alice = await through(ALICE);
    const version = `5.0.${Date.now()}`;
    const handle = await callTool(alice, "ask_release", { version });
    expect(handle.result, JSON.stringify(handle)).toMatchObject({ resultType: "task", status: "working" });
    const id = handle.result!.taskId!;
    const creator = servedBy(handle);
    await expect.poll(() => noted(`asked ${version} `)).toEqual([`asked ${version} ${creator}`]);
    // Polled through nginx: every process answers tasks/get for a task another one created.
    const { task, served } = await pollUntilServedBy(alice, id, "input_required", creator);
    expect(new Set(served).size, `polls served by ${served.join(",")}`).toBe(3);
    const [key] = Object.keys(task.inputRequests as Record<string, unknown>);
    expect(task.inputRequests).toMatchObject({ [key!]: { method: "elicitation/create", params: { message: `Release ${version}?` } } });
    // Answered through another process: the creator hears it through the store and its body goes on.
    const update = await taskRpc(alice, "update", id, { inputResponses: { [key!]: { action: "accept", content: { answer: "yes" } } } });
    expect(update.error, JSON.stringify(update.error)).toBeUndefined();
    expect(servedBy(update)).not.toBe(creator);
    const done = await pollUntil(alice, id, "completed");
    expect(done.task.result).toEqual({ content: [{ type: "text", text: `released ${version}: yes on ${creator}` }] });
    expect(noted(`released ${version} `)).toEqual([`released ${version} ${creator}`]);
    expect(noted(`asked ${version} `)).toHaveLength(1);
  });

  it("a task created on one process is cancelled through another: the process running it hears the cancel and its body stops", async () => {
    const alice = await through(ALICE);
    const name = `job-${Date.now()}`;
    const handle = await callTool(alice, "long_job", { name });
    expect(handle.result, JSON.stringify(handle)).toMatchObject({ resultType: "task", status: "working" });
    const id = handle.result!.taskId!;
    const creator = servedBy(handle);
    await expect.poll(() => noted(`started ${name} `)).toEqual([`started ${name} ${creator}`]);
    await pollUntilServedBy(alice, id, "working", creator);
    const cancel = await taskRpc(alice, "cancel", id);
    expect(cancel.error, JSON.stringify(cancel.error)).toBeUndefined();
    expect(servedBy(cancel)).not.toBe(creator);
    const { task } = await pollUntil(alice, id, "cancelled");
    expect(task).toMatchObject({ taskId: id, status: "cancelled" });
    await expect.poll(() => noted(`cancelled ${name} `)).toEqual([`cancelled ${name} ${creator}`]);
  });

  it("another principal's token gets -32602 for the task through every process, for tasks/get, tasks/update and tasks/cancel; the owner's task is untouched", async () => {
    const alice = await through(ALICE);
    const mallory = await through(MALLORY);
    const version = `6.0.${Date.now()}`;
    const handle = await callTool(alice, "ask_release", { version });
    const id = handle.result!.taskId!;
    const { task } = await pollUntil(alice, id, "input_required");
    const [key] = Object.keys(task.inputRequests as Record<string, unknown>);
    for (const verb of ["get", "update", "cancel"] as const) {
      const served = new Set<number>();
      // Round-robin: three requests in a row reach the three processes.
      for (let i = 0; i < 3; i++) {
        const r = await taskRpc(
          mallory,
          verb,
          id,
          verb === "update" ? { inputResponses: { [key!]: { action: "accept", content: { answer: "mallory" } } } } : {},
        );
        expect(r.error, `${verb} on ${servedBy(r)}`).toMatchObject({ code: -32602 });
        expect(JSON.stringify(r.result ?? null)).not.toContain(version);
        served.add(servedBy(r));
      }
      expect(served.size, `${verb} served by ${[...served].join(",")}`).toBe(3);
    }
    // Nothing Mallory sent reached the task: still waiting for Alice's answer, then cancelled by her.
    expect((await taskRpc(alice, "get", id)).result).toMatchObject({ status: "input_required" });
    expect(noted(`released ${version} `)).toEqual([]);
    expect((await taskRpc(alice, "cancel", id)).error).toBeUndefined();
    await pollUntil(alice, id, "cancelled");
  });
});
