/**
 * @module mcp/approvals/approval-audit
 * Where every settled prompt goes: the JSONL sink (when configured), the
 * in-memory list, then the `gate.check` broadcast — in that order, before the
 * asking side hears the answer.
 */
import { deepFreeze, errorLine } from "../../util/format.js";
import { getLogger } from "../../util/logger.js";
import type { ApprovalDecision } from "./approval-decision.js";
import { errorVerdict, type ApprovalPrompt, type ApprovalVerdict } from "./decide.js";
import { JsonlAuditSink } from "./jsonl-audit-sink.js";

/** Anything events can be emitted on (a `RunContext` will do). */
export interface ApprovalEventTarget {
  emit(event: string, data: Record<string, unknown>): void;
}

/** Options of an `ApprovalAudit`. */
export interface ApprovalAuditOptions {
  /** Where `gate.check` events go (best-effort). */
  readonly ctx?: ApprovalEventTarget;
  /** A JSONL file to append each decision to (created 0600; its directory must exist). */
  readonly auditPath?: string;
  /** The array to append decisions to (to share one audit between servers); a new one by default. */
  readonly decisions?: ApprovalDecision[];
}

function frozenCopy<T extends Record<string, unknown>>(value: T): Readonly<T> {
  let copy: T;
  try {
    copy = structuredClone(value);
  } catch {
    copy = { ...value };
  }
  return deepFreeze(copy);
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
      throw new TypeError("approvals: ctx must have an emit(event, data) method (a RunContext), or be left unset");
    }
    if (options.decisions !== undefined && !Array.isArray(options.decisions)) {
      throw new TypeError("approvals: decisions must be an array to append to, or be left unset");
    }
    this.decisions = options.decisions ?? [];
    this.ctx = options.ctx;
    if (options.auditPath !== undefined) this.sink = new JsonlAuditSink(options.auditPath);
  }

  /**
   * Record a settled prompt and return the verdict to answer with. Order: the
   * JSONL line is appended and fsync'd; the record is appended in memory; then
   * `gate.check` is emitted on `ctx` (or on `fallbackCtx`) without
   * `arguments`, best-effort. If the audit file cannot be written, an allow is
   * turned into a deny (source `error`): a decision that could not be
   * recorded is not given. Never throws.
   */
  async record(prompt: ApprovalPrompt, given: ApprovalVerdict, fallbackCtx?: ApprovalEventTarget): Promise<ApprovalVerdict> {
    let verdict = given;
    let decision = this.decisionOf(prompt, verdict);
    if (this.sink) {
      try {
        await this.sink.append(decision);
      } catch (err) {
        this.warn(`approvals: ${errorLine(err)}`);
        if (verdict.allowed) {
          verdict = errorVerdict(prompt, `the decision could not be written to the audit file (${err instanceof Error ? err.message : String(err)})`, verdict.asked);
          decision = this.decisionOf(prompt, verdict);
          await this.sink.append(decision).catch(() => undefined);
        }
      }
    }
    this.decisions.push(decision);
    const target = this.ctx ?? fallbackCtx;
    if (target) {
      const { arguments: _args, updatedArguments: _updated, ...broadcast } = decision;
      try {
        target.emit("gate.check", broadcast);
      } catch {
        // best-effort: a refusal that happened matters more than a record of it that did not
      }
    }
    return verdict;
  }

  private decisionOf(prompt: ApprovalPrompt, verdict: ApprovalVerdict): ApprovalDecision {
    return Object.freeze({
      tool: prompt.tool,
      arguments: frozenCopy(prompt.arguments),
      allowed: verdict.allowed,
      source: verdict.source,
      asked: verdict.asked,
      reason: verdict.reason,
      actor: verdict.actor,
      at: new Date().toISOString(),
      ...(verdict.allowed && verdict.modified ? { updatedArguments: frozenCopy(verdict.arguments) } : {}),
    });
  }

  private warn(message: string): void {
    try {
      getLogger().warn(message);
    } catch {
      // never let logging break an answer
    }
  }
}
