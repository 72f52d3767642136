/**
 * @module mcp/client/stdio-transport
 * A client `Transport` (the SDK's interface) that spawns an MCP server as the
 * leader of its own process group and speaks newline-delimited JSON-RPC over
 * its stdin/stdout. Unlike the SDK's `StdioClientTransport` it (a) overlays
 * `env` on the whole parent environment, (b) ends the server's whole process
 * tree on close, so servers started through launchers leave no orphans, and
 * (c) keeps the tail of the server's stderr for error messages.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { endGroup, trackGroup, untrackGroup } from "../../wire/process-tree.js";
import type { StdioServer } from "./servers.js";

/** How many bytes of the server's stderr are kept for error messages. */
export const STDERR_TAIL_BYTES = 4096;
/** After the leader exits, how long its stdout may stay open (held by a grandchild) before the session is ended anyway. */
const LEADER_EXIT_GRACE_MS = 250;
/**
 * How long a failed write waits for the server's end before it fails with the write's own error (the end normally
 * follows within LEADER_EXIT_GRACE_MS).
 */
const WRITE_FAILURE_WAIT_MS = 2_000;
/** A single stdout line longer than this is refused (the transport closes). */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** A byte ring that keeps only the last `limit` bytes written to it. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit = STDERR_TAIL_BYTES) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.limit && this.chunks.length > 1) {
      this.size -= this.chunks.shift()!.length;
    }
  }

  /** The kept text (at most `limit` bytes, cut at the front), trailing whitespace trimmed. */
  text(): string {
    const all = Buffer.concat(this.chunks);
    const cut = all.length > this.limit ? all.subarray(all.length - this.limit) : all;
    return cut
      .toString("utf8")
      .replace(/^\uFFFD+/, "")
      .trimEnd();
  }
}

/** How long close() waits after ending stdin, and after each signal, before escalating. */
export interface StdioCloseTiming {
  /** After stdin ends, before SIGTERM to the group. Default 2000 ms (the SDK's own value). */
  readonly stdinGraceMs?: number;
  /** After SIGTERM, before SIGKILL. Default 2000 ms. */
  readonly termGraceMs?: number;
}

/**
 * Spawns `server` on `start()`; `close()` ends stdin, waits for the leader,
 * then makes sure no member of its process group is left (SIGTERM, then
 * SIGKILL). `close()` is idempotent and every caller awaits the same teardown.
 *
 * The server is the group leader: when it exits, the session ends (within
 * `LEADER_EXIT_GRACE_MS`) even if a grandchild still holds its stdout, and
 * the group is ended. So a launcher must wait for the server it starts (as
 * npx, uvx and `exec` do), not exit and leave it running.
 *
 * Limits: a grandchild that leaves the group on purpose (`setsid`) is out of
 * reach. On Windows there are no process groups; the tree is ended with
 * `taskkill /T /F` instead.
 */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  /** The last ~4 KiB of the server's stderr (empty with `stderr: "inherit"`). */
  readonly stderrTail = new TailBuffer();
  /**
   * Called once, with the line, when the server prints a stdout line that is
   * not JSON-RPC before its first message (a process that is not an MCP
   * server, or a server that needs a flag to speak MCP on stdio).
   */
  onstray?: (line: string) => void;
  /** The first stdout line that was not JSON-RPC, cut to 120 characters; undefined while there is none. */
  private firstStray?: string;
  /** True once a JSON-RPC message has been read. */
  private spoke = false;
  /** True when `close()` was called while the process ran: how it then exits is this side's doing, not the server's story. */
  private closedHere = false;
  private child?: ChildProcess;
  private pending: Buffer[] = [];
  private pendingSize = 0;
  private closing?: Promise<void>;
  private exited?: { code: number | null; signal: NodeJS.Signals | null };
  private closedNotified = false;
  /** Failed writes waiting for the end (see `afterEnd`). */
  private readonly closedWaiters: Array<() => void> = [];
  private readonly stdinGraceMs: number;
  private readonly termGraceMs: number;

  /**
   * @param parse checks one decoded stdout line is a JSON-RPC message (the
   *   SDK's `parseJSONRPCMessage`, handed in by whoever loaded the SDK) and
   *   throws when it is not.
   */
  constructor(
    readonly server: StdioServer,
    private readonly parse: (value: unknown) => JSONRPCMessage,
    timing: StdioCloseTiming = {},
  ) {
    this.stdinGraceMs = timing.stdinGraceMs ?? 2000;
    this.termGraceMs = timing.termGraceMs ?? 2000;
  }

  /** The server's pid (its process group id on POSIX) once spawned; undefined before. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * The server's stderr stream (null before `start()` and with `stderr:
   * "inherit"`), as the SDK's `StdioClientTransport.stderr`. With `pid` it
   * also marks this transport as stdio to the SDK's version negotiation, so
   * a `server/discover` probe that gets no answer falls back to `initialize`
   * (on HTTP silence is an outage; on a pipe it is a 2025 server).
   */
  get stderr(): Readable | null {
    return this.child?.stderr ?? null;
  }

  /** How the server exited, once it has; undefined too when this side closed it first (its exit is then not the server's story). */
  get exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    return this.closedHere ? undefined : this.exited;
  }

  /**
   * What the server printed on stdout that is not JSON-RPC, before its first
   * message: its first such line, else the start of an unfinished line
   * (120 characters at most); undefined when there is none.
   */
  get strayOutput(): string | undefined {
    if (this.firstStray !== undefined) return this.firstStray;
    if (this.spoke || !this.pending.length) return undefined;
    const partial = Buffer.concat(this.pending).toString("utf8").trim();
    return partial ? partial.slice(0, 120) : undefined;
  }

  start(): Promise<void> {
    if (this.child) throw new Error(`${this.server}: transport already started`);
    const groups = process.platform !== "win32";
    return new Promise<void>((resolve, reject) => {
      const child = spawn(this.server.command, [...this.server.args], {
        cwd: this.server.cwd,
        env: { ...process.env, ...this.server.env },
        stdio: ["pipe", "pipe", this.server.stderr],
        detached: groups,
        windowsHide: true,
      });
      this.child = child;
      child.once("error", (err) => {
        // spawn failure (ENOENT, EACCES): nothing to end
        reject(err);
        this.onerror?.(err);
        this.notifyClosed();
      });
      child.once("spawn", () => {
        if (groups && child.pid) trackGroup(child.pid);
        resolve();
      });
      child.once("exit", (code, signal) => {
        this.exited = { code, signal };
        // The leader is gone. Its stdout normally ends with it ("close" follows
        // at once); but a grandchild that inherited stdout (`sh -c "helper &
        // exec server"`) keeps it open, and then only this exit says the server
        // is gone. Give the last lines a moment to drain, then end the session
        // (and the group) rather than leave calls waiting for their timeout.
        const timer = setTimeout(() => this.ended(child), LEADER_EXIT_GRACE_MS).unref();
        child.once("close", () => clearTimeout(timer));
      });
      // every stdio stream is drained: the stderr tail is complete
      child.once("close", () => this.ended(child));
      child.stdin!.on("error", (err) => this.onerror?.(err));
      child.stdout!.on("data", (chunk: Buffer) => this.read(chunk));
      child.stdout!.on("error", (err) => this.onerror?.(err));
      child.stderr?.on("data", (chunk: Buffer) => this.stderrTail.push(chunk));
      child.stderr?.on("error", () => {});
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closing || !stdin.writable) {
      return Promise.reject(new Error(`${this.server}: not connected (the server process is not running)`));
    }
    return new Promise<void>((resolve, reject) => {
      const line = `${JSON.stringify(message)}\n`;
      stdin.write(line, (err) => (err ? void this.afterEnd(WRITE_FAILURE_WAIT_MS).then(() => reject(err)) : resolve()));
    });
  }

  /**
   * Settles once the transport has told the session it closed, or after
   * `ms`. A write that fails (EPIPE: the server closed its stdin) races the
   * server's exit; waiting for the end first lets the call fail with how the
   * server ended (`exited with code 7`) rather than with the broken pipe.
   */
  private afterEnd(ms: number): Promise<void> {
    if (this.closedNotified) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.closedWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  close(): Promise<void> {
    if (!this.closing && this.child && !this.exited) this.closedHere = true;
    if (!this.closing) this.closing = this.child ? this.teardown(this.child) : Promise.resolve();
    return this.closing.finally(() => this.notifyClosed());
  }

  /** The server is gone (its stdio closed, or its leader exited): end the group and tell the session. */
  private ended(child: ChildProcess): void {
    if (!this.closing) this.closing = this.teardown(child);
    this.notifyClosed();
  }

  private notifyClosed(): void {
    if (this.closedNotified) return;
    this.closedNotified = true;
    this.onclose?.();
    for (const wake of this.closedWaiters.splice(0)) wake();
  }

  private async teardown(child: ChildProcess): Promise<void> {
    const pid = child.pid;
    if (pid === undefined) return;
    const exited = new Promise<void>((r) => {
      if (child.exitCode !== null || child.signalCode !== null) r();
      else child.once("exit", () => r());
    });
    const within = (ms: number) =>
      Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    try {
      child.stdin?.end();
    } catch {
      // already gone
    }
    if (process.platform === "win32") {
      if (!(await within(this.stdinGraceMs))) spawnSync("taskkill", ["/pid", String(pid), "/T", "/F"], { windowsHide: true });
      await within(this.termGraceMs);
      return;
    }
    // A well-behaved server exits once stdin ends; give it the grace the SDK gives.
    await within(this.stdinGraceMs);
    // Leader gone or not, its group may still hold a launcher's grandchild: end the group.
    await endGroup(pid, this.termGraceMs);
    untrackGroup(pid);
    this.pending = [];
    this.pendingSize = 0;
  }

  private read(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      const line = this.pending.length ? Buffer.concat([...this.pending, piece]) : piece;
      this.pending = [];
      this.pendingSize = 0;
      start = nl + 1;
      this.dispatch(line.toString("utf8").replace(/\r$/, ""));
    }
    if (start < chunk.length) {
      this.pending.push(chunk.subarray(start));
      this.pendingSize += chunk.length - start;
      if (this.pendingSize > MAX_LINE_BYTES) {
        this.pending = [];
        this.pendingSize = 0;
        this.onerror?.(new Error(`${this.server}: a stdout line exceeded ${MAX_LINE_BYTES} bytes; closing`));
        void this.close();
      }
    }
  }

  private dispatch(line: string): void {
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = this.parse(JSON.parse(line));
    } catch (err) {
      // A stray non-JSON line on stdout is the server's bug, not fatal to the session.
      this.onerror?.(new Error(`${this.server}: ignored a stdout line that is not JSON-RPC: ${line.slice(0, 120)}`, { cause: err }));
      if (!this.spoke && this.firstStray === undefined) {
        this.firstStray = line.trim().slice(0, 120);
        this.onstray?.(this.firstStray);
      }
      return;
    }
    this.spoke = true;
    this.onmessage?.(message);
  }
}
