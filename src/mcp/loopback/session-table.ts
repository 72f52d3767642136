/**
 * @module mcp/loopback/session-table
 * The MCP endpoint's live sessions with their idle expiry and cap. A session
 * is busy while a POST of it is in flight; a session with no request for
 * `idleMs` is closed (a request naming it then gets 404, so the client
 * re-initializes); at `max` sessions a new one closes the oldest idle one,
 * and with none idle it is refused. Three of six third-party clients never
 * send DELETE, so without this every session they open lives until stop().
 */
import { ignoreRejection } from "../../util/logger.js";

/** What the table closes. */
export interface Closable {
  close(): Promise<void>;
}

interface Entry<S> {
  readonly session: S;
  /** POSTs in flight. */
  busy: number;
  /** When a request of it last started or ended (ms, monotonic). */
  last: number;
}

/** Defaults of `sessionIdleMs` and `maxSessions`. */
export const SESSION_DEFAULTS = Object.freeze({ sessionIdleMs: 30 * 60_000, maxSessions: 1_000 });

/** Live sessions by id, oldest first. */
export class SessionTable<S extends Closable> {
  private readonly entries = new Map<string, Entry<S>>();
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    /** Idle time after which a session is closed. */
    readonly idleMs: number,
    /** Most live sessions. */
    readonly max: number,
  ) {}

  /** Live sessions. */
  get size(): number {
    return this.entries.size;
  }

  /** The session, or undefined (unknown, closed, expired). */
  get(id: string): S | undefined {
    return this.entries.get(id)?.session;
  }

  /**
   * Make room for one more session: true when there is room (closing the
   * oldest idle session if the table is full), false when every session is busy.
   */
  makeRoom(): boolean {
    if (this.entries.size < this.max) return true;
    let oldest: [string, Entry<S>] | undefined;
    for (const kv of this.entries) if (kv[1].busy === 0 && (!oldest || kv[1].last < oldest[1].last)) oldest = kv;
    if (!oldest) return false;
    this.close(oldest[0]);
    return true;
  }

  /** Add a session (after its initialize succeeded). */
  add(id: string, session: S): void {
    this.entries.set(id, { session, busy: 0, last: performance.now() });
    this.sweeper ??= setInterval(() => this.sweep(), Math.max(25, Math.min(this.idleMs / 4, 30_000))).unref();
  }

  /** Forget a session (its transport closed); does not close it. */
  delete(id: string, session?: S): void {
    const e = this.entries.get(id);
    if (!e || (session !== undefined && e.session !== session)) return;
    this.entries.delete(id);
    if (this.entries.size === 0) this.stopSweeper();
  }

  /** A request of `id` starts; `busy` for a POST. Returns the end callback. */
  touch(id: string, busy: boolean): () => void {
    const e = this.entries.get(id);
    if (!e) return () => {};
    e.last = performance.now();
    if (busy) e.busy++;
    return () => {
      e.last = performance.now();
      if (busy) e.busy--;
    };
  }

  /** Close and forget one session. */
  close(id: string): void {
    const e = this.entries.get(id);
    if (!e) return;
    this.delete(id);
    void e.session.close().catch(ignoreRejection("closing an evicted idle session"));
  }

  /** Remove every session and return them (for the caller to close). */
  drain(): S[] {
    const all = [...this.entries.values()].map((e) => e.session);
    this.entries.clear();
    this.stopSweeper();
    return all;
  }

  private sweep(): void {
    const now = performance.now();
    for (const [id, e] of this.entries) if (e.busy === 0 && now - e.last >= this.idleMs) this.close(id);
  }

  private stopSweeper(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
  }
}
