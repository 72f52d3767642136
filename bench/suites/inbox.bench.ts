/**
 * @module bench/suites/inbox.bench
 * Benchmark 8, the shared inbox: what a store adds between a worker asking
 * and a person's answer reaching it. Per store — the in-process default,
 * PostgreSQL on loopback (a real server, one connection pool per worker, as
 * separate processes would have), and PGlite in this process:
 * - ask-to-visible: a worker's `put()` until the page's subscriber hears the question;
 * - decide-to-answer: the page's `settle()` until the worker's subscriber hears it;
 * - throughput: 8 and 32 workers asking in a loop, a page answering each question as it appears.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryInboxStore, migrateInboxStore, pgliteInboxStore, postgresInboxStore, type InboxEvent, type InboxStore, type StoredQuestion } from "arc-agentkit/askers";
import { pick, type BenchConfig, type Suite } from "../lib/config.js";
import { startPostgres, type TestPostgres } from "../lib/postgres.js";
import type { Goal, Section } from "../lib/report.js";
import { int, ms, percentile } from "../lib/stats.js";

const TARGET_MS = 20;

/** A page and its workers on one backing store. */
interface Setup {
  readonly name: string;
  /** A store for one more process (the same store when everything is in one process). */
  store(): InboxStore;
  close(): Promise<void>;
}

function question(worker: number): StoredQuestion {
  return { id: randomUUID(), callId: null, tool: "write_file", arguments: { path: `/tmp/w${worker}` }, question: "Allow?", source: "approval_server", from: `worker-${worker}`, askedAt: new Date().toISOString(), deadlineAt: null, status: "pending" };
}

/** Resolves when `store`'s subscriber hears an event for which `match` is true. */
function waiter(store: InboxStore): (match: (e: InboxEvent) => boolean) => Promise<void> {
  const waiting = new Set<{ match: (e: InboxEvent) => boolean; done: () => void }>();
  store.subscribe((e) => {
    for (const w of waiting) {
      if (!w.match(e)) continue;
      waiting.delete(w);
      w.done();
    }
  });
  return (match) => new Promise<void>((done) => waiting.add({ match, done }));
}

/** `n` sequential round trips: ask-to-visible and decide-to-answer, in ms. */
async function latency(setup: Setup, n: number): Promise<{ visible: number[]; answered: number[] }> {
  const [page, worker] = [setup.store(), setup.store()];
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

/** Questions answered per second with `workers` asking in a loop for `perWorker` questions each, and a page approving each as it appears. */
async function throughput(setup: Setup, workers: number, perWorker: number): Promise<number> {
  const page = setup.store();
  page.subscribe((e) => {
    if (e.type === "question") page.settle(e.question.id, { status: "answered", answer: { kind: "approve", actor: "bench" } }).catch(() => {});
  });
  await page.pending();
  const all = Array.from({ length: workers }, () => setup.store());
  const waits = all.map(waiter);
  await Promise.all(all.map((s) => s.pending()));
  const t = performance.now();
  await Promise.all(
    all.map(async (s, w) => {
      for (let i = 0; i < perWorker; i++) {
        const q = question(w);
        const answered = waits[w]!((e) => e.type === "settled" && e.question.id === q.id);
        await s.put(q);
        await answered;
      }
    }),
  );
  return (workers * perWorker) / ((performance.now() - t) / 1000);
}

function memorySetup(): Setup {
  const one = new MemoryInboxStore();
  return { name: "in-process (MemoryInboxStore)", store: () => one, close: async () => {} };
}

function postgresSetup(pg: TestPostgres): Setup {
  const made: Array<{ close(): Promise<void> }> = [];
  return {
    name: "PostgreSQL 127.0.0.1 (postgresInboxStore)",
    store: () => {
      const s = postgresInboxStore({ connectionString: pg.connectionString });
      made.push(s);
      return s;
    },
    close: async () => void (await Promise.all(made.splice(0).map((s) => s.close()))),
  };
}

async function pgliteSetup(dir: string): Promise<Setup> {
  const one = await pgliteInboxStore({ dataDir: join(dir, "pglite") });
  return { name: "PGlite in-process (pgliteInboxStore)", store: () => one, close: () => one.close() };
}

async function run(cfg: BenchConfig): Promise<Section> {
  const n = pick(cfg, 300, 60);
  const perWorker = pick(cfg, 25, 5);
  const dir = mkdtempSync(join(tmpdir(), "akt-bench-inbox-"));
  let pg: TestPostgres | undefined;
  const rows: string[][] = [];
  const goals: Goal[] = [];
  try {
    pg = await startPostgres();
    await migrateInboxStore({ connectionString: pg.connectionString });
    for (const make of [async () => memorySetup(), async () => postgresSetup(pg!), () => pgliteSetup(dir)]) {
      const setup = await make();
      try {
        cfg.log(`inbox: ${setup.name}`);
        await latency(setup, 20);
        const { visible, answered } = await latency(setup, n);
        const both = visible.map((v, i) => v + answered[i]!);
        const t8 = await throughput(setup, 8, perWorker);
        const t32 = await throughput(setup, 32, perWorker);
        rows.push([setup.name, ms(percentile(visible, 0.5)), ms(percentile(visible, 0.99)), ms(percentile(answered, 0.5)), ms(percentile(answered, 0.99)), ms(percentile(both, 0.5)), int(t8), int(t32)]);
        if (setup.name.startsWith("PostgreSQL")) goals.push({ goal: `PostgreSQL: ask-to-visible + decide-to-answer p50 under ${TARGET_MS} ms`, measured: `${ms(percentile(both, 0.5))} ms`, met: percentile(both, 0.5) < TARGET_MS });
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
      `Throughput: 8 and 32 workers each asking ${perWorker} questions in a loop (ask, wait for the answer), a page approving every question as it appears. ` +
      `PostgreSQL is a real server on 127.0.0.1 (fsync off, as a test database); PGlite runs in this process.`,
    tables: [{ head: ["store", "ask→visible p50 ms", "p99", "decide→answer p50 ms", "p99", "both p50 ms", "answered/s, 8 workers", "32 workers"], rows }],
    goals,
    notes: ["A person takes seconds; the store's share is the milliseconds above. The in-process store is the floor: no I/O at all."],
  };
}

/** Benchmark 8. */
export const inbox: Suite = { id: "inbox", title: "Inbox", run };
