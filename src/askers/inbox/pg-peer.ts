/**
 * @module askers/inbox/pg-peer
 * The one place `pg` is loaded: on first use, so importing
 * `arc-agentkit/askers` works without it and `postgresInboxStore()` names
 * the install line. Only the few members the store uses are typed here, so
 * the package's declarations need no `@types/pg`.
 */
import { createHash } from "node:crypto";
import { MissingPeerError } from "../../errors/missing-peer.error.js";
import { lazyPeer } from "../../util/optional-peer.js";

/** The line that installs the peer the PostgreSQL store needs. */
export const PG_INSTALL_LINE = "npm install pg@8.23.1";

/** A query's rows. */
export interface PgResult {
  readonly rows: Array<Record<string, unknown>>;
  readonly rowCount: number | null;
}

/** One connection (a pool's checked-out client). */
export interface PgClient {
  /** Runs one statement with `$1`-style `values`. */
  query(text: string, values?: readonly unknown[]): Promise<PgResult>;
  /** Listens for `NOTIFY` payloads on the channels this connection `LISTEN`s to. */
  on(event: "notification", fn: (msg: { channel: string; payload?: string }) => void): unknown;
  /** Listens for a connection's error (the store logs it and reconnects). */
  on(event: "error", fn: (err: Error) => void): unknown;
  /** Listens for the connection's end. */
  on(event: "end", fn: () => void): unknown;
  /** Drops the listeners the store added. */
  removeAllListeners(event?: string): unknown;
  /** Returns the connection to the pool (destroys it when `err` is set). */
  release(err?: Error | boolean): void;
}

/** What the store needs of a `pg.Pool` (yours, or the one it makes from a connection string). */
export interface PgPool {
  /** Runs one statement with `$1`-style `values`. */
  query(text: string, values?: readonly unknown[]): Promise<PgResult>;
  /** Checks out a connection (the store's `LISTEN` connection and its transactions). */
  connect(): Promise<PgClient>;
  /** Closes every connection (called by the store only for a pool it made). */
  end(): Promise<void>;
  /** Listens for a connection's error (the store logs it and reconnects). */
  on(event: "error", fn: (err: Error) => void): unknown;
}

interface PgModule {
  Pool: new (config: { connectionString: string; max?: number; connectionTimeoutMillis?: number }) => PgPool;
}

/** `pg`, loaded on first use. @throws MissingPeerError when it is not installed. */
export const pgModule = lazyPeer<PgModule>(
  "pg",
  (cause) =>
    new MissingPeerError("pg", PG_INSTALL_LINE, `the PostgreSQL inbox store needs the optional peer 'pg': ${PG_INSTALL_LINE}`, { cause }),
);

/** Statement names by text, so each text is hashed once (the store's texts are a few templates per schema). */
const statementNames = new Map<string, string>();

/** The server-side name of a statement: a hash of its text, so one name never stands for two texts on a connection. */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `agentkit_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
    if (statementNames.size < 1000) statementNames.set(text, name);
  }
  return name;
}

/**
 * How a store runs its statements on `pool`: when `pool` is a `pg.Pool` of
 * the loaded `pg`, as named prepared statements (each connection parses and
 * plans a text once, then only binds and executes it: the database's share of
 * a busy inbox's CPU); any other pool by its own `query(text, values)` (PGlite's
 * session pool prepares statements inside it: see `pglite-store.ts`). A store needs session pooling anyway (LISTEN),
 * where prepared statements live as long as the connection.
 */
export function statementRunner(pool: PgPool): (text: string, values?: readonly unknown[]) => Promise<PgResult> {
  let isPg = false;
  try {
    isPg = pool instanceof pgModule().Pool;
  } catch {
    // pg is not installed: this pool is someone else's
  }
  if (!isPg) return (text, values) => pool.query(text, values);
  const named = pool as unknown as { query(config: { name: string; text: string; values?: readonly unknown[] }): Promise<PgResult> };
  return (text, values) => named.query({ name: statementName(text), text, ...(values ? { values } : {}) });
}
