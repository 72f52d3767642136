/**
 * @module gate/gate-record
 * The audit record of one gated call, and the `gate.check` payload made from
 * it — one schema for every entry point.
 */
import type { GateSource, GateVia } from "./gate-source.js";

/** Who called, as an OAuth access token established it (a hosted call). */
export interface GateCaller {
  /** The OAuth client the token was issued to. */
  readonly clientId: string;
  /** The end user the token names (`sub`), or `null`. */
  readonly subject: string | null;
}

/** What every settled gate call says, in the verdict and in its audit record alike. */
export interface GateFacts {
  /** Whether the call may run. */
  readonly allowed: boolean;
  /** How it was settled (the closed set `GATE_SOURCES`). */
  readonly source: GateSource;
  /** True whenever the Asker was invoked — also when it then threw, or the deadline fired. */
  readonly asked: boolean;
  /** The Decision's `kind` when the Asker answered one with a string kind; otherwise `null`. */
  readonly kind: string | null;
  /** Who decided, as the Asker established it (the terminal's OS user, an inbox session), when a person did; otherwise `null`. */
  readonly actor: string | null;
  /**
   * Present only when the decider also gave a name nothing checked (the
   * inbox page's name field): that name, self-declared — never a proof of
   * who decided; `actor` is. Absent otherwise, so records without one are
   * unchanged.
   */
  readonly claimedActor?: string;
  /** Why, in words. For a denial, the text a Claude CLI reads (a reviewer's note verbatim, when there is one). Unredacted. */
  readonly reason: string;
}

/**
 * One settled call (frozen). Held in memory (`ApprovalServer.decisions`,
 * `approvalGuard(...).decisions`), written as one JSONL line by an audit
 * sink, and broadcast as `gate.check` without `arguments`/`updatedArguments`.
 *
 * Security: `reason` is unredacted text from outside this library (a
 * reviewer's note, the message of an exception your Asker threw) and IS
 * broadcast. Nothing here redacts anything; plan retention accordingly.
 */
export interface GateRecord extends GateFacts {
  /** The tool as the asking side named it (`deploy`, `Write`, `mcp__engine__deploy`). */
  readonly tool: string;
  /** The tool-use id, when the asking side sent one; otherwise `null`. */
  readonly id: string | null;
  /**
   * The id of the question put to the Asker for this call — the same string
   * the Asker got as `AskOptions.questionId` — or `null` where no person
   * could be asked (`auto_allow`, `autonomy`, no Asker, abandoned before asking).
   */
  readonly questionId: string | null;
  /** Which entry point asked (`react`, `approval_server`, `mcp_guard`, `claude_hook`). */
  readonly via: GateVia;
  /**
   * Present only for a call that came through a hosted router
   * (`arc-agentkit/express`): the token's client and end user. Absent
   * otherwise, so other records are unchanged.
   */
  readonly caller?: GateCaller;
  /** The arguments as asked about (the original input, never the edited one). */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** When it was settled, ISO 8601. */
  readonly at: string;
  /** Present only when a `modify` answer allowed the call with edited arguments: what runs instead. */
  readonly updatedArguments?: Readonly<Record<string, unknown>>;
}

/** The `gate.check` event's data: the record without the arguments. */
export type GateCheck = Omit<GateRecord, "arguments" | "updatedArguments">;

/** Anything events can be emitted on (a `RunContext` will do). */
export interface GateEventTarget {
  /** Emits `event` with `data` (the gate emits `gate.check`). */
  emit(event: string, data: Record<string, unknown>): void;
}

/** The `gate.check` payload of `record` (frozen): every field but `arguments` and `updatedArguments`. */
export function gateCheckOf(record: GateRecord): GateCheck {
  const { arguments: _args, updatedArguments: _updated, ...check } = record;
  return Object.freeze(check);
}

/** Emit `gate.check` for `record` on `target`, best-effort: a target that throws is ignored. Never throws. */
export function emitGateCheck(target: GateEventTarget | undefined, record: GateRecord): void {
  if (!target) return;
  try {
    target.emit("gate.check", gateCheckOf(record));
  } catch {
    // a refusal that happened matters more than a record of it that did not
  }
}
