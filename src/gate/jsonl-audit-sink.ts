/**
 * @module gate/jsonl-audit-sink
 * An append-only JSONL file of approval decisions, one line each, on disk
 * before the asking side hears the answer.
 */
import { OptionsError } from "../errors/options.error.js";
import { open } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { GateRecord } from "./gate-record.js";
import { auditSinkError } from "./audit-sink.error.js";
import { ignoreRejection } from "../util/logger.js";

/**
 * Appends each decision as one JSON line and fsyncs it before `append()`
 * resolves, so a process killed right after answering loses no decision it
 * answered. Appends are serialized (lines never interleave) and opened with
 * `O_APPEND`, so several processes may share one file. The file is created
 * with mode 0600 (it holds tool arguments); an existing file keeps its mode.
 * The directory must exist. Holds no descriptor between appends, so there is
 * nothing to close.
 */
export class JsonlAuditSink {
  /** The absolute path of the audit file. */
  readonly path: string;
  private tail: Promise<unknown> = Promise.resolve();
  private dirSynced = false;

  constructor(path: string) {
    if (typeof path !== "string" || path === "")
      throw new OptionsError(
        "JsonlAuditSink",
        "auditPath",
        `JsonlAuditSink: auditPath must be a non-empty file path, got ${JSON.stringify(path)}`,
      );
    this.path = resolve(path);
  }

  /** Open the file for appending and close it again: fails early (code `audit_sink`) on a bad path. */
  async check(): Promise<void> {
    try {
      const fh = await open(this.path, "a", 0o600);
      await fh.close();
    } catch (err) {
      throw auditSinkError(this.path, "open", err);
    }
  }

  /**
   * Append one decision as a JSON line and flush it to disk. Resolves once
   * the line is fsync'd; rejects with an `AgentkitError` (code `audit_sink`) if it could not be.
   */
  append(decision: GateRecord): Promise<void> {
    const line = `${JSON.stringify(decision)}\n`;
    const next = this.tail.then(() => this.write(line));
    // Swallow kept: the tail only orders the next write; the caller awaits `next` and sees its failure.
    this.tail = next.catch(() => undefined);
    return next;
  }

  private async write(line: string): Promise<void> {
    let fh;
    try {
      fh = await open(this.path, "a", 0o600);
      await fh.appendFile(line, "utf8");
      await fh.sync();
    } catch (err) {
      throw auditSinkError(this.path, "append", err);
    } finally {
      await fh?.close().catch(ignoreRejection("closing the audit file after a failed write; the write failure is thrown"));
    }
    if (!this.dirSynced) {
      // The first append may have created the file: flush its directory entry too (best-effort).
      this.dirSynced = true;
      const dir = await open(dirname(this.path), "r").catch(
        ignoreRejection("opening the audit directory to fsync it (not every platform allows it)"),
      );
      await dir?.sync().catch(ignoreRejection("fsync of the audit directory (best effort: the file itself was synced)"));
      await dir?.close().catch(ignoreRejection("closing the audit directory handle"));
    }
  }
}
