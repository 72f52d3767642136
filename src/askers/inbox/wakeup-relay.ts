/**
 * @module askers/inbox/wakeup-relay
 * One listening PostgreSQL connection per host for the asking processes of a
 * shared inbox (`postgresInboxStore({ role: "worker" })`, `wakeups:
 * "shared"`). PostgreSQL before 19 signals every backend that LISTENs in a
 * database on each notifying commit, whatever the channel: with one listening
 * connection per busy worker, each question wakes hundreds of backends. So the
 * worker stores of one OS user on one host share one:
 * - the first store to need a wake-up becomes the relay: it binds a
 *   unix-domain socket in a directory only its user may enter (0700,
 *   `$XDG_RUNTIME_DIR/agentkit` or `<tmpdir>/agentkit-<uid>`, checked for
 *   owner and mode), named by a hash of (login, host, port, database — never
 *   the password — and schema), and LISTENs on one connection for the
 *   channels its members ask for;
 * - it forwards each wake-up (kind, id and change number, re-encoded: nothing
 *   else) to the members that asked for that channel; a member reads its rows
 *   itself with its own rights, exactly as with its own LISTEN, so a wake-up
 *   is never trusted;
 * - when the relay's process exits, its connection drops, or its socket file
 *   is replaced or removed, every member's socket closes: each catches up by
 *   change number as after a dropped listening connection, and one of them
 *   becomes the relay (bind under a unique name, then rename over the path; a
 *   relay whose file was replaced steps down, so one remains);
 * - a stale socket file (its process killed) refuses connections: it is
 *   replaced by the rename;
 * - every frame is a line of at most 1024 bytes, at most 200 a second, 64
 *   channels per member, only a worker channel's or a records channel's
 *   shape (`agentkit_w_<md5>`, `agentkit_r_<md5>`); a member breaking a bound is disconnected, junk
 *   lines are ignored, and the relay keeps serving the others.
 */
import { createHash, randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, renameSync, rmdirSync, statSync, unlinkSync } from "node:fs";
import { createConnection, type Server, type Socket } from "node:net";
import { listenUnixSocket } from "../../listener/servers.js";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { getLogger } from "../../util/logger.js";
import type { PgClient } from "./pg-peer.js";
import { wakeupOf, type Wakeup } from "./postgres-rows.js";

/** The only channels a relay listens on: a worker's (see `workerChannelSql`) and a schema's records channel (see `recordsChannelOf`). */
const WORKER_CHANNEL = /^agentkit_[wr]_[0-9a-f]{32}$/;
/** Longest frame (one JSON line), either way: a wake-up's id is at most 500 characters (see `wakeupOf`). */
const MAX_FRAME = 1024;
/** Most frames a member may send in one second. */
const MAX_RATE = 200;
/** Most channels one member may ask for. */
const MAX_CHANNELS = 64;
/** Most members at once. */
const MAX_MEMBERS = 4096;
/** A member that has not read this much of its wake-ups is disconnected (it catches up by change number). */
const MAX_BACKLOG = 1 << 20;
/** How often a relay checks that its socket file is still its own. */
const WATCH_MS = 500;
/** How long a member waits for its LISTEN to be confirmed (the relay's connection is bounded by its pool's connect timeout). */
const ACK_MS = 30_000;
/** Longest socket path (sun_path holds 108 bytes on Linux, 104 elsewhere). */
const MAX_PATH = 100;

/** Where a relay's socket lives, or why there is none (the store then LISTENs itself). */
export type RelayPlace = { readonly path: string } | { readonly problem: string };

/** The private directory for relay sockets (not made here: the first relay makes it 0700, the last one removes it). */
export function relayDirectory(env: NodeJS.ProcessEnv = process.env): { readonly dir: string } | { readonly problem: string } {
  const uid = process.getuid?.();
  if (uid === undefined || process.platform === "win32") return { problem: "unix-domain sockets with owner checks need a POSIX system" };
  return { dir: env["XDG_RUNTIME_DIR"] ? join(env["XDG_RUNTIME_DIR"], "agentkit") : join(tmpdir(), `agentkit-${uid}`) };
}

/**
 * Why `dir` is not private to this user (a real directory it owns, mode 0700
 * or stricter), or undefined when it is — or when it is absent and `create`
 * is false (nobody hosts a relay yet). With `create`, made 0700 when absent.
 */
function privateDirProblem(dir: string, create: boolean): string | undefined {
  const uid = process.getuid!();
  if (create) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST")
        return `'${dir}' cannot be made (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
    }
  }
  let st;
  try {
    st = lstatSync(dir);
  } catch (err) {
    if (!create && (err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return `'${dir}' cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
  if (!st.isDirectory()) return `'${dir}' is not a directory (a link or a file)`;
  if (st.uid !== uid) return `'${dir}' belongs to uid ${st.uid}, not this user (${uid})`;
  if ((st.mode & 0o077) !== 0) return `'${dir}' may be entered by other users (mode ${(st.mode & 0o777).toString(8)}; 700 expected)`;
  return undefined;
}

/** `connectionString` without its password (and without secret parameters), as a key: login, host, port, database, options. */
export function targetOf(connectionString: string): string {
  const u = new URL(connectionString);
  u.password = "";
  for (const secret of ["password", "sslpassword", "sslkey", "sslcert"]) u.searchParams.delete(secret);
  return `${decodeURIComponent(u.username)}@${u.hostname}:${u.port || "5432"}${u.pathname}?${u.searchParams.toString()}`;
}

/**
 * The relay's protocol, in its socket's name: a relay of an older package
 * (one that relays only worker channels, not records channels) on the same
 * host keeps its own socket, so a newer member never waits on it for a
 * LISTEN it would silently ignore.
 */
const RELAY_PROTOCOL = 2;

/** The relay socket's path for a target and schema (hashed: the path says nothing of either). */
export function relayPlace(target: string, schema: string, env: NodeJS.ProcessEnv = process.env): RelayPlace {
  const where = relayDirectory(env);
  if ("problem" in where) return where;
  const path = join(
    where.dir,
    `inbox-v${RELAY_PROTOCOL}-${createHash("sha256").update(`${target}\0${schema}`).digest("hex").slice(0, 24)}.sock`,
  );
  return Buffer.byteLength(path) > MAX_PATH ? { problem: `the socket path '${path}' is longer than ${MAX_PATH} bytes` } : { path };
}

/**
 * Bounded newline-delimited JSON frames from a socket: `onFrame` per parsed line; junk lines are skipped; a line past
 * the bound ends the socket.
 */
function frames(socket: Socket, onFrame: (frame: unknown) => void): void {
  let buf = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    buf += chunk;
    for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.length > MAX_FRAME) return void socket.destroy();
      let frame: unknown;
      try {
        frame = JSON.parse(line);
      } catch {
        continue; // junk: ignored
      }
      onFrame(frame);
      if (socket.destroyed) return;
    }
    if (buf.length > MAX_FRAME) socket.destroy();
  });
}

const send = (socket: Socket, frame: object): void => {
  if (socket.destroyed) return;
  if (socket.writableLength > MAX_BACKLOG) return void socket.destroy();
  socket.write(`${JSON.stringify(frame)}\n`);
};

/** What a member hears and how it learns the relay is gone. */
export interface RelayHandlers {
  onWake(channel: string, wake: Wakeup): void;
  onLost(err: Error): void;
}

/** A store's membership of its host's relay: LISTEN and UNLISTEN through it. */
export class RelayMember {
  readonly #socket: Socket;
  readonly #acks = new Map<string, Array<{ done: () => void; fail: (err: Error) => void }>>();
  #lost = false;

  constructor(socket: Socket, handlers: RelayHandlers) {
    this.#socket = socket;
    const lost = (err: Error): void => {
      if (this.#lost) return;
      this.#lost = true;
      for (const waiting of this.#acks.values()) for (const w of waiting) w.fail(err);
      this.#acks.clear();
      handlers.onLost(err);
    };
    socket.on("error", (err) => lost(err));
    socket.on("close", () => lost(new Error("the host's wake-up relay went away")));
    frames(socket, (f) => {
      const m = f as { w?: unknown; ok?: unknown; k?: unknown; id?: unknown; c?: unknown };
      if (typeof m.ok === "string") {
        const w = this.#acks.get(m.ok)?.shift();
        w?.done();
        return;
      }
      if (typeof m.w !== "string") return;
      const wake = wakeupOf(JSON.stringify({ k: m.k, id: m.id, c: m.c }));
      if (wake) handlers.onWake(m.w, wake);
    });
  }

  /** Ask for `channel`'s wake-ups; resolves once the relay LISTENs on it. Rejects when the relay goes away or does not confirm in 30 s. */
  listen(channel: string): Promise<void> {
    if (this.#lost) return Promise.reject(new Error("the host's wake-up relay went away"));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const err = new Error("the host's wake-up relay did not confirm LISTEN within 30 s");
        reject(err);
        this.#socket.destroy(err);
      }, ACK_MS);
      const list = this.#acks.get(channel) ?? [];
      list.push({ done: () => (clearTimeout(timer), resolve()), fail: (err) => (clearTimeout(timer), reject(err)) });
      this.#acks.set(channel, list);
      send(this.#socket, { l: channel });
    });
  }

  /** Stop `channel`'s wake-ups (no confirmation needed: a late wake-up is only a read). */
  async unlisten(channel: string): Promise<void> {
    send(this.#socket, { u: channel });
  }

  /** Leave the relay (quietly: `onLost` is not called). */
  close(): void {
    this.#lost = true;
    this.#socket.removeAllListeners("close");
    this.#socket.on("error", () => {});
    this.#socket.destroy();
  }
}

/** A relay this process hosts: its server, its one listening connection, its members. */
export class WakeupRelay {
  readonly path: string;
  readonly #server: Server;
  readonly #ino: number;
  readonly #channels = new Map<string, Set<Socket>>();
  readonly #members = new Set<Socket>();
  readonly #client: Promise<PgClient>;
  readonly #watch: NodeJS.Timeout;
  #chain: Promise<unknown> = Promise.resolve();
  #closed = false;
  readonly #onClosed: () => void;
  /** A process that exits without closing its store leaves no socket file behind (a SIGKILL does: the next relay replaces it). */
  readonly #onExit = (): void => this.#removeFile();

  private constructor(path: string, server: Server, ino: number, borrow: () => Promise<PgClient>, onClosed: () => void) {
    this.path = path;
    this.#server = server;
    this.#ino = ino;
    this.#onClosed = onClosed;
    server.on("connection", (s) => this.#member(s));
    server.on("error", (err) => this.close(err));
    this.#client = borrow().then((client) => {
      if (this.#closed) {
        client.release();
        throw new Error("the relay stopped before its connection was ready");
      }
      client.on("error", (err) => this.close(err));
      client.on("end", () => this.close(new Error("the relay's listening connection ended")));
      client.on("notification", (msg) => this.#notified(msg.channel, msg.payload));
      return client;
    });
    this.#client.catch((err: unknown) => this.close(err as Error));
    this.#watch = setInterval(() => {
      let ino = -1;
      try {
        ino = statSync(path).ino;
      } catch {
        // removed: step down
      }
      if (ino !== this.#ino) this.close(new Error("the relay's socket file was replaced or removed"));
    }, WATCH_MS);
    this.#watch.unref();
    process.once("exit", this.#onExit);
  }

  /**
   * Become the relay at `path`: bind under a unique name, then rename over
   * `path` (replacing a stale file) unless a live relay answers there first.
   * `borrow` gives the listening connection (asked for once bound). Resolves
   * `undefined` when another relay answers.
   */
  static async host(path: string, borrow: () => Promise<PgClient>, onClosed: () => void): Promise<WakeupRelay | undefined> {
    const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
    let server: Server;
    for (let attempt = 0; ; attempt++) {
      // the last relay to stop removes the (then empty) directory: made again here, and checked again
      checkPrivate(dirname(path), true);
      try {
        server = await listenUnixSocket(temp, MAX_MEMBERS);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT" || attempt >= 2) throw err;
      }
    }
    const drop = (): void => {
      server.close();
      try {
        unlinkSync(temp);
      } catch {
        // already renamed or gone
      }
    };
    try {
      if (await answers(path)) return (drop(), undefined);
      const ino = statSync(temp).ino;
      renameSync(temp, path);
      return new WakeupRelay(path, server, ino, borrow, onClosed);
    } catch (err) {
      drop();
      throw err;
    }
  }

  /** How many members are connected. */
  get members(): number {
    return this.#members.size;
  }

  /**
   * Stop: every member's socket closes (they reconnect and catch up), the socket file is removed if still ours, the
   * connection released. Idempotent.
   */
  close(err?: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    if (err) getLogger().debug(`inbox store: the host's wake-up relay stops: ${err.message}`);
    clearInterval(this.#watch);
    this.#server.close();
    for (const s of this.#members) s.destroy();
    this.#members.clear();
    this.#channels.clear();
    process.off("exit", this.#onExit);
    this.#removeFile();
    this.#client.then(
      (c) => {
        c.removeAllListeners();
        c.on("error", () => {});
        c.release(err !== undefined);
      },
      () => undefined,
    );
    this.#onClosed();
  }

  /** Remove the socket file if it is still this relay's, and the directory when that leaves it empty. */
  #removeFile(): void {
    try {
      if (statSync(this.path).ino === this.#ino) unlinkSync(this.path);
      rmdirSync(dirname(this.path)); // only when empty: no other relay's socket in it
    } catch {
      // gone already, or another relay's socket is there
    }
  }

  #member(s: Socket): void {
    if (this.#closed) return void s.destroy();
    this.#members.add(s);
    const mine = new Set<string>();
    let windowStart = Date.now();
    let inWindow = 0;
    s.on("error", () => s.destroy());
    s.on("close", () => {
      this.#members.delete(s);
      for (const ch of mine) this.#leave(ch, s);
    });
    frames(s, (f) => {
      const now = Date.now();
      if (now - windowStart >= 1000) [windowStart, inWindow] = [now, 0];
      if (++inWindow > MAX_RATE) return void s.destroy();
      const m = f as { l?: unknown; u?: unknown };
      if (typeof m.l === "string" && WORKER_CHANNEL.test(m.l)) {
        if (!mine.has(m.l) && mine.size >= MAX_CHANNELS) return void s.destroy();
        mine.add(m.l);
        this.#join(m.l, s);
      } else if (typeof m.u === "string" && mine.delete(m.u)) {
        this.#leave(m.u, s);
      }
    });
  }

  /** Run `step` on the listening connection after the ones before it. */
  #onClient(step: (c: PgClient) => Promise<unknown>): Promise<unknown> {
    const next = this.#chain.then(async () => step(await this.#client));
    this.#chain = next.catch((err: unknown) => this.close(err as Error));
    return next;
  }

  #join(channel: string, s: Socket): void {
    let set = this.#channels.get(channel);
    const first = !set;
    if (!set) this.#channels.set(channel, (set = new Set()));
    set.add(s);
    void this.#onClient(async (c) => {
      if (first) await c.query(`LISTEN "${channel}"`);
      send(s, { ok: channel });
    }).catch(() => undefined);
  }

  #leave(channel: string, s: Socket): void {
    const set = this.#channels.get(channel);
    if (!set?.delete(s) || set.size > 0) return;
    this.#channels.delete(channel);
    void this.#onClient(async (c) => {
      if (!this.#channels.has(channel)) await c.query(`UNLISTEN "${channel}"`);
    }).catch(() => undefined);
  }

  #notified(channel: string, payload: string | undefined): void {
    const set = this.#channels.get(channel);
    const wake = set && wakeupOf(payload);
    if (!wake) return;
    for (const s of set) send(s, { w: channel, k: wake.kind, id: wake.id, c: wake.changed });
  }
}

/** @throws an Error with code `EACCES` when `dir` is not private to this user (see `privateDirProblem`). */
function checkPrivate(dir: string, create: boolean): void {
  const problem = privateDirProblem(dir, create);
  if (problem) throw Object.assign(new Error(problem), { code: "EACCES" });
}

/** Whether a relay answers at `path` now. */
async function answers(path: string): Promise<boolean> {
  try {
    (await connect(path)).destroy();
    return true;
  } catch {
    return false;
  }
}

function connect(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = createConnection(path);
    s.once("connect", () => (s.off("error", reject), resolve(s)));
    s.once("error", reject);
  });
}

/**
 * Join the host's relay at `path`, becoming it when none answers (a missing
 * or stale socket file). Returns the membership, and the relay when this
 * process now hosts it. Rejects with a socket error other than "nobody
 * there" (the caller then LISTENs itself), or when becoming the relay fails.
 */
export async function joinRelay(
  path: string,
  handlers: RelayHandlers,
  borrow: () => Promise<PgClient>,
  onHostClosed: () => void,
): Promise<{ member: RelayMember; hosted?: WakeupRelay }> {
  let hosted: WakeupRelay | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      checkPrivate(dirname(path), false);
      return { member: new RelayMember(await connect(path), handlers), ...(hosted ? { hosted } : {}) };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== "ENOENT" && code !== "ECONNREFUSED") || attempt >= 4) {
        hosted?.close();
        throw err;
      }
    }
    hosted ??= await WakeupRelay.host(path, borrow, onHostClosed);
  }
}
