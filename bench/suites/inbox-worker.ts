/**
 * @module bench/suites/inbox-worker
 * One asking process of benchmark 8 (`node inbox-worker.js`, the database URL
 * in `INBOX_URL`, its number in `INBOX_WORKER`, the store's `wakeups` in `INBOX_WAKEUPS`): a `postgresInboxStore` with
 * role `worker` on its own pool of two connections kept open, listening, then `READY` on stdout. Each `RUN <n>` line on
 * stdin asks `n` questions one after another (put, wait until the page's
 * answer is heard) and prints `DONE <json>` (each ask-to-answer in ms). Exits
 * when stdin closes. Loads only the store (light: 128 of these run at once).
 */
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import pg from "pg";
import { postgresInboxStore, type InboxEvent, type StoredQuestion } from "arc-agentkit/askers";

const url = process.env["INBOX_URL"];
const me = Number(process.env["INBOX_WORKER"] ?? 0);
if (!url) throw new Error("inbox-worker: INBOX_URL is not set");

// Its own pool, so its two connections (one listening) stay open between runs: with 128 processes
// on a loaded 2-core machine, opening a connection again mid-run can take longer than the default 5 s.
const pool = new pg.Pool({ connectionString: url, max: 2, idleTimeoutMillis: 0, connectionTimeoutMillis: 60_000 });
const wakeups = process.env["INBOX_WAKEUPS"] === "own" ? "own" : "shared";
const store = postgresInboxStore({ pool, ownsPool: true, role: "worker", wakeups });
const waiting = new Map<string, () => void>();
store.subscribe((e: InboxEvent) => {
  if (e.type !== "settled") return;
  const done = waiting.get(e.question.id);
  waiting.delete(e.question.id);
  done?.();
});

function question(): StoredQuestion {
  return {
    id: randomUUID(),
    callId: null,
    tool: "write_file",
    arguments: { path: `/tmp/w${me}` },
    question: "Allow?",
    source: "approval_server",
    from: `worker-${me}`,
    askedAt: new Date().toISOString(),
    deadlineAt: null,
    status: "pending",
  };
}

async function ask(n: number): Promise<number[]> {
  const took: number[] = [];
  for (let i = 0; i < n; i++) {
    const q = question();
    const t = performance.now();
    const answered = new Promise<void>((resolve) => waiting.set(q.id, resolve));
    await store.put(q);
    await answered;
    took.push(performance.now() - t);
  }
  return took;
}

await store.pending();
process.stdout.write("READY\n");
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const n = /^RUN (\d+)$/.exec(line)?.[1];
  if (n === undefined) return;
  ask(Number(n)).then(
    (took) => process.stdout.write(`DONE ${JSON.stringify(took)}\n`),
    (err: unknown) => process.stdout.write(`FAILED ${JSON.stringify(String(err))}\n`),
  );
});
lines.on("close", () => void store.stop().then(() => process.exit(0)));
