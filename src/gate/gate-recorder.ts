/**
 * @module gate/gate-recorder
 * THE recorder: where every settled gate call goes, through one object with
 * sinks — the audit file (when configured), the in-memory list, then the
 * `gate.check` event — in that order, before the asking side hears the
 * answer. Every entry point (the ReAct loop, `ApprovalServer`,
 * `approvalGuard`, the Claude hook, sampling) records through it, so the
 * audit-failure policy is one rule, stated once here.
 */
import { OptionsError } from "../errors/options.error.js";
import { checkOptions, opt, type OptionRule } from "../options/option-checks.js";
import { errorLine } from "../util/format.js";
import { getLogger, ignoreRejection } from "../util/logger.js";
import { errorVerdict, type GateSubject, type GateVerdict } from "./decision-table.js";
import { emitGateCheck, type GateEventTarget, type GateRecord } from "./gate-record.js";
import { JsonlAuditSink } from "./jsonl-audit-sink.js";

/** Where a record is made durable: resolves once it is, rejects when it could not be (the JSONL sink is one). */
export interface GateAuditSink {
  append(record: GateRecord): Promise<void>;
}

/** How many records a recorder keeps in memory (`decisions`): the newest; the durable sink keeps every one. */
export const DECISIONS_KEPT = 1_000;

/** Options of a `GateRecorder`. */
export interface GateRecorderOptions {
  /** Where `gate.check` events go (best-effort). */
  readonly ctx?: GateEventTarget;
  /** A JSONL file to append each record to (created 0600; its directory must exist). */
  readonly auditPath?: string;
  /** Any other durable sink instead of `auditPath` (one of the two at most). */
  readonly audit?: GateAuditSink;
  /**
   * The array to append records to (to share one list between entry points); a new one by default. It keeps the newest
   * `DECISIONS_KEPT` (1,000): older records are removed from it.
   */
  readonly decisions?: GateRecord[];
  /** Who owns this recorder, for option errors (`"approvals"`, `"ReActCognition"`). Default `"approvals"`. */
  readonly where?: string;
}

/** Where a settled call is recorded to, as every seam accepts it: the event target `ctx` and the JSONL `auditPath`. */
export const GATE_SINK_RULES = {
  ctx: opt.that<GateEventTarget>(
    (v) => typeof (v as GateEventTarget | null)?.emit === "function",
    "a RunContext (an object with emit(event, data)), or be left unset",
  ),
  auditPath: opt.string("a file path", true),
} as const;

/** The options a `GateRecorder` accepts, declared once; errors are named by `where`. */
const GATE_RECORDER_OPTIONS = {
  ...GATE_SINK_RULES,
  audit: opt.that<GateAuditSink>(
    (v) => typeof (v as GateAuditSink | null)?.append === "function",
    "an audit sink (an object with append(record) returning a promise), or be left unset",
  ),
  decisions: opt.that<GateRecord[]>(Array.isArray, "an array to append to, or be left unset"),
  where: opt.string("the owner's name", true),
} satisfies Record<keyof GateRecorderOptions, OptionRule<unknown>>;

/**
 * One recorder with sinks. The audit-failure policy, the same for every
 * entry point: when the durable sink cannot take a record, an allow becomes
 * a deny (source `error`, "the decision could not be written to the audit
 * file ...") — a decision that could not be recorded is not given — and that
 * deny is offered to the sink too; a deny stays a deny. The in-memory list
 * (bounded: the newest `DECISIONS_KEPT`) and the event always get the final
 * record. Never throws.
 */
export class GateRecorder {
  /** The newest `DECISIONS_KEPT` (1,000) records, in the order settled (the durable sink, when there is one, keeps every one). */
  readonly decisions: GateRecord[];
  /** The durable sink, when one was configured (a `JsonlAuditSink` for `auditPath`). */
  readonly sink?: GateAuditSink;
  private readonly ctx?: GateEventTarget;

  /** @throws OptionsError naming a bad `ctx`, `decisions`, `auditPath` or `audit`. */
  constructor(options: GateRecorderOptions = {}) {
    const where = typeof options?.where === "string" && options.where !== "" ? options.where : "approvals";
    const o = checkOptions(options, where, GATE_RECORDER_OPTIONS);
    if (o.audit !== undefined && o.auditPath !== undefined) {
      throw new OptionsError(where, "audit", `${where}: give auditPath or audit, not both`);
    }
    this.decisions = o.decisions ?? [];
    this.ctx = o.ctx;
    this.sink = o.audit ?? (o.auditPath !== undefined ? new JsonlAuditSink(o.auditPath) : undefined);
  }

  /** The JSONL file's absolute path, when the sink is one. */
  get auditPath(): string | undefined {
    return this.sink instanceof JsonlAuditSink ? this.sink.path : undefined;
  }

  /** Fail early (an `AgentkitError`, code `audit_sink`) when the JSONL file cannot be opened for appending; nothing to check otherwise. */
  async check(): Promise<void> {
    if (this.sink instanceof JsonlAuditSink) await this.sink.check();
  }

  /**
   * Record a settled call (the engine's verdict) and return the verdict to
   * answer with (an allow the sink refused comes back as a deny). Order: the
   * durable sink, the in-memory list, then `gate.check` on `ctx` (or on
   * `fallbackCtx`) without `arguments`. Never throws.
   */
  async record(subject: GateSubject, given: GateVerdict, fallbackCtx?: GateEventTarget): Promise<GateVerdict> {
    let verdict = given;
    if (this.sink) {
      try {
        await this.sink.append(verdict.record);
      } catch (err) {
        warn(`approvals: ${errorLine(err)}`);
        if (verdict.allowed) {
          const why = `the decision could not be written to the audit file (${err instanceof Error ? err.message : String(err)})`;
          verdict = errorVerdict({ ...subject, questionId: verdict.record.questionId }, why, verdict.asked);
          await this.sink
            .append(verdict.record)
            .catch(ignoreRejection("writing the error record after a failed audit write; the first failure was warned"));
        }
      }
    }
    this.decisions.push(verdict.record);
    // A bounded log: a long-lived server (and a guard reading its answers) keeps the newest only.
    if (this.decisions.length > DECISIONS_KEPT) this.decisions.splice(0, this.decisions.length - DECISIONS_KEPT);
    emitGateCheck(this.ctx ?? fallbackCtx, verdict.record);
    return verdict;
  }
}

function warn(message: string): void {
  try {
    getLogger().warn(message);
  } catch {
    // never let logging break an answer
  }
}
