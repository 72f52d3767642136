/**
 * @module test/helpers/pglite
 * Fresh PGlite inbox stores, fast: a new PGlite database (initdb and the
 * inbox's migrations) takes 3–5 s; a copy of one already made opens in about
 * 0.7 s. The first store a file asks for is made for real, closed, and kept
 * as the file's template; every store after it opens a copy of that folder —
 * the same migrated, empty database, its own directory. Tests of how a store
 * creates and migrates a new database (test/askers/pglite-store.test.ts) open
 * their own directories instead.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pgliteInboxStore, type PostgresInboxStore } from "../../src/askers/index.js";

/** PGlite stores for one test file: `fresh()` each, `close()` once after the file (closes every store and removes every folder). */
export class PgliteStores {
  private template?: Promise<string>;
  private readonly dirs: string[] = [];
  private readonly stores: PostgresInboxStore[] = [];

  /** A new, empty, migrated PGlite inbox store in its own folder. */
  async fresh(): Promise<PostgresInboxStore> {
    const template = await (this.template ??= this.makeTemplate());
    const dir = this.folder();
    cpSync(template, dir, { recursive: true });
    const store = await pgliteInboxStore({ dataDir: dir });
    this.stores.push(store);
    return store;
  }

  /** Close every store handed out and remove every folder, the template's too. */
  async close(): Promise<void> {
    await Promise.all(this.stores.map((s) => s.stop()));
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
  }

  private folder(): string {
    const dir = mkdtempSync(join(tmpdir(), "akt-pglite-"));
    this.dirs.push(dir);
    return dir;
  }

  private async makeTemplate(): Promise<string> {
    const dir = this.folder();
    const store = await pgliteInboxStore({ dataDir: dir });
    await store.stop();
    return dir;
  }
}
