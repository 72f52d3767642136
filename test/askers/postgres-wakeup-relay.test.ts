/**
 * @module test/askers/postgres-wakeup-relay.test
 * The worker stores of one host share one listening PostgreSQL connection
 * (`wakeups: "shared"`, see src/askers/inbox/wakeup-relay.ts), on a real
 * PostgreSQL server with real worker processes: counted in
 * `pg_stat_activity`; the relay's process killed with SIGKILL while questions
 * wait (another takes over, every answer arrives); a stale socket file; a
 * hostile client on the socket and a hostile relay; the off switch; and the
 * fallback when the directory is not private.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateInboxStore, postgresInboxStore, type InboxEvent, type PostgresInboxStore, type StoredQuestion } from "arc-agentkit/askers";
import { relayPlace, targetOf } from "../../src/askers/inbox/wakeup-relay.js";
import { adminQuery, startPostgres, type TestPostgres } from "../helpers/postgres.js";

let pg: TestPostgres;
let runtime: string;
const before = process.env["XDG_RUNTIME_DIR"];
const children = new Set<ChildProcess>();
const open: PostgresInboxStore[] = [];

beforeAll(async () => {
  pg = await startPostgres();
  await migrateInboxStore({ connectionString: pg.connectionString });
  for (const login of ["relay_page"]) await admin(`CREATE ROLE ${login} LOGIN IN ROLE agentkit_inbox_page`);
  for (const login of ["w_shared", "w_own", "w_kill", "w_stale", "w_hostile", "w_fake", "w_fallback"])
    await admin(`CREATE ROLE ${login} LOGIN IN ROLE agentkit_inbox_worker`);
  // a private runtime directory for this file: the relay sockets live under it, and nothing is left behind
  runtime = mkdtempSync(join(tmpdir(), "akt-relay-"));
  process.env["XDG_RUNTIME_DIR"] = runtime;
});

afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await Promise.all(open.map((s) => s.stop()));
  pg?.stop();
  if (before === undefined) delete process.env["XDG_RUNTIME_DIR"];
  else process.env["XDG_RUNTIME_DIR"] = before;
  rmSync(runtime, { recursive: true, force: true });
});

/** Run one statement as the server's superuser. */
const admin = (sql: string, values?: readonly unknown[]): Promise<Array<Record<string, unknown>>> => adminQuery(pg, sql, values);

const urlAs = (user: string): string => pg.connectionString.replace("postgres://postgres@", `postgres://${user}@`);

/** The relay socket's path for `login`'s workers (the store computes the same). */
function socketOf(login: string, env: NodeJS.ProcessEnv = process.env): string {
  const place = relayPlace(targetOf(urlAs(login)), "agentkit_inbox", env);
  if (!("path" in place)) throw new Error(place.problem);
  return place.path;
}

/** Backends of `login` whose last statement was a LISTEN: the connections that listen for it. */
async function listening(login: string): Promise<number> {
  const rows = await admin(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1 AND query LIKE 'LISTEN %'`, [login]);
  return rows[0]!.n as number;
}

function question(from = "relay-test"): StoredQuestion {
  return {
    id: randomUUID(),
    callId: null,
    tool: "write_file",
    arguments: { path: "/tmp/x" },
    question: "Allow?",
    source: "approval_server",
    from,
    askedAt: new Date().toISOString(),
    deadlineAt: null,
    status: "pending",
  };
}

function page(): PostgresInboxStore {
  const s = postgresInboxStore({ connectionString: urlAs("relay_page"), role: "page", leaseMs: 60_000 });
  open.push(s);
  return s;
}

const approve = (p: PostgresInboxStore, id: string) =>
  p.settle(id, { status: "answered", answer: { kind: "approve", actor: "relay-test" } });

const WORKER = `
  const { postgresInboxStore } = await import("arc-agentkit/askers");
  const { createInterface } = await import("node:readline");
  const s = postgresInboxStore({ connectionString: process.env.PG_URL, role: "worker", leaseMs: 60000, ...(process.env.WAKEUPS ? { wakeups: process.env.WAKEUPS } : {}), ...(process.env.WORKER_NAME ? { worker: process.env.WORKER_NAME } : {}) });
  s.subscribe((e) => {
    if (e.type === "settled") console.log("SETTLED " + e.question.id + " " + e.question.status);
    else if (e.type === "unavailable" || e.type === "available") console.log(e.type.toUpperCase());
  });
  const ask = async () => {
    const id = crypto.randomUUID();
    await s.put({ id, callId: null, tool: "t", arguments: {}, question: "?", source: null, from: "w" + process.pid, askedAt: new Date().toISOString(), deadlineAt: null, status: "pending" });
    console.log("ASKED " + id);
  };
  createInterface({ input: process.stdin }).on("line", (l) => l === "ASK" && ask().catch((e) => console.log("FAILED " + e.message))).on("close", () => s.stop().then(() => process.exit(0)));
  console.log("READY");`;

/** A worker process: its output lines, and a way to wait for one. */
interface Worker {
  readonly child: ChildProcess;
  readonly lines: string[];
  readonly stderr: string[];
  /** Resolves with the first line (past `from`) matching `re`. */
  line(re: RegExp, ms?: number): Promise<string>;
  ask(): Promise<string>;
  stop(): Promise<void>;
}

async function worker(login: string, env: Record<string, string> = {}): Promise<Worker> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", WORKER], {
    env: { ...process.env, PG_URL: urlAs(login), ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.add(child);
  const lines: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout! }).on("line", (l) => lines.push(l));
  createInterface({ input: child.stderr! }).on("line", (l) => stderr.push(l));
  const line = async (re: RegExp, ms = 15_000): Promise<string> => {
    await expect.poll(() => lines.some((l) => re.test(l)), { timeout: ms, interval: 20 }).toBe(true);
    return lines.find((l) => re.test(l))!;
  };
  const w: Worker = {
    child,
    lines,
    stderr,
    line,
    async ask() {
      const n = lines.filter((l) => l.startsWith("ASKED ")).length;
      child.stdin!.write("ASK\n");
      await expect.poll(() => lines.filter((l) => l.startsWith("ASKED ")).length, { timeout: 15_000, interval: 20 }).toBe(n + 1);
      return lines
        .filter((l) => l.startsWith("ASKED "))
        .at(-1)!
        .slice(6);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.stdin!.end();
        await exited;
      }
      children.delete(child);
    },
  };
  await line(/^READY$/);
  return w;
}

/** Connect to a unix socket. */
function dial(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = createConnection(path);
    s.once("connect", () => resolve(s));
    s.once("error", reject);
  });
}

const answers = (path: string): Promise<boolean> =>
  dial(path).then(
    (s) => (s.destroy(), true),
    () => false,
  );

describe("postgresInboxStore workers share one listening connection per host", () => {
  it("4 worker processes waiting at once: one backend listens for all of them (4 with wakeups 'own'); every answer arrives; nothing is left behind", async () => {
    const p = page();
    await p.pending();
    for (const [login, wakeups, expected] of [
      ["w_shared", undefined, 1],
      ["w_own", "own", 4],
    ] as const) {
      const ws = await Promise.all([0, 1, 2, 3].map(() => worker(login, wakeups ? { WAKEUPS: wakeups } : {})));
      const ids = await Promise.all(ws.map((w) => w.ask()));
      expect(await listening(login)).toBe(expected);
      await Promise.all(ids.map((id) => approve(p, id)));
      await Promise.all(ws.map((w, i) => w.line(new RegExp(`^SETTLED ${ids[i]} answered$`))));
      expect(existsSync(socketOf(login))).toBe(login === "w_shared");
      await Promise.all(ws.map((w) => w.stop()));
      expect(existsSync(socketOf(login))).toBe(false);
    }
    expect(existsSync(dirname(socketOf("w_shared")))).toBe(false); // the last relay removed the directory
  });

  it("the relay's process is killed with SIGKILL while 3 questions wait: another takes over, every answer arrives (one given while nobody listened), and one backend listens again", async () => {
    const p = page();
    await p.pending();
    const host = await worker("w_kill");
    await host.ask(); // the first to need a wake-up hosts the relay
    const others = [await worker("w_kill"), await worker("w_kill"), await worker("w_kill")];
    const ids: string[] = [];
    for (const w of others) ids.push(await w.ask());
    expect(await listening("w_kill")).toBe(1);
    host.child.kill("SIGKILL");
    await approve(p, ids[0]!); // while the relay is gone or being replaced
    await Promise.all(others.map((w) => w.line(/^UNAVAILABLE$/)));
    await approve(p, ids[1]!);
    await approve(p, ids[2]!);
    await Promise.all(others.map((w, i) => w.line(new RegExp(`^SETTLED ${ids[i]} answered$`))));
    await Promise.all(others.map((w) => w.line(/^AVAILABLE$/)));
    // the new relay serves new questions too
    const again = await Promise.all(others.map((w) => w.ask()));
    await expect.poll(() => listening("w_kill"), { timeout: 10_000 }).toBe(1);
    await Promise.all(again.map((id) => approve(p, id)));
    await Promise.all(others.map((w, i) => w.line(new RegExp(`^SETTLED ${again[i]} answered$`))));
    // each told its own answers once (a catch-up also tells it the other processes' rows its login may read)
    others.forEach((w, i) =>
      expect([ids[i], again[i]].map((id) => w.lines.filter((l) => l === `SETTLED ${id} answered`).length)).toEqual([1, 1]),
    );
    await Promise.all(others.map((w) => w.stop()));
    expect(existsSync(socketOf("w_kill"))).toBe(false);
  });

  it("a stale socket file (its process killed) is replaced by the first worker that needs a wake-up", async () => {
    const path = socketOf("w_stale");
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const squatter = spawn(
      process.execPath,
      ["-e", `require("node:net").createServer().listen(${JSON.stringify(path)}, () => console.log("UP"))`],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    children.add(squatter);
    await new Promise<void>((resolve) => squatter.stdout!.once("data", () => resolve()));
    squatter.kill("SIGKILL");
    await new Promise((r) => squatter.once("exit", r));
    children.delete(squatter);
    expect(existsSync(path)).toBe(true);
    expect(await answers(path)).toBe(false);
    const p = page();
    await p.pending();
    const w = await worker("w_stale");
    const id = await w.ask();
    expect(await answers(path)).toBe(true);
    await approve(p, id);
    await w.line(new RegExp(`^SETTLED ${id} answered$`));
    await w.stop();
    expect(existsSync(path)).toBe(false);
  });

  it("a hostile client on the socket hears nothing of the page's channel, is cut off for junk past the bounds, and the relay keeps serving; a forged NOTIFY with a long id disturbs no member", async () => {
    const p = page();
    await p.pending();
    const w = await worker("w_hostile", { WORKER_NAME: "hostile-target" });
    const first = await w.ask();
    const channel = String((await admin(`SELECT 'agentkit_w_' || md5('agentkit_inbox/w_hostile/hostile-target') AS c`))[0]!.c);
    await admin("SELECT pg_notify($1, $2)", [channel, JSON.stringify({ k: "q", id: "x".repeat(500), c: 1e9 })]);
    const hostile = await dial(socketOf("w_hostile"));
    const heard: string[] = [];
    hostile.setEncoding("utf8").on("data", (d: string) => heard.push(d));
    hostile.write('not json\n{}\n[1,2]\n{"l":42}\n');
    hostile.write(`${JSON.stringify({ l: "agentkit_inbox_changes" })}\n${JSON.stringify({ l: "pg_catalog" })}\n`);
    hostile.write(`${JSON.stringify({ w: "agentkit_inbox_changes", k: "q", id: first, c: 1e9 })}\n`); // a wake-up sent to the relay: not its frame
    await approve(p, first);
    await w.line(new RegExp(`^SETTLED ${first} answered$`));
    const second = await w.ask();
    await approve(p, second);
    await w.line(new RegExp(`^SETTLED ${second} answered$`));
    expect(heard.join("")).toBe(""); // no ack, no wake-up: the page channel is not a worker's
    const closed = new Promise((r) => hostile.once("close", r));
    hostile.write(`${"x".repeat(5000)}\n`);
    await closed;
    const flood = await dial(socketOf("w_hostile"));
    const floodClosed = new Promise((r) => flood.once("close", r));
    flood.on("error", () => {});
    flood.write("{}\n".repeat(1000));
    await floodClosed;
    const third = await w.ask();
    await approve(p, third);
    await w.line(new RegExp(`^SETTLED ${third} answered$`));
    expect(w.lines.filter((l) => l === "UNAVAILABLE")).toEqual([]); // the member itself was never disturbed
    await w.stop();
  });

  it("a hostile relay acknowledging and forging wake-ups makes no decision: the worker reads its own row, still pending", async () => {
    const path = socketOf("w_fake");
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const forged: Socket[] = [];
    const fake = createServer((s) => {
      forged.push(s);
      s.setEncoding("utf8").on("data", (d: string) => {
        for (const l of d.split("\n").filter(Boolean)) {
          const m = JSON.parse(l) as { l?: string };
          if (m.l) s.write(`${JSON.stringify({ ok: m.l })}\n`);
        }
      });
    });
    await new Promise<void>((r) => fake.listen(path, r));
    try {
      const w = postgresInboxStore({ connectionString: urlAs("w_fake"), role: "worker", leaseMs: 60_000 });
      open.push(w);
      const events: InboxEvent[] = [];
      w.subscribe((e) => events.push(e));
      const q = question();
      await w.put(q);
      expect(forged).toHaveLength(1);
      const channel = String((await admin(`SELECT 'agentkit_w_' || md5('agentkit_inbox/w_fake/' || $1::text) AS c`, [w.worker]))[0]!.c);
      forged[0]!.write(
        `${JSON.stringify({ w: channel, k: "q", id: q.id, c: 1e9 })}\n${JSON.stringify({ w: channel, k: "q", id: q.id })}\n junk \n`,
      );
      await new Promise((r) => setTimeout(r, 500));
      expect(events.filter((e) => e.type === "settled")).toEqual([]);
      expect((await w.get(q.id))?.status).toBe("pending");
      await w.stop();
    } finally {
      for (const s of forged) s.destroy();
      await new Promise((r) => fake.close(r));
      rmSync(path, { force: true });
    }
  });

  it("a relay directory others may enter is refused: the worker LISTENs itself, says so once on stderr, and its answers arrive", async () => {
    const env = { XDG_RUNTIME_DIR: join(runtime, "o") };
    const dir = join(env.XDG_RUNTIME_DIR, "agentkit");
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    const p = page();
    await p.pending();
    const ws = [await worker("w_fallback", env), await worker("w_fallback", env)];
    const ids = await Promise.all(ws.map((w) => w.ask()));
    expect(await listening("w_fallback")).toBe(2);
    await Promise.all(ids.map((id) => approve(p, id)));
    await Promise.all(ws.map((w, i) => w.line(new RegExp(`^SETTLED ${ids[i]} answered$`))));
    for (const w of ws) {
      const told = w.stderr.filter((l) => l.includes("wake-up relay"));
      expect(told).toHaveLength(1);
      expect(told[0]).toMatch(/may be entered by other users \(mode 755; 700 expected\).*wakeups: "own"/);
    }
    await Promise.all(ws.map((w) => w.stop()));
    expect(existsSync(socketOf("w_fallback", env))).toBe(false);
  });

  it("wakeups must be 'shared' or 'own'", () => {
    expect(() => postgresInboxStore({ connectionString: pg.connectionString, role: "worker", wakeups: "relay" as never })).toThrow(
      /'wakeups' must be "shared" \(one listening connection per host\) or "own"/,
    );
  });
});
