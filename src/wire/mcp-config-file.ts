/**
 * @module wire/mcp-config-file
 * Writing the CLI's `{"mcpServers": {...}}` document: a live credential, so
 * mode 0600 in a fresh 0700 directory, removed again by its owner.
 */
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, rmdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { McpConfigFileError } from "./mcp-config-file.error.js";

/** Where a config document was written, and the directory created for it (if any). */
export interface WrittenMcpConfig {
  /** Absolute path of the file. */
  readonly path: string;
  /** The `agentkit-*` directory created for it, or `null` when the caller chose the path. */
  readonly createdDir: string | null;
}

/** Files written and not yet removed; swept when the process exits so a credential never outlives its server by accident. */
const live = new Map<string, WrittenMcpConfig>();
let exitHook = false;

function sweepOnExit(): void {
  for (const w of live.values()) {
    try {
      removeFiles(w);
    } catch {
      // best-effort at exit
    }
  }
  live.clear();
}

function removeFiles(written: WrittenMcpConfig): void {
  rmSync(written.path, { force: true });
  if (written.createdDir) {
    try {
      rmdirSync(written.createdDir);
    } catch (err) {
      // Someone put something else in our directory: remove only what we wrote.
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" && (err as NodeJS.ErrnoException).code !== "ENOTEMPTY") throw err;
    }
  }
}

/**
 * Write `document` as JSON, mode 0600. Without `configPath`, the file is
 * `mcp-config.json` in a fresh 0700 directory `agentkit-*` under `os.tmpdir()`;
 * with it, exactly that file (its directory must exist; the file is created or
 * replaced, and made 0600 either way). The same document reaches the CLI both
 * as this file and inline, so its text is `JSON.stringify(document)`.
 *
 * Files still present when the process exits are removed by an exit hook —
 * a safety net, not the contract: call `removeMcpConfig()` (a spec's `stop()`
 * does) when the server stops.
 */
export function writeMcpConfig(document: object, options: { configPath?: string } = {}): WrittenMcpConfig {
  let path: string;
  let createdDir: string | null = null;
  if (options.configPath !== undefined) {
    path = resolve(options.configPath);
  } else {
    createdDir = mkdtempSync(join(tmpdir(), "agentkit-"));
    chmodSync(createdDir, 0o700);
    path = join(createdDir, "mcp-config.json");
  }
  const written = Object.freeze({ path, createdDir });
  writeDocument(written, document);
  return written;
}

function writeDocument(written: WrittenMcpConfig, document: object): void {
  writeFileSync(written.path, JSON.stringify(document), { mode: 0o600 });
  // `mode` applies only when the file is created; a replaced file keeps its old mode.
  chmodSync(written.path, 0o600);
  live.set(written.path, written);
  if (!exitHook) {
    exitHook = true;
    process.once("exit", sweepOnExit);
  }
}

/**
 * Write `document` again at the same place, after `removeMcpConfig` (a
 * re-entered server): recreates the `agentkit-*` directory (0700) when we had
 * created it, then the file (0600). If that directory path exists but is not
 * a private directory of this user (someone took the name meanwhile), throws
 * instead of writing a credential into it.
 */
export function rewriteMcpConfig(written: WrittenMcpConfig, document: object): void {
  const dir = written.createdDir;
  if (dir) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const st = lstatSync(dir);
      if (!st.isDirectory() || (process.getuid && st.uid !== process.getuid()) || (st.mode & 0o077) !== 0) {
        throw new McpConfigFileError(dir, `refusing to rewrite the MCP config into ${dir}: that path is no longer a private (0700) directory of this user; stop and serve again for a fresh one`, { cause: err });
      }
    }
  }
  writeDocument(written, document);
}

/**
 * Remove a written config: the file, and the directory only if
 * `writeMcpConfig` created it (a caller's own directory is theirs to keep).
 * Idempotent: a file already gone is not an error.
 */
export function removeMcpConfig(written: WrittenMcpConfig): void {
  live.delete(written.path);
  removeFiles(written);
}
