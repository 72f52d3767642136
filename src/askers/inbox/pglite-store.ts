/**
 * @module askers/inbox/pglite-store
 * `pgliteInboxStore({ dataDir })`: the PostgreSQL inbox store on PGlite
 * (PostgreSQL compiled to WebAssembly, the optional peer
 * `@electric-sql/pglite`), in this process, its database in a directory: the
 * same SQL, rows and notifications as on a server, durable across restarts,
 * nothing to install or run. One process owns the directory (the page and
 * its askers together; a second opener is refused, naming the directory);
 * for several processes or machines use a server and `postgresInboxStore`.
 */
import { mkdirSync } from "node:fs";
import { MissingPeerError } from "../../errors/missing-peer.error.js";
import { checkOptions, opt, type OptionRule } from "../../options/option-checks.js";
import { lazyPeer } from "../../util/optional-peer.js";
import { dataDirProblem, lockDataDir, type DataDirLock } from "./data-dir.js";
import { inboxStoreError } from "./inbox-store.error.js";
import { checkSchemaName, DEFAULT_INBOX_SCHEMA, migrateSchema, storeError } from "./postgres-schema.js";
import { EMBEDDED_STORES, PostgresInboxStore } from "./postgres-store.js";
import type { PgClient, PgPool, PgResult } from "./pg-peer.js";
import { ignoreRejection } from "../../util/logger.js";

/** The line that installs the peer the embedded store needs. */
export const PGLITE_INSTALL_LINE = "npm install @electric-sql/pglite@0.5.16";

/** A backend message as PGlite parses it (only the fields read here). */
interface PGliteMessage {
  readonly name: string;
  readonly dataTypeIDs?: number[];
}

/** One statement's results as PGlite's `parseResults` gives them. */
interface PGliteResults {
  readonly rows: Array<Record<string, unknown>>;
  readonly affectedRows?: number;
}

/** What the store uses of a PGlite database. */
export interface PGliteDb {
  query(text: string, values?: readonly unknown[]): Promise<PGliteResults>;
  execProtocol(message: Uint8Array): Promise<{ messages: PGliteMessage[] }>;
  runExclusive<T>(fn: () => Promise<T>): Promise<T>;
  readonly serializers: Record<number, (v: unknown) => string>;
  readonly parsers: Record<number, unknown>;
  onNotification(fn: (channel: string, payload: string) => void): () => void;
  close(): Promise<void>;
}

interface PGliteModule {
  PGlite: { create(dataDir: string): Promise<PGliteDb> };
  protocol: {
    serialize: {
      parse(o: { name: string; text: string }): Uint8Array;
      describe(o: { type: "S" | "P"; name?: string }): Uint8Array;
      bind(o: { statement: string; values: Array<string | null> }): Uint8Array;
      execute(): Uint8Array;
      sync(): Uint8Array;
    };
  };
  parse: { parseResults(messages: PGliteMessage[], parsers: Record<number, unknown>): PGliteResults[] };
}

const pglite = lazyPeer<PGliteModule>(
  "@electric-sql/pglite",
  (cause) =>
    new MissingPeerError(
      "@electric-sql/pglite",
      PGLITE_INSTALL_LINE,
      `the embedded inbox store needs the optional peer '@electric-sql/pglite': ${PGLITE_INSTALL_LINE}`,
      { cause },
    ),
);

/** Options of `pgliteInboxStore`. */
export interface PgliteInboxStoreOptions {
  /** The directory holding the database (created when missing; keep it between runs to keep the inbox). */
  readonly dataDir: string;
  /** The schema holding the tables. Default `agentkit_inbox`. */
  readonly schema?: string;
}

/** How many statement texts a database keeps prepared (the store's are a few dozen templates per schema). */
const MAX_PREPARED = 1000;

/** PostgreSQL's "prepared statement does not exist" (someone ran `DEALLOCATE`): prepare it again. */
const NO_SUCH_STATEMENT = "26000";

/**
 * Statements with values on `db` as named prepared statements: a text is parsed and described once (its parameter
 * types kept), then each run is one pass through the database (bind, describe, execute, sync in one message) instead
 * of the six that `db.query` makes (parse, describe, bind, describe, execute, sync), each a trip into the WebAssembly
 * backend on this thread, and the text is not parsed and planned again. Returns `undefined` (the caller uses
 * `db.query`) once `MAX_PREPARED` texts are kept.
 */
function preparedStatements(
  db: PGliteDb,
  mod: PGliteModule,
): (text: string, values: readonly unknown[]) => Promise<PGliteResults | undefined> {
  const { serialize } = mod.protocol;
  const statements = new Map<string, { readonly name: string; readonly types: readonly number[] }>();
  let made = 0;
  /** What follows every bind: describe the portal, execute, sync (the same bytes each time). */
  const runTail = Buffer.concat([serialize.describe({ type: "P" }), serialize.execute(), serialize.sync()]);
  const prepare = async (text: string): Promise<{ name: string; types: readonly number[] }> => {
    const name = `agentkit_p${++made}`;
    const { messages } = await db.execProtocol(
      Buffer.concat([serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()]),
    );
    const st = { name, types: messages.find((m) => m.name === "parameterDescription")?.dataTypeIDs ?? [] };
    statements.set(text, st);
    return st;
  };
  const execute = async (st: { name: string; types: readonly number[] }, values: readonly unknown[]): Promise<PGliteResults> => {
    const bound = values.map((v, i) => (v === null || v === undefined ? null : (db.serializers[st.types[i]!] ?? String)(v)));
    const { messages } = await db.execProtocol(Buffer.concat([serialize.bind({ statement: st.name, values: bound }), runTail]));
    return mod.parse.parseResults(messages, db.parsers)[0] ?? { rows: [] };
  };
  return (text, values) =>
    db.runExclusive(async () => {
      let st = statements.get(text);
      if (!st) {
        if (statements.size >= MAX_PREPARED) return undefined;
        st = await prepare(text);
      }
      try {
        return await execute(st, values);
      } catch (err) {
        if ((err as { code?: unknown }).code !== NO_SUCH_STATEMENT) throw err;
        statements.delete(text);
        return await execute(await prepare(text), values);
      }
    });
}

/**
 * One PGlite database seen as the pool the store expects: every "connection" is the one session. Ending it closes the
 * database, then releases the directory's lock. Statements with values run prepared (see `preparedStatements`).
 * Internal (not exported from the package): tests count the passes a statement makes.
 */
export function sessionPool(db: PGliteDb, lock: DataDirLock): PgPool {
  const prepared = preparedStatements(db, pglite());
  const query = async (text: string, values?: readonly unknown[]): Promise<PgResult> => {
    const r = (values && (await prepared(text, values))) || (await db.query(text, values));
    return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
  };
  const stops: Array<() => void> = [];
  const client: PgClient = {
    query,
    on(event: string, fn: (...a: never[]) => void) {
      if (event === "notification")
        stops.push(
          db.onNotification((channel, payload) => (fn as (m: { channel: string; payload: string }) => void)({ channel, payload })),
        );
      return client;
    },
    removeAllListeners() {
      for (const stop of stops.splice(0)) stop();
      return client;
    },
    release() {},
  } as PgClient;
  const end = async (): Promise<void> => {
    try {
      await db.close();
    } finally {
      lock.release();
    }
  };
  return { query, connect: () => Promise.resolve(client), end, on: () => undefined };
}

/** Create `dataDir` (0700) when missing and take its lock, or say which process has it. */
function lockDir(dataDir: string, schema: string): DataDirLock {
  let lock: ReturnType<typeof lockDataDir>;
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    lock = lockDataDir(dataDir);
  } catch (err) {
    throw storeError(err, schema);
  }
  if ("heldBy" in lock) {
    throw inboxStoreError(
      "in_use",
      `pgliteInboxStore: the inbox database in '${dataDir}' is already open (by process ${lock.heldBy}): one ` +
        `process at a time owns an embedded inbox. Close that store or stop that process, or share a PostgreSQL ` +
        `server between processes (postgresInboxStore, --store)`,
    );
  }
  return lock;
}

/** The options `pgliteInboxStore` accepts, declared once. */
const PGLITE_STORE_OPTIONS = {
  dataDir: opt.nonEmptyString("the path of a directory for the database"),
  schema: ((v, where) => checkSchemaName((v ?? DEFAULT_INBOX_SCHEMA) as string, where)) as OptionRule<string>,
} satisfies Record<keyof PgliteInboxStoreOptions, OptionRule<unknown>>;

/**
 * The embedded inbox store: opens (or creates) the PGlite database in
 * `dataDir`, brings its tables up to date, and returns a store backed by it
 * (`stop()` closes the database). Opening takes about a second (several
 * the very first time, while the database is created).
 *
 * @throws OptionsError for bad options; MissingPeerError when `@electric-sql/pglite` is not installed; InboxError (code `inbox_store`)
 * when the directory cannot hold a database, or (`in_use`) when a live process (this one included) has it open.
 */
export async function pgliteInboxStore(options: PgliteInboxStoreOptions): Promise<PostgresInboxStore> {
  const { dataDir, schema } = checkOptions(options, "pgliteInboxStore", PGLITE_STORE_OPTIONS);
  const { PGlite } = pglite();
  const problem = dataDirProblem(dataDir);
  if (problem)
    throw inboxStoreError(
      "unavailable",
      `pgliteInboxStore: cannot keep the inbox database in '${dataDir}': ${problem}. Give a directory this user ` +
        `can write (it is created when missing)`,
    );
  const lock = lockDir(dataDir, schema);
  let db: PGliteDb;
  try {
    db = await PGlite.create(dataDir);
  } catch (err) {
    lock.release();
    throw storeError(err, schema);
  }
  const pool = sessionPool(db, lock);
  try {
    await migrateSchema(pool, schema, { roles: false });
  } catch (err) {
    await pool.end().catch(ignoreRejection("ending the pglite pool while closing"));
    throw storeError(err, schema);
  }
  const store = new PostgresInboxStore({ pool, schema, ownsPool: true });
  EMBEDDED_STORES.add(store);
  return store;
}
