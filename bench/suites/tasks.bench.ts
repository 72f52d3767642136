/**
 * @module bench/suites/tasks.bench
 * Benchmark: MCP tasks (`io.modelcontextprotocol/tasks`) served by `agentkit
 * host` (bench/servers/tasks-module). On each store (in-process memory,
 * PGlite, PostgreSQL) one process: a task's create → complete round trip
 * next to the same tool answered in the call; the heap 1,000 open tasks
 * take (`global.gc()` in the host, run with `--expose-gc`); `tasks/get`
 * latency and server CPU per poll with those 1,000 tasks open. Then a fleet
 * of three processes on PostgreSQL behind nginx: `tasks/get` with 1,000
 * tasks open, through nginx.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { migrateInboxStore } from "arc-agentkit/askers";
import { pick, type BenchConfig, type Suite } from "../lib/config.js";
import { startHostedFleet, type HostedFleet } from "../lib/hosted-fleet.js";
import { startPostgres, type TestPostgres } from "../lib/postgres.js";
import { procCpuMs } from "../lib/proc-cpu.js";
import type { Goal, Section } from "../lib/report.js";
import { bytes, ms, percentile, ratio } from "../lib/stats.js";
import { callTool, taskRpc, type Rpc, type Target } from "../lib/task-rpc.js";

const MODULE = fileURLToPath(new URL("../servers/tasks-module.js", import.meta.url));
const CLIENT = { id: "bench-client", secret: "bench-client-secret", scopes: [] as string[] };
/** Open tasks while `tasks/get` and the heap are measured. */
const OPEN = 1000;
const MIB = 1024 * 1024;
/** Requests one principal sends at most: the hosted rate limit is 600 a minute per principal, so the bench speaks as many. */
const PER_PRINCIPAL = 100;

/** The fleet reached as principal `subject` (one token each, minted once). */
function principals(fleet: HostedFleet): (subject: string) => Promise<Target> {
  const made = new Map<string, Promise<Target>>();
  return (subject) => {
    let t = made.get(subject);
    if (!t)
      made.set(
        subject,
        (t = fleet.mint(CLIENT, subject).then((token) => ({ url: fleet.resource, headers: { authorization: `Bearer ${token}` } }))),
      );
    return t;
  };
}

/** An open task and who owns it. */
interface Open {
  readonly id: string;
  readonly owner: Target;
}

/** What one process on one store measured. */
interface StoreRun {
  readonly store: string;
  /** ms per call answered in the call (`quick_inline`). */
  readonly inline: number[];
  /** ms per task created and polled until completed (`quick`). */
  readonly roundTrip: number[];
  /** `tasks/get` polls per round trip, in all. */
  readonly roundTripPolls: number;
  readonly polls: PollRun;
  /** Heap in use (bytes, after a full GC) before and with the open tasks. */
  readonly heapBefore: number;
  readonly heapOpen: number;
}

/** `tasks/get` with the tasks open. */
interface PollRun {
  readonly latencies: number[];
  /** Server CPU (ms) per poll: agentkit's processes, PostgreSQL's, nginx's. */
  readonly serverCpu: number;
  readonly pgCpu: number | undefined;
  readonly nginxCpu: number | undefined;
  /** How many processes served the polls. */
  readonly servedBy: number;
}

/** A result's one text, or throw naming what came back. */
function textOf(r: Rpc, what: string): string {
  const text = r.result?.content?.[0]?.text;
  if (r.error || typeof text !== "string") throw new Error(`${what}: ${JSON.stringify(r.error ?? r.result)}`);
  return text;
}

/** Start a task of `tool`; its id (throws when the answer is not a task handle). */
async function startTask(target: Target, tool: string, i: number): Promise<string> {
  const handle = await callTool(target, tool, { i });
  if (handle.result?.resultType !== "task" || typeof handle.result.taskId !== "string")
    throw new Error(`${tool} ${i}: not a task handle: ${JSON.stringify(handle.error ?? handle.result)}`);
  return handle.result.taskId;
}

/** One `quick` task, created and polled (at once, again and again) until completed: ms and polls. */
async function roundTrip(target: Target, i: number): Promise<{ took: number; polls: number }> {
  const t0 = performance.now();
  const id = await startTask(target, "quick", i);
  for (let polls = 1; ; polls++) {
    const r = await taskRpc(target, "get", id);
    if (r.error) throw new Error(`tasks/get ${id}: ${JSON.stringify(r.error)}`);
    if (r.result?.status === "completed") {
      const text = (r.result.result as { content?: Array<{ text?: string }> } | undefined)?.content?.[0]?.text;
      if (text !== `done ${i}`) throw new Error(`task ${id} of quick ${i}: ${JSON.stringify(r.result)}`);
      return { took: performance.now() - t0, polls };
    }
    if (r.result?.status !== "working") throw new Error(`task ${id} of quick ${i}: ${JSON.stringify(r.result)}`);
  }
}

/** `quick_inline`: the same tool answered in the call; ms. */
async function inline(target: Target, i: number): Promise<number> {
  const t0 = performance.now();
  const text = textOf(await callTool(target, "quick_inline", { i }), `quick_inline ${i}`);
  if (text !== `done ${i}`) throw new Error(`quick_inline ${i}: ${text}`);
  return performance.now() - t0;
}

/** The host's heap in use after a full GC (bytes). */
async function heap(target: Target): Promise<number> {
  return Number(textOf(await callTool(target, "heap", {}), "heap"));
}

/** Open `n` `hold` tasks, `PER_PRINCIPAL` a principal; each with its owner. */
async function openTasks(as: (subject: string) => Promise<Target>, n: number): Promise<Open[]> {
  const open: Open[] = [];
  for (let i = 0; i < n; i++) {
    const owner = await as(`open-${Math.floor(i / PER_PRINCIPAL)}`);
    open.push({ id: await startTask(owner, "hold", i), owner });
  }
  return open;
}

/** `n` sequential `tasks/get` of open tasks (spread over them, each by its owner), timed, with the CPU the fleet (and PostgreSQL, nginx) spent on them. */
async function poll(fleet: HostedFleet, open: readonly Open[], n: number, db: TestPostgres | undefined): Promise<PollRun> {
  for (let i = 0; i < 50; i++) await taskRpc(open[i]!.owner, "get", open[i]!.id);
  const latencies: number[] = [];
  const served = new Set<number>();
  const cpu0 = fleet.cpuMs();
  const pg0 = db?.cpuMs();
  const nginx0 = fleet.nginx ? procCpuMs(fleet.nginx.pid) : undefined;
  for (let i = 0; i < n; i++) {
    const { id, owner } = open[(i * 7919) % open.length]!;
    const t0 = performance.now();
    const r = await taskRpc(owner, "get", id);
    latencies.push(performance.now() - t0);
    if (r.result?.status !== "working" || r.result.taskId !== id)
      throw new Error(`tasks/get ${id}: ${JSON.stringify(r.error ?? r.result)}`);
    served.add(fleet.servedBy(r.headers!));
  }
  return {
    latencies,
    serverCpu: (fleet.cpuMs() - cpu0) / n,
    // PostgreSQL's count is of the backends alive at each read: one that ended in between (a pool's idle connection) takes its ticks with it.
    pgCpu: db && pg0 !== undefined ? Math.max(0, db.cpuMs() - pg0) / n : undefined,
    nginxCpu: fleet.nginx && nginx0 !== undefined ? (procCpuMs(fleet.nginx.pid) - nginx0) / n : undefined,
    servedBy: served.size,
  };
}

/** One `agentkit host` on a store (`flags`): round trips against the anchor, heap per open task, polls with the tasks open. */
async function oneProcess(cfg: BenchConfig, store: string, flags: readonly string[], db: TestPostgres | undefined): Promise<StoreRun> {
  const rounds = pick(cfg, 6, 2);
  const batch = pick(cfg, 60, 15);
  const fleet = await startHostedFleet({ module: MODULE, size: 1, nginx: false, flags, nodeArgs: ["--expose-gc"], clients: [CLIENT] });
  try {
    const as = principals(fleet);
    // One principal per PER_PRINCIPAL requests or fewer (a round trip is a few).
    const inlineAs = (i: number): Promise<Target> => as(`inline-${Math.floor(i / PER_PRINCIPAL)}`);
    const tripAs = (i: number): Promise<Target> => as(`trip-${Math.floor(i / (PER_PRINCIPAL / 10))}`);
    let i = 0;
    for (let w = 0; w < 30; w++, i++) {
      await inline(await inlineAs(i), i);
      await roundTrip(await tripAs(i), i);
    }
    const inlineMs: number[] = [];
    const tripMs: number[] = [];
    let tripPolls = 0;
    const trips = async (): Promise<void> => {
      for (let k = 0; k < batch; k++) {
        const t = await roundTrip(await tripAs(i), i);
        i++;
        tripMs.push(t.took);
        tripPolls += t.polls;
      }
    };
    const inlines = async (): Promise<void> => {
      for (let k = 0; k < batch; k++, i++) inlineMs.push(await inline(await inlineAs(i), i));
    };
    // ABBA rounds: the anchor and the task side by side, so the machine's drift falls on both.
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        await inlines();
        await trips();
      } else {
        await trips();
        await inlines();
      }
    }
    cfg.log(`tasks: ${store}: opening ${OPEN} tasks`);
    const heapBefore = await heap(await as("heap"));
    const open = await openTasks(as, OPEN);
    const heapOpen = await heap(await as("heap"));
    const polls = await poll(fleet, open, pick(cfg, 2000, 400), db);
    return { store, inline: inlineMs, roundTrip: tripMs, roundTripPolls: tripPolls / tripMs.length, polls, heapBefore, heapOpen };
  } finally {
    await fleet.close();
  }
}

/** Three `agentkit host` on one PostgreSQL database behind nginx: `tasks/get` through nginx with the tasks open. */
async function onFleet(cfg: BenchConfig, url: string, db: TestPostgres): Promise<PollRun> {
  const fleet = await startHostedFleet({
    module: MODULE,
    flags: ["--store", url],
    env: { AGENTKIT_FLEET_KEY: "a-fleet-key-for-the-tasks-benchmark-0123456789" },
    clients: [CLIENT],
  });
  try {
    cfg.log(`tasks: fleet: opening ${OPEN} tasks through nginx`);
    const open = await openTasks(principals(fleet), OPEN);
    return await poll(fleet, open, pick(cfg, 2000, 400), db);
  } finally {
    await fleet.close();
  }
}

/** A fresh database `name` on `db`, migrated; its connection string. */
async function database(db: TestPostgres, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: db.connectionString });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = db.connectionString.replace(/\/postgres$/, `/${name}`);
  await migrateInboxStore({ connectionString: url, roles: false });
  return url;
}

async function run(cfg: BenchConfig): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), "agentkit-bench-tasks-"));
  const db = await startPostgres();
  try {
    const runs: StoreRun[] = [];
    cfg.log("tasks: memory store");
    runs.push(await oneProcess(cfg, "memory", [], undefined));
    cfg.log("tasks: PGlite store");
    runs.push(await oneProcess(cfg, "PGlite", ["--inbox-store", join(dir, "pglite")], undefined));
    cfg.log("tasks: PostgreSQL store");
    runs.push(await oneProcess(cfg, "PostgreSQL", ["--store", await database(db, "tasks_one")], db));
    cfg.log("tasks: fleet of three behind nginx on PostgreSQL");
    const fleet = await onFleet(cfg, await database(db, "tasks_fleet"), db);

    const p50 = (xs: readonly number[]): number => percentile(xs, 0.5);
    const cpu = (x: number | undefined): string => (x === undefined ? "—" : ms(x));
    const perTask = (r: StoreRun): number => (r.heapOpen - r.heapBefore) / OPEN;
    const pollRow = (where: string, anchor: number | undefined, p: PollRun): string[] => [
      where,
      anchor === undefined ? "—" : ms(anchor),
      ms(p50(p.latencies)),
      ms(percentile(p.latencies, 0.99)),
      cpu(p.serverCpu),
      cpu(p.pgCpu),
      cpu(p.nginxCpu),
      String(p.servedBy),
    ];
    const pgRun = runs.find((r) => r.store === "PostgreSQL")!;
    const goals: Goal[] = [
      ...[
        ["PostgreSQL, one process", pgRun.polls],
        ["PostgreSQL, fleet of three behind nginx", fleet],
      ].map(([where, p]) => {
        const got = p50((p as PollRun).latencies);
        return {
          goal: `tasks/get p50 under 2 ms with ${OPEN.toLocaleString("en-US")} tasks open (${where as string})`,
          measured: `${ms(got)} ms`,
          met: got < 2,
        };
      }),
      ...runs.map((r) => {
        const total = r.heapOpen - r.heapBefore;
        return {
          goal: `${OPEN.toLocaleString("en-US")} open tasks under 10 MiB of heap on one process (${r.store} store)`,
          measured: bytes(total),
          met: total < 10 * MIB,
        };
      }),
    ];
    return {
      id: "tasks",
      title: "MCP tasks: round trip, tasks/get with 1,000 open, heap per open task",
      method:
        `\`agentkit host\` serving bench/servers/tasks-module (hosted, JWT bearer from a local authorization server), one process per store: in-process memory (no --store), ` +
        `PGlite (--inbox-store DIR), PostgreSQL (--store URL, a local server, fsync off). Raw 2026-07-28 requests declaring the tasks extension over keep-alive fetch. ` +
        `Round trip: \`quick\` (task: "required") created, then \`tasks/get\` at once and again until completed, against \`quick_inline\` (task: "never", the same body answered in the call); ` +
        `${pick(cfg, 6, 2)} ABBA rounds of ${pick(cfg, 60, 15)} each. Heap: \`global.gc()\` twice in the host (node --expose-gc) before and after opening ${OPEN} \`hold\` tasks (running until cancelled). ` +
        `\`tasks/get\`: ${pick(cfg, 2000, 400)} sequential polls spread over the ${OPEN} open tasks; server CPU per poll from /proc (the agentkit processes; PostgreSQL's postmaster and backends; nginx). ` +
        `Fleet: three \`agentkit host\` on one PostgreSQL database behind nginx (round-robin, keepalive), ${OPEN} tasks opened through nginx. Run on the shared 2-vCPU VM, under load.`,
      tables: [
        {
          head: ["store", "in the call p50 ms (anchor)", "task create → complete p50 ms", "p99 ms", "vs anchor", "tasks/get per task"],
          rows: runs.map((r) => [
            r.store,
            ms(p50(r.inline)),
            ms(p50(r.roundTrip)),
            ms(percentile(r.roundTrip, 0.99)),
            ratio(p50(r.roundTrip) / p50(r.inline)),
            r.roundTripPolls.toFixed(2),
          ]),
        },
        {
          head: [
            `tasks/get, ${OPEN} open`,
            "in the call p50 ms (anchor)",
            "p50 ms",
            "p99 ms",
            "agentkit CPU ms/poll",
            "PostgreSQL CPU ms/poll",
            "nginx CPU ms/poll",
            "processes serving",
          ],
          rows: [
            ...runs.map((r) => pollRow(`${r.store}, one process`, p50(r.inline), r.polls)),
            pollRow("PostgreSQL, fleet of 3 + nginx", undefined, fleet),
          ],
        },
        {
          head: ["store", "heap before", `heap with ${OPEN} open`, `${OPEN} open tasks`, "per open task"],
          rows: runs.map((r) => [r.store, bytes(r.heapBefore), bytes(r.heapOpen), bytes(r.heapOpen - r.heapBefore), bytes(perTask(r))]),
        },
      ],
      goals,
      notes: [
        "A task round trip is at least two requests (tools/call answers the handle once the record is stored; tasks/get reads the result), so its anchor is one call answered in the call; a client polls at the task's pollIntervalMs (1 s by default), which this bench does not wait.",
        "The memory store keeps its records in the host's heap, so its heap row holds the records too; the PGlite and PostgreSQL rows hold only what a running task keeps in the process.",
      ],
    };
  } finally {
    db.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The tasks benchmark. */
export const tasks: Suite = { id: "tasks", title: "MCP tasks", run };
