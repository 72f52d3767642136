/**
 * @module test/askers/pglite-store.test
 * The embedded inbox store (PGlite: PostgreSQL in WebAssembly, in this
 * process, its database in a directory): the same rows and wake-ups as on a
 * server, and everything still there after the store is closed and opened
 * again — a page process restarted loses nothing; and one process at a time
 * owns the directory.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { pgliteInboxStore, type InboxEvent, type StoredQuestion } from "arc-agentkit/askers";
import { InboxError } from "arc-agentkit";

const dir = mkdtempSync(join(tmpdir(), "akt-pglite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const question = (tool: string): StoredQuestion => ({
  id: randomUUID(),
  callId: null,
  tool,
  arguments: { n: tool.length },
  question: `Allow ${tool}?`,
  source: "approval_server",
  from: "engine",
  askedAt: new Date().toISOString(),
  deadlineAt: null,
  status: "pending",
});

it("questions and decisions live in the directory: heard while open, all back after a close and a reopen", async () => {
  const dataDir = join(dir, "inbox");
  const [a, b] = [question("first"), question("second")];
  {
    await using store = await pgliteInboxStore({ dataDir });
    expect(statSync(dataDir).mode & 0o077).toBe(0);
    const events: InboxEvent[] = [];
    store.subscribe((e) => events.push(e));
    await store.put(a);
    await store.put(b);
    expect((await store.settle(a.id, { status: "answered", answer: { kind: "approve", actor: "ana" } })).ok).toBe(true);
    expect((await store.settle(a.id, { status: "answered", answer: { kind: "reject", actor: "bo" } })).ok).toBe(false);
    await store.recordDecision({
      id: a.id,
      tool: a.tool,
      allowed: true,
      source: "asker",
      asked: true,
      actor: "ana",
      reason: "approved on the page",
      at: new Date().toISOString(),
      from: "engine",
      confirmed: true,
    });
    await expect.poll(() => events.map((e) => e.type)).toEqual(["question", "question", "settled", "decision"]);
  }
  await using again = await pgliteInboxStore({ dataDir });
  expect((await again.pending()).map((q) => q.id)).toEqual([b.id]);
  expect(await again.get(a.id)).toMatchObject({ status: "answered", answer: { actor: "ana" } });
  expect((await again.decisions(10)).map((d) => [d.id, d.actor, d.confirmed])).toEqual([[a.id, "ana", true]]);
}, 60_000);

it("a dataDir that cannot hold a database is an InboxError (code inbox_store), not a crash", async () => {
  const file = join(dir, "a-file");
  writeFileSync(file, "not a directory");
  const err = await pgliteInboxStore({ dataDir: join(file, "inbox") }).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: "inbox_store" });
  expect((err as Error).message).toBe(
    `pgliteInboxStore: cannot keep the inbox database in '${join(file, "inbox")}': '${file}' is a file, not a directory. Give a directory this user can write (it is created when missing)`,
  );
  const same = await pgliteInboxStore({ dataDir: file }).catch((e: unknown) => e);
  expect((same as Error).message).toContain(`'${file}' is a file, not a directory`);
  await expect(pgliteInboxStore({ dataDir: "" })).rejects.toThrow(/dataDir/);
});

it("an unknown option is refused by name with the accepted ones, before any directory is touched", async () => {
  const file = join(dir, "plain-file-for-options");
  writeFileSync(file, "not a directory");
  await expect(pgliteInboxStore({ dataDir: join(file, "inbox"), schem: "x" } as never)).rejects.toThrow(
    expect.objectContaining({
      code: "invalid_option",
      where: "pgliteInboxStore",
      option: "schem",
      message: "pgliteInboxStore: unknown option 'schem'. Accepted options: dataDir, schema",
    }),
  );
});

// 180 s: three PGlite starts, one of them a new database (its initdb is about 10 s of WebAssembly on a loaded 2-core
// machine, 30 s and more beside another suite).
it("a directory another process has open is refused, naming the directory; once that process is gone (even killed) it opens", async () => {
  const dataDir = join(dir, "held");
  const script = `
    const { pgliteInboxStore } = await import("arc-agentkit/askers");
    await pgliteInboxStore({ dataDir: process.env.DATA_DIR });
    console.log("OPEN");
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (b: Buffer) => b.toString().includes("OPEN") && resolve());
      child.once("exit", (code) => reject(new Error(`the holder exited early (${code})`)));
    });
    const err = await pgliteInboxStore({ dataDir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InboxError);
    expect(err).toMatchObject({ code: "inbox_store", failure: "in_use" });
    expect((err as Error).message).toBe(
      `pgliteInboxStore: the inbox database in '${dataDir}' is already open (by process ${child.pid}): one process at a time owns an embedded inbox. Close that store or stop that process, or share a PostgreSQL server between processes (postgresInboxStore, --store)`,
    );
  } finally {
    child.kill("SIGKILL");
    await new Promise((r) => (child.exitCode === null && child.signalCode === null ? child.once("exit", r) : r(null)));
  }
  await using store = await pgliteInboxStore({ dataDir });
  const second = await pgliteInboxStore({ dataDir }).catch((e: unknown) => e);
  expect(second).toMatchObject({
    failure: "in_use",
    message: expect.stringContaining(`'${dataDir}' is already open (by process ${process.pid})`),
  });
  expect(await store.pending()).toEqual([]);
}, 180_000);
