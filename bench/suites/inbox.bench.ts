/**
 * @module bench/suites/inbox.bench
 * Benchmark 8, the shared inbox: what a store adds between a worker asking
 * and a person's answer reaching it. Per store — the in-process default,
 * PostgreSQL on loopback (a real server; the page and the workers log in as
 * members of the inbox's page and worker roles), and PGlite in this process:
 * - ask-to-visible: a worker's `put()` until the page's subscriber hears the question;
 * - decide-to-answer: the page's `settle()` until the worker's subscriber hears it;
 * - throughput: 8, 32 and 128 workers asking in a loop, a page answering each
 *   question as it appears — on PostgreSQL each worker is its own process
 *   (`inbox-worker.ts`), elsewhere an async loop in this process;
 * - ask-to-answer with 128 workers attached: one more worker's round trips
 *   (the page answering at once) while 128 others are connected and listening.
 * PostgreSQL twice: the default (the worker processes of this host share one
 * listening connection) and `wakeups: "own"` (each LISTENs itself) beside it.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pgDriver from "pg";
import {
  MemoryInboxStore,
  migrateInboxStore,
  pgliteInboxStore,
  postgresInboxStore,
  type InboxEvent,
  type InboxStore,
  type InboxWakeups,
  type StoredQuestion,
} from "arc-agentkit/askers";
import { pick, type BenchConfig, type Suite } from "../lib/config.js";
import { startFleet } from "../lib/inbox-fleet.js";
import { startPostgres, type TestPostgres } from "../lib/postgres.js";
import type { Goal, Section } from "../lib/report.js";
import { int, ms, percentile } from "../lib/stats.js";

const TARGET_MS = 20;

/** How many workers the throughput runs use. */
const FLEETS = [8, 32, 128] as const;

/** A page and its workers on one backing store. */
interface Setup {
  readonly name: string;
  /** A store for the page, or for one more worker (the same store when everything is in one process). */
  store(role: "page" | "worker"): InboxStore;
  /**
   * `workers` asking `perWorker` questions each, at once, the page answering:
   * answered/s and every ask-to-answer (ms); then, with the workers still
   * attached (listening, idle), `probe` sequential ask-to-answers (ms) of one more worker.
   */
  fleet(workers: number, perWorker: number, probe: number): Promise<Fleet>;
  close(): Promise<void>;
}

/** What one fleet measured. */
interface Fleet {
  readonly perSecond: number;
  /** CPU (user + system, ms) per answered question of each process taking part: the database server (NaN when there is none), the worker processes (NaN when the workers run in this process), and this one (the page). */
  readonly cpu: { readonly db: number; readonly workers: number; readonly page: number };
  readonly took: number[];
  readonly probe: number[];
}

function question(worker: number): StoredQuestion {
  return {
    id: randomUUID(),
    callId: null,
    tool: "write_file",
    arguments: { path: `/tmp/w${worker}` },
    question: "Allow?",
    source: "approval_server",
    from: `worker-${worker}`,
    askedAt: new Date().toISOString(),
    deadlineAt: null,
    status: "pending",
  };
}

/** Resolves when `store`'s subscriber hears an event for which `match` is true. */
function waiter(store: InboxStore, subscriptions: Array<() => void> = []): (match: (e: InboxEvent) => boolean) => Promise<void> {
  const waiting = new Set<{ match: (e: InboxEvent) => boolean; done: () => void }>();
  subscriptions.push(
    store.subscribe((e) => {
      for (const w of waiting) {
        if (!w.match(e)) continue;
        waiting.delete(w);
        w.done();
      }
    }),
  );
  return (match) => new Promise<void>((done) => waiting.add({ match, done }));
}

/** `n` sequential round trips: ask-to-visible and decide-to-answer, in ms. */
async function latency(setup: Setup, n: number): Promise<{ visible: number[]; answered: number[] }> {
  const [page, worker] = [setup.store("page"), setup.store("worker")];
  const [onPage, onWorker] = [waiter(page), waiter(worker)];
  await Promise.all([page.pending(), worker.pending()]);
  const visible: number[] = [];
  const answered: number[] = [];
  for (let i = 0; i < n; i++) {
    const q = question(0);
    let t = performance.now();
    const seen = onPage((e) => e.type === "question" && e.question.id === q.id);
    await worker.put(q);
    await seen;
    visible.push(performance.now() - t);
    t = performance.now();
    const heard = onWorker((e) => e.type === "settled" && e.question.id === q.id);
    await page.settle(q.id, { status: "answered", answer: { kind: "approve", actor: "bench" } });
    await heard;
    answered.push(performance.now() - t);
  }
  return { visible, answered };
}

/** A page store that approves every question as it appears (its subscription added to `subscriptions`). */
async function answeringPage(setup: Pick<Setup, "store">, subscriptions: Array<() => void>): Promise<void> {
  const page = setup.store("page");
  subscriptions.push(
    page.subscribe((e) => {
      if (e.type === "question")
        page.settle(e.question.id, { status: "answered", answer: { kind: "approve", actor: "bench" } }).catch(() => {});
    }),
  );
  await page.pending();
}

/** One worker's ask-to-answer, `n` times in a row (the page answering). */
async function askInLoop(store: InboxStore, wait: ReturnType<typeof waiter>, w: number, n: number): Promise<number[]> {
  const took: number[] = [];
  for (let i = 0; i < n; i++) {
    const q = question(w);
    const t = performance.now();
    const answered = wait((e) => e.type === "settled" && e.question.id === q.id);
    await store.put(q);
    await answered;
    took.push(performance.now() - t);
  }
  return took;
}

/** One more worker's `n` round trips (after 10 to warm up). */
async function probe(store: InboxStore, subscriptions: Array<() => void>, n: number): Promise<number[]> {
  if (n === 0) return [];
  const wait = waiter(store, subscriptions);
  await store.pending();
  await askInLoop(store, wait, -1, 10);
  return askInLoop(store, wait, -1, n);
}

/** This process's user + system CPU so far, ms. */
function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** In-process workers: async loops on stores of this process (every subscription ended afterwards, so runs do not add up). */
function inProcessFleet(setup: Pick<Setup, "store">): Setup["fleet"] {
  return async (workers, perWorker, probeN) => {
    const subscriptions: Array<() => void> = [];
    try {
      await answeringPage(setup, subscriptions);
      const all = Array.from({ length: workers }, () => setup.store("worker"));
      const waits = all.map((s) => waiter(s, subscriptions));
      await Promise.all(all.map((s) => s.pending()));
      const [t, cpu] = [performance.now(), ownCpuMs()];
      const took = (await Promise.all(all.map((s, w) => askInLoop(s, waits[w]!, w, perWorker)))).flat();
      const perSecond = (workers * perWorker) / ((performance.now() - t) / 1000);
      const cpuPerAnswer = { db: NaN, workers: NaN, page: (ownCpuMs() - cpu) / (workers * perWorker) };
      return { perSecond, cpu: cpuPerAnswer, took, probe: await probe(setup.store("worker"), subscriptions, probeN) };
    } finally {
      for (const off of subscriptions) off();
    }
  };
}

function memorySetup(): Setup {
  const one = new MemoryInboxStore();
  const setup = { name: "in-process (MemoryInboxStore)", store: () => one, close: async () => {} };
  return { ...setup, fleet: inProcessFleet(setup) };
}

/** Logins for the bench: one in the inbox's page role, one in its worker role (as `agentkit inbox migrate` documents). */
async function makeLogins(pg: TestPostgres): Promise<{ page: string; worker: string }> {
  const pool = new pgDriver.Pool({ connectionString: pg.connectionString, max: 1 });
  try {
    await pool.query("CREATE ROLE bench_page LOGIN IN ROLE agentkit_inbox_page");
    await pool.query("CREATE ROLE bench_worker LOGIN IN ROLE agentkit_inbox_worker");
  } finally {
    await pool.end();
  }
  const as = (user: string): string => pg.connectionString.replace("postgres://postgres@", `postgres://${user}@`);
  return { page: as("bench_page"), worker: as("bench_worker") };
}

/**
 * PostgreSQL: with `wakeups: "shared"` (the default: the worker processes of this host share one
 * listening connection) or `"own"` (each worker process LISTENs itself, as before the relay).
 */
async function postgresSetup(pg: TestPostgres, urls: { page: string; worker: string }, wakeups: InboxWakeups): Promise<Setup> {
  const made: Array<{ stop(): Promise<void> }> = [];
  const store = (role: "page" | "worker"): InboxStore => {
    const s = postgresInboxStore({
      connectionString: role === "page" ? urls.page : urls.worker,
      role,
      ...(role === "worker" ? { wakeups } : {}),
    });
    made.push(s);
    return s;
  };
  const closeAll = async (): Promise<void> => void (await Promise.all(made.splice(0).map((s) => s.stop())));
  return {
    name: wakeups === "shared" ? "PostgreSQL 127.0.0.1 (postgresInboxStore)" : `PostgreSQL, each worker its own LISTEN (wakeups: "own")`,
    store,
    async fleet(workers, perWorker, probeN) {
      await closeAll(); // the stores of the runs before: none listens while this one is timed
      await answeringPage({ store }, []);
      const fleet = await startFleet(urls.worker, workers, wakeups);
      try {
        await fleet.run(2); // warm: every worker's first statements planned
        const before = { db: pg.cpuMs(), fleet: fleet.cpuMs(), own: ownCpuMs() };
        const { wallMs, took } = await fleet.run(perWorker);
        const n = workers * perWorker;
        const cpu = { db: (pg.cpuMs() - before.db) / n, workers: (fleet.cpuMs() - before.fleet) / n, page: (ownCpuMs() - before.own) / n };
        return { perSecond: n / (wallMs / 1000), cpu, took, probe: await probe(store("worker"), [], probeN) };
      } finally {
        await fleet.stop();
        await closeAll();
      }
    },
    close: closeAll,
  };
}

async function pgliteSetup(dir: string): Promise<Setup> {
  const one = await pgliteInboxStore({ dataDir: join(dir, "pglite") });
  const setup = { name: "PGlite in-process (pgliteInboxStore)", store: () => one, close: () => one.stop() };
  return { ...setup, fleet: inProcessFleet(setup) };
}

/** One store's row of the table, and its goals. */
async function measure(setup: Setup, n: number, perWorker: number, cfg: BenchConfig): Promise<{ row: string[]; goals: Goal[] }> {
  cfg.log(`inbox: ${setup.name}: latency`);
  await latency(setup, 20);
  const { visible, answered } = await latency(setup, n);
  const both = visible.map((v, i) => v + answered[i]!);
  const rates: number[] = [];
  let last: Fleet = { perSecond: NaN, cpu: { db: NaN, workers: NaN, page: NaN }, took: [], probe: [] };
  const cpuTotals: number[] = [];
  for (const workers of FLEETS) {
    cfg.log(`inbox: ${setup.name}: ${workers} workers`);
    last = await setup.fleet(workers, perWorker, workers === FLEETS.at(-1) ? Math.min(n, 200) : 0);
    rates.push(last.perSecond);
    cfg.log(
      `inbox: ${setup.name}: ${workers} workers: ${int(last.perSecond)} answered/s, CPU ms per answer database / workers / page ${[last.cpu.db, last.cpu.workers, last.cpu.page].map((x) => (Number.isNaN(x) ? "—" : ms(x))).join(" / ")}`,
    );
    cpuTotals.push([last.cpu.db, last.cpu.workers, last.cpu.page].filter((x) => !Number.isNaN(x)).reduce((a, b) => a + b, 0));
  }
  const [probeMs, loaded] = [last.probe, last.took];
  const row = [
    setup.name,
    ms(percentile(visible, 0.5)),
    ms(percentile(visible, 0.99)),
    ms(percentile(answered, 0.5)),
    ms(percentile(answered, 0.99)),
    ms(percentile(both, 0.5)),
    ...rates.map(int),
    ms(percentile(probeMs, 0.5)),
    ms(percentile(probeMs, 0.99)),
    ms(percentile(loaded, 0.5)),
    ...cpuTotals.map(ms),
    [last.cpu.db, last.cpu.workers, last.cpu.page].map((x) => (Number.isNaN(x) ? "—" : ms(x))).join(" / "),
  ];
  if (!setup.name.startsWith("PostgreSQL 127")) return { row, goals: [] };
  const [t8, t32, t128] = rates as [number, number, number];
  return {
    row,
    goals: [
      {
        goal: `PostgreSQL: ask-to-visible + decide-to-answer p50 under ${TARGET_MS} ms`,
        measured: `${ms(percentile(both, 0.5))} ms`,
        met: percentile(both, 0.5) < TARGET_MS,
      },
      {
        goal: "PostgreSQL: answered/s with 32 and 128 worker processes at least the 8-worker figure",
        measured: `${int(t8)} → ${int(t32)} → ${int(t128)} /s`,
        met: t32 >= t8 && t128 >= t8,
      },
      {
        goal: `PostgreSQL: ask-to-answer p50 under ${TARGET_MS} ms with 128 worker processes attached`,
        measured: `${ms(percentile(probeMs, 0.5))} ms`,
        met: percentile(probeMs, 0.5) < TARGET_MS,
      },
    ],
  };
}

async function run(cfg: BenchConfig): Promise<Section> {
  const n = pick(cfg, 300, 60);
  const perWorker = pick(cfg, 25, 5);
  const dir = mkdtempSync(join(tmpdir(), "akt-bench-inbox-"));
  let pg: TestPostgres | undefined;
  const rows: string[][] = [];
  const goals: Goal[] = [];
  try {
    // 128 worker processes hold two connections each (one listening), the page a few
    pg = await startPostgres({ maxConnections: 450 });
    await migrateInboxStore({ connectionString: pg.connectionString });
    const urls = await makeLogins(pg);
    for (const make of [
      async () => memorySetup(),
      () => postgresSetup(pg!, urls, "shared"),
      () => postgresSetup(pg!, urls, "own"),
      () => pgliteSetup(dir),
    ]) {
      const setup = await make();
      try {
        const m = await measure(setup, n, perWorker, cfg);
        rows.push(m.row);
        goals.push(...m.goals);
      } finally {
        await setup.close();
      }
    }
  } finally {
    pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    id: "inbox",
    title: "8. Shared inbox: what the store adds between an ask and its answer",
    method:
      `Per store: ${n} sequential round trips of one worker and one page (each its own store, so its own connections on PostgreSQL): ` +
      `ask-to-visible is \`put()\` until the page's subscriber hears the question; decide-to-answer is the page's \`settle()\` until the worker's subscriber hears it. ` +
      `Throughput: ${FLEETS.join(", ")} workers each asking ${perWorker} questions in a loop (ask, wait for the answer; after 2 to warm up), a page approving every question as it appears; ` +
      `on PostgreSQL every worker is its own Node process with its own connections (\`role: "worker"\`, a login in the inbox's worker role; the page a login in its page role), elsewhere an async loop in this process. ` +
      `"with 128 attached": ${Math.min(n, 200)} sequential ask-to-answer round trips of one more worker while 128 others are connected and listening; "during the 128 run": every ask-to-answer of the 128-worker throughput run (queueing included: 128 in flight). ` +
      `PostgreSQL is a real server on 127.0.0.1 (fsync off, as a test database); PGlite runs in this process. ` +
      `"CPU ms per answer": user + system CPU of every process taking part in a throughput run (this one, the page; on PostgreSQL also the worker processes and the server's processes, read from /proc) divided by the questions answered — what a loaded machine does not inflate the way it inflates wall time; the last column splits the 128-worker figure.`,
    tables: [
      {
        head: [
          "store",
          "ask→visible p50 ms",
          "p99",
          "decide→answer p50 ms",
          "p99",
          "both p50 ms",
          ...FLEETS.map((w, i) => (i === 0 ? `answered/s, ${w} workers` : `${w} workers`)),
          "ask→answer p50 ms, 128 attached",
          "p99",
          "p50 during the 128 run",
          ...FLEETS.map((w, i) => (i === 0 ? `CPU ms per answer, ${w} workers` : `${w} workers`)),
          "128: database / workers / page",
        ],
        rows,
      },
    ],
    goals,
    notes: [
      "A person takes seconds; the store's share is the milliseconds above. The in-process store is the floor: no I/O at all.",
      "A PostgreSQL notification is a wake-up (a row's id and change number); each store reads the row with its own login. The page hears every change; a worker only its own questions' (a channel per process), and only while one is pending. PostgreSQL before 19 wakes every listening backend on each notifying commit, whatever the channel: with a listening connection per worker process (the \"own\" row), 128 workers waiting at once means each question wakes ~128 backends twice. By default the worker processes of one host share one listening connection (a relay on a unix-domain socket), so each notifying commit wakes two backends (the page's and the host's relay) however many workers wait.",
    ],
  };
}

/** Benchmark 8. */
export const inbox: Suite = { id: "inbox", title: "Inbox", run };
