/**
 * @module mcp/approvals/approval-audit
 * Where every settled prompt goes: the JSONL sink (when configured), the
 * in-memory list, then the `gate.check` broadcast — in that order, before the
 * asking side hears the answer.
 */
import { OptionsError } from "../../errors/options.error.js";
import { emitGateCheck, errorVerdict, type GateEventTarget, type GateSubject, type GateVerdict } from "../../gate/index.js";
import { errorLine } from "../../util/format.js";
import { getLogger } from "../../util/logger.js";
import type { ApprovalDecision } from "./approval-decision.js";
import { JsonlAuditSink } from "./jsonl-audit-sink.js";

/** Anything events can be emitted on (a `RunContext` will do). */
export type ApprovalEventTarget = GateEventTarget;

/** Options of an `ApprovalAudit`. */
export interface ApprovalAuditOptions {
  /** Where `gate.check` events go (best-effort). */
  readonly ctx?: ApprovalEventTarget;
  /** A JSONL file to append each decision to (created 0600; its directory must exist). */
  readonly auditPath?: string;
  /** The array to append decisions to (to share one audit between servers); a new one by default. */
  readonly decisions?: ApprovalDecision[];
}

/** The audit of one approval seam: decisions in memory, optionally on disk, and on `ctx`. */
export class ApprovalAudit {
  /** Every decision, in the order they were settled. */
  readonly decisions: ApprovalDecision[];
  /** The JSONL sink, when `auditPath` was given. */
  readonly sink?: JsonlAuditSink;
  private readonly ctx?: ApprovalEventTarget;

  constructor(options: ApprovalAuditOptions = {}) {
    if (options.ctx !== undefined && typeof options.ctx?.emit !== "function") {
      throw new OptionsError("approvals", "ctx", "approvals: ctx must have an emit(event, data) method (a RunContext), or be left unset");
    }
    if (options.decisions !== undefined && !Array.isArray(options.decisions)) {
      throw new OptionsError("approvals", "decisions", "approvals: decisions must be an array to append to, or be left unset");
    }
    this.decisions = options.decisions ?? [];
    this.ctx = options.ctx;
    if (options.auditPath !== undefined) this.sink = new JsonlAuditSink(options.auditPath);
  }

  /**
   * Record a settled prompt (the engine's verdict) and return the verdict to answer with. Order: the
   * JSONL line is appended and fsync'd; the record is appended in memory; then
   * `gate.check` is emitted on `ctx` (or on `fallbackCtx`) without
   * `arguments`, best-effort. If the audit file cannot be written, an allow is
   * turned into a deny (source `error`): a decision that could not be
   * recorded is not given. Never throws.
   */
  async record(subject: GateSubject, given: GateVerdict, fallbackCtx?: ApprovalEventTarget): Promise<GateVerdict> {
    let verdict = given;
    if (this.sink) {
      try {
        await this.sink.append(verdict.record);
      } catch (err) {
        this.warn(`approvals: ${errorLine(err)}`);
        if (verdict.allowed) {
          verdict = errorVerdict(subject, `the decision could not be written to the audit file (${err instanceof Error ? err.message : String(err)})`, verdict.asked);
          await this.sink.append(verdict.record).catch(() => undefined);
        }
      }
    }
    this.decisions.push(verdict.record);
    emitGateCheck(this.ctx ?? fallbackCtx, verdict.record);
    return verdict;
  }

  private warn(message: string): void {
    try {
      getLogger().warn(message);
    } catch {
      // never let logging break an answer
    }
  }
}
