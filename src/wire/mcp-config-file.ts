/**
 * @module wire/mcp-config-file
 * Writing the CLI's `{"mcpServers": {...}}` document: a live credential, so
 * mode 0600, created exclusively (never through a symlink, never over a file
 * somebody else put there), and removed again by its owner only while it is
 * still the file that was written.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
  type BigIntStats,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { AgentkitError } from "../errors/agentkit.error.js";

/** Where a config document was written, and the directory created for it (if any). */
export interface WrittenMcpConfig {
  /** Absolute path of the file. */
  readonly path: string;
  /** The `agentkit-*` directory created for it, or `null` when the caller chose the path. */
  readonly createdDir: string | null;
}

/**
 * @internal A file created by `createPrivateFile`: its path and the identity
 * of what was created there (device, inode, birth time), so removal can tell
 * our file from one put in its place. The birth time matters: a file created
 * right after ours was deleted often gets the same inode number.
 */
export interface PrivateFile {
  readonly path: string;
  readonly dev: bigint;
  readonly ino: bigint;
  readonly born: bigint;
}

/** When the file came to be: its birth time where the filesystem keeps one, else its last status change (set by our own write). */
function bornNs(st: BigIntStats): bigint {
  return st.birthtimeNs > 0n ? st.birthtimeNs : st.ctimeNs;
}

/**
 * Open flags of a credential file: create, fail if anything (a file, a directory, a link — even a dangling one) is
 * there, never follow a link.
 */
const CREATE_EXCLUSIVE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** What is at `path` that stopped an exclusive create, as the error to throw. */
function refusal(path: string, what: string, cause: unknown): AgentkitError {
  let st: BigIntStats | undefined;
  try {
    st = lstatSync(path, { bigint: true });
  } catch {
    // gone again: say what open() saw
  }
  const fix = "remove it or choose another path";
  if (st?.isSymbolicLink()) {
    let target = "";
    try {
      target = ` (to ${readlinkSync(path)})`;
    } catch {
      // unreadable: name the link only
    }
    return new AgentkitError(
      "mcp_config_file",
      `refusing to write ${what}: ${path} is a symbolic link${target}; a credential is never written through a ` +
        `link, which would put it wherever the link points — ${fix}`,
      { cause },
    );
  }
  if (st?.isDirectory())
    return new AgentkitError("mcp_config_file", `refusing to write ${what}: ${path} is a directory — ${fix}`, { cause });
  return new AgentkitError(
    "mcp_config_file",
    `refusing to write ${what}: ${path} already exists and was not written by this process; it is never replaced ` +
      `(it may be somebody's file) — ${fix}`,
    { cause },
  );
}

/**
 * @internal Create `path` holding `text`, mode 0600, with
 * `O_CREAT|O_EXCL|O_NOFOLLOW`: a symlink (dangling or not), a directory or
 * an existing file at `path` is refused with an `AgentkitError` (code `mcp_config_file`) naming the
 * path, and nothing is written anywhere. `what` names the file in that
 * message ("the MCP config"). Other failures (a missing directory: `ENOENT`)
 * are thrown as they are.
 */
export function createPrivateFile(path: string, text: string, what = "the MCP config"): PrivateFile {
  let fd: number;
  try {
    fd = openSync(path, CREATE_EXCLUSIVE, 0o600);
  } catch (err) {
    const code = errno(err);
    if (code === "EEXIST" || code === "ELOOP" || code === "EISDIR") throw refusal(path, what, err);
    throw err;
  }
  let identity: PrivateFile | undefined;
  try {
    // The umask may have narrowed the mode; it is exactly 0600 either way.
    fchmodSync(fd, 0o600);
    let st = fstatSync(fd, { bigint: true });
    identity = { path, dev: st.dev, ino: st.ino, born: bornNs(st) };
    writeFileSync(fd, text);
    st = fstatSync(fd, { bigint: true });
    identity = { path, dev: st.dev, ino: st.ino, born: bornNs(st) };
    return identity;
  } catch (err) {
    if (identity) removePrivateFile(identity);
    throw err;
  } finally {
    closeSync(fd);
  }
}

/**
 * @internal Delete `file` if `file.path` is still the regular file that
 * `createPrivateFile` made (same device and inode); a link, a directory or
 * another file put there since is left alone. True when it deleted.
 */
export function removePrivateFile(file: PrivateFile): boolean {
  let st: BigIntStats;
  try {
    st = lstatSync(file.path, { bigint: true });
  } catch (err) {
    if (errno(err) === "ENOENT") return false;
    throw err;
  }
  if (!st.isFile() || st.dev !== file.dev || st.ino !== file.ino || bornNs(st) !== file.born) return false;
  unlinkSync(file.path);
  return true;
}

/**
 * @internal Rename `file` to `path` (in the same directory: one step for a reader, replacing what was there) and
 * return its identity there. A rename keeps the inode but sets the status-change time, which stands for the birth time
 * where the filesystem keeps none, so the identity is read again; a file that is not `file`'s inode keeps the old
 * identity, which matches nothing (it is not ours to remove).
 */
export function renamePrivateFile(file: PrivateFile, path: string): PrivateFile {
  renameSync(file.path, path);
  const st = lstatSync(path, { bigint: true });
  if (st.dev !== file.dev || st.ino !== file.ino) return { ...file, path };
  return { path, dev: st.dev, ino: st.ino, born: bornNs(st) };
}

/** @internal Remove directory `dir` if it is empty; a directory somebody put something into is kept. */
export function removeEmptyDir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch (err) {
    if (errno(err) !== "ENOENT" && errno(err) !== "ENOTEMPTY" && errno(err) !== "EEXIST") throw err;
  }
}

/**
 * Files written and not yet removed, with what was created; swept when the process exits so a credential never outlives
 * its server by accident.
 */
const live = new Map<WrittenMcpConfig, PrivateFile>();
let exitHook = false;

function sweepOnExit(): void {
  for (const [written, file] of live) {
    try {
      removeFiles(written, file);
    } catch {
      // best-effort at exit
    }
  }
  live.clear();
}

function removeFiles(written: WrittenMcpConfig, file: PrivateFile | undefined): void {
  if (file) removePrivateFile(file);
  // Someone put something else in our directory: remove only what we wrote.
  if (written.createdDir) removeEmptyDir(written.createdDir);
}

/**
 * Write `document` as JSON, mode 0600. Without `configPath`, the file is
 * `mcp-config.json` in a fresh 0700 directory `agentkit-*` under `os.tmpdir()`;
 * with it, exactly that file, created exclusively: its directory must exist,
 * and a symlink (even a dangling one), a directory or an existing file at
 * that path is refused with an `AgentkitError` (code `mcp_config_file`) naming the path — nothing is
 * written through a link or over somebody's file. The text is
 * `JSON.stringify(document)`.
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
    path = join(createdDir, "mcp-config.json");
  }
  const written = Object.freeze({ path, createdDir });
  try {
    writeDocument(written, document);
  } catch (err) {
    if (createdDir) removeEmptyDir(createdDir);
    throw err;
  }
  return written;
}

function writeDocument(written: WrittenMcpConfig, document: object): void {
  if (written.createdDir) chmodPrivateDir(written.createdDir);
  live.set(written, createPrivateFile(written.path, JSON.stringify(document)));
  if (!exitHook) {
    exitHook = true;
    process.once("exit", sweepOnExit);
  }
}

/** Our own `agentkit-*` directory must be a 0700 directory of this user (not a link, not somebody's). */
function chmodPrivateDir(dir: string): void {
  const st = lstatSync(dir);
  if (!st.isDirectory() || (process.getuid && st.uid !== process.getuid()) || (st.mode & 0o077) !== 0) {
    throw new AgentkitError(
      "mcp_config_file",
      `refusing to write the MCP config into ${dir}: that path is no longer a private (0700) directory of this ` +
        `user; stop and serve again for a fresh one`,
    );
  }
}

/**
 * Write `document` again at the same place, after `removeMcpConfig` (a
 * re-entered server): recreates the `agentkit-*` directory (0700) when we had
 * created it, then the file (0600), exclusively as `writeMcpConfig` does —
 * a link, a directory or a file put at the path meanwhile is refused with
 * an `AgentkitError` (code `mcp_config_file`) naming it. If that directory path exists but is not a
 * private directory of this user (someone took the name meanwhile), throws
 * instead of writing a credential into it. A file this writer made and still
 * owns there is replaced.
 */
export function rewriteMcpConfig(written: WrittenMcpConfig, document: object): void {
  const previous = live.get(written);
  if (previous) {
    removePrivateFile(previous);
    live.delete(written);
  }
  const dir = written.createdDir;
  if (dir) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (err) {
      if (errno(err) !== "EEXIST") throw err;
    }
  }
  writeDocument(written, document);
}

/**
 * Remove a written config: the file — only while it is still the file that
 * was written (same device, inode and birth time; a link or another file put in its
 * place is left alone) — and the directory only if `writeMcpConfig` created
 * it and it is empty (a caller's own directory is theirs to keep).
 * Idempotent: a file already gone is not an error.
 */
export function removeMcpConfig(written: WrittenMcpConfig): void {
  const file = live.get(written);
  live.delete(written);
  removeFiles(written, file);
}
