/**
 * @module askers/inbox/pg-peer
 * The one place `pg` is loaded: on first use, so importing
 * `arc-agentkit/askers` works without it and `postgresInboxStore()` names
 * the install line. Only the few members the store uses are typed here, so
 * the package's declarations need no `@types/pg`.
 */
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
  query(text: string, values?: readonly unknown[]): Promise<PgResult>;
  on(event: "notification", fn: (msg: { channel: string; payload?: string }) => void): unknown;
  on(event: "error", fn: (err: Error) => void): unknown;
  on(event: "end", fn: () => void): unknown;
  removeAllListeners(event?: string): unknown;
  release(err?: Error | boolean): void;
}

/** What the store needs of a `pg.Pool` (yours, or the one it makes from a connection string). */
export interface PgPool {
  query(text: string, values?: readonly unknown[]): Promise<PgResult>;
  connect(): Promise<PgClient>;
  end(): Promise<void>;
  on(event: "error", fn: (err: Error) => void): unknown;
}

interface PgModule {
  Pool: new (config: { connectionString: string; max?: number; connectionTimeoutMillis?: number }) => PgPool;
}

/** `pg`, loaded on first use. @throws MissingPeerError when it is not installed. */
export const pgModule = lazyPeer<PgModule>("pg", (cause) => new MissingPeerError("pg", PG_INSTALL_LINE, `the PostgreSQL inbox store needs the optional peer 'pg': ${PG_INSTALL_LINE}`, { cause }));
