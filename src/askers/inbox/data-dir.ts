/**
 * @module askers/inbox/data-dir
 * Whether a directory can hold the embedded inbox database, checked before
 * anything is created (so `pgliteInboxStore` and `agentkit serve
 * --inbox-store <dir>` say what is wrong with the path, in words, instead of
 * a bare EEXIST or EACCES from deep inside). Only `node:fs`: the command line
 * checks it without loading a store. And the directory's lock: one process
 * at a time opens an embedded database (two would each think they own it).
 */
import { accessSync, closeSync, constants, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * Why `dataDir` cannot hold the embedded database, in words, or `undefined`
 * when it can (as far as the file system tells before trying): it, or a
 * parent, is a file; or the nearest existing directory is not writable by
 * this user. Synchronous; creates nothing.
 */
export function dataDirProblem(dataDir: string): string | undefined {
  let at = resolve(dataDir);
  for (;;) {
    let isDir: boolean;
    try {
      isDir = statSync(at).isDirectory();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // ENOTDIR: a parent is a file; walking up names it
      if (code !== "ENOENT" && code !== "ENOTDIR") return `'${at}' cannot be read (${code ?? String(err)})`;
      if (dirname(at) === at) return `'${at}' does not exist`;
      at = dirname(at);
      continue;
    }
    if (!isDir) return `'${at}' is a file, not a directory`;
    try {
      accessSync(at, constants.W_OK | constants.X_OK);
    } catch {
      return `this user may not write to '${at}'`;
    }
    return undefined;
  }
}

/** The lock file in an embedded inbox's directory: the pid of the process that has it open. */
export const DATA_DIR_LOCK = "agentkit-inbox.lock";

/** A held directory lock. */
export interface DataDirLock {
  /** Remove the lock (only if it is still this process's). Idempotent; never throws. */
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Take `dataDir`'s lock (the directory must exist): the file
 * `agentkit-inbox.lock` created exclusively, holding this pid. Returns the
 * lock, or `{ heldBy }` naming the live process that has it (this one, when
 * the same directory is opened twice here). A lock whose process is gone
 * (killed, crashed) is taken over. Processes on other hosts sharing the
 * directory are not told apart: keep an embedded inbox on a local disk.
 */
export function lockDataDir(dataDir: string): DataDirLock | { readonly heldBy: number } {
  const path = join(dataDir, DATA_DIR_LOCK);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          try {
            if (readFileSync(path, "utf8").trim() === String(process.pid)) unlinkSync(path);
          } catch {
            // already gone
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 3) throw err;
    }
    let pid = NaN;
    try {
      pid = Number(readFileSync(path, "utf8").trim());
    } catch {
      continue; // released meanwhile: try again
    }
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) return { heldBy: pid };
    try {
      unlinkSync(path); // its process is gone
    } catch {
      // another opener took it over first: the next attempt says who holds it
    }
  }
}
