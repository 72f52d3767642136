/**
 * @module askers/inbox/data-dir
 * Whether a directory can hold the embedded inbox database, checked before
 * anything is created (so `pgliteInboxStore` and `agentkit serve
 * --inbox-store <dir>` say what is wrong with the path, in words, instead of
 * a bare EEXIST or EACCES from deep inside). Only `node:fs`: the command line
 * checks it without loading a store.
 */
import { accessSync, constants, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

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
