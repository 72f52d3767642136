/**
 * @module bench/lib/inbox-fleet
 * A fleet of asking processes for benchmark 8 (`suites/inbox-worker.ts`),
 * each with its own PostgreSQL connections, as separate machines would have.
 * Started a few at a time (bounded), each waited for until it listens;
 * `run(n)` makes every one ask `n` questions at once and returns the wall
 * time and every ask-to-answer; `stop()` closes their stdin and waits for
 * them (SIGKILL after 10 s).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { procCpuMs } from "./proc-cpu.js";

const WORKER = fileURLToPath(new URL("../suites/inbox-worker.js", import.meta.url));
/** How many processes are started at once (each takes ~0.3 s of CPU to load). */
const STARTING_AT_ONCE = 8;

/** One worker process and its next line. */
interface Member {
  readonly child: ChildProcess;
  next(prefix: string, timeoutMs: number): Promise<string>;
}

function member(url: string, i: number, wakeups: string): Member {
  // small heaps: the worker keeps a few questions at a time
  const child = spawn(process.execPath, ["--max-old-space-size=48", "--max-semi-space-size=2", WORKER], {
    env: { ...process.env, INBOX_URL: url, INBOX_WORKER: String(i), INBOX_WAKEUPS: wakeups },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const waiters: Array<(line: string) => void> = [];
  const buffered: string[] = [];
  lines.on("line", (line) => (waiters.length ? waiters.shift()!(line) : buffered.push(line)));
  const next = (prefix: string, timeoutMs: number): Promise<string> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`inbox worker ${i} (pid ${child.pid}) sent no ${prefix} line within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const take = (line: string): void => {
        clearTimeout(timer);
        if (line.startsWith(prefix)) resolve(line.slice(prefix.length).trim());
        else reject(new Error(`inbox worker ${i}: expected ${prefix}, got ${line.slice(0, 300)}`));
      };
      if (buffered.length) take(buffered.shift()!);
      else waiters.push(take);
    });
  return { child, next };
}

/** A running fleet. */
export interface Fleet {
  readonly size: number;
  /** Every process asks `perWorker` questions in a loop, all at once: the wall time (ms) and each ask-to-answer (ms). */
  run(perWorker: number): Promise<{ wallMs: number; took: number[] }>;
  /** User + system CPU (ms) the worker processes have used so far. */
  cpuMs(): number;
  stop(): Promise<void>;
}

async function stopAll(members: readonly Member[]): Promise<void> {
  await Promise.all(
    members.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
          child.once("exit", () => (clearTimeout(kill), resolve()));
          child.stdin!.end();
        }),
    ),
  );
}

/** Start `size` worker processes on the inbox at `url` (a worker login's URL), woken as `wakeups` says (the store's option), and wait until each is ready. */
export async function startFleet(url: string, size: number, wakeups: "shared" | "own"): Promise<Fleet> {
  const members: Member[] = [];
  try {
    for (let i = 0; i < size; i += STARTING_AT_ONCE) {
      const batch = Array.from({ length: Math.min(STARTING_AT_ONCE, size - i) }, (_, j) => member(url, i + j, wakeups));
      members.push(...batch);
      await Promise.all(batch.map((m) => m.next("READY", 60_000)));
    }
  } catch (err) {
    await stopAll(members);
    throw err;
  }
  return {
    size,
    async run(perWorker) {
      const t = performance.now();
      for (const m of members) m.child.stdin!.write(`RUN ${perWorker}\n`);
      const lists = await Promise.all(members.map(async (m) => JSON.parse(await m.next("DONE", 300_000)) as number[]));
      return { wallMs: performance.now() - t, took: lists.flat() };
    },
    cpuMs: () => members.reduce((sum, m) => sum + procCpuMs(m.child.pid!), 0),
    stop: () => stopAll(members),
  };
}
