/**
 * @module gate/decision-table
 * The decision table: how an Asker's answer (or its absence) becomes a
 * verdict and its audit record. Pure and synchronous; nothing here throws.
 */
import type { Autonomy } from "../context/run-context.js";
import { deepFreeze, describeValue, errorLine, pyStr, seconds } from "../util/format.js";
import type { GateCaller, GateFacts, GateRecord } from "./gate-record.js";
import type { GateVia } from "./gate-source.js";
import { plainJsonObject } from "./json-object.js";

/** What a verdict is about: one call, as the asking side named it. */
export interface GateSubject {
  /** The tool's name as the asking side spells it (`deploy`, `Write`, `mcp__engine__deploy`). */
  readonly tool: string;
  /** The arguments it would run with (a JSON object). */
  readonly arguments: Record<string, unknown>;
  /** The tool-use id, when the asking side has one. */
  readonly id?: string;
  /** Who is asking. */
  readonly via: GateVia;
  /** The id the Asker was handed with the question (`AskOptions.questionId`); recorded only when someone was asked. */
  readonly questionId?: string | null;
  /** The authenticated caller of a hosted call (`arc-agentkit/express`); recorded when present. */
  readonly caller?: GateCaller;
}

/** The settled outcome of one gated call (frozen), with its audit record. */
export interface GateVerdict extends GateFacts {
  /** For a denial: who refused and why, as one phrase (`rejected by ops: not today`); equals `reason` otherwise. */
  readonly refusal: string;
  /** What runs when allowed: the original arguments, or a `modify` answer's checked copy. */
  readonly arguments: Record<string, unknown>;
  /** True when a `modify` answer replaced the arguments. */
  readonly modified: boolean;
  /** The audit record (frozen), `gate.check` minus nothing but the arguments. */
  readonly record: GateRecord;
}

type Fields = Pick<GateVerdict, "allowed" | "source" | "asked" | "reason"> &
  Partial<Pick<GateVerdict, "kind" | "actor" | "refusal" | "arguments" | "modified">> & { readonly claimedActor?: string | null };

function frozenCopy(value: Record<string, unknown>): Readonly<Record<string, unknown>> {
  try {
    return deepFreeze(structuredClone(value));
  } catch {
    return Object.freeze({ ...value });
  }
}

/** Build the frozen verdict and its record. */
export function verdictOf(subject: GateSubject, f: Fields): GateVerdict {
  const modified = f.allowed && f.modified === true;
  const facts: GateFacts = {
    allowed: f.allowed,
    source: f.source,
    asked: f.asked,
    kind: f.kind ?? null,
    actor: f.actor ?? null,
    ...(f.claimedActor ? { claimedActor: f.claimedActor } : {}),
    reason: f.reason,
  };
  const record: GateRecord = Object.freeze({
    tool: subject.tool,
    id: subject.id ?? null,
    // Someone was asked here, or (answeredVerdict) at another seam: then the record keeps that question's id.
    questionId: f.asked || f.source === "asker" ? (subject.questionId ?? null) : null,
    via: subject.via,
    ...(subject.caller ? { caller: Object.freeze({ ...subject.caller }) } : {}),
    arguments: frozenCopy(subject.arguments),
    ...facts,
    at: new Date().toISOString(),
    ...(modified ? { updatedArguments: frozenCopy(f.arguments!) } : {}),
  });
  return Object.freeze({
    ...facts,
    refusal: f.refusal ?? f.reason,
    arguments: modified ? f.arguments! : subject.arguments,
    modified,
    record,
  });
}

/** A denial that is not a policy decision (source `error`). */
export function errorVerdict(subject: GateSubject, why: string, asked: boolean): GateVerdict {
  return verdictOf(subject, {
    allowed: false,
    source: "error",
    asked,
    reason: `approval for ${pyStr(subject.tool)} failed: ${why}; denied (not a policy decision)`,
  });
}

/** The gate's own deadline fired (source `timeout`, asked). */
export function timeoutVerdict(subject: GateSubject, timeoutMs: number): GateVerdict {
  const reason =
    `approval for ${pyStr(subject.tool)} timed out: nobody answered within ${seconds(timeoutMs)}; denied (a timeout, ` + `not a refusal)`;
  return verdictOf(subject, { allowed: false, source: "timeout", asked: true, reason });
}

/** The client the answer was for stopped waiting before anyone answered (source `timeout`, asked): a timeout on its side, not a refusal. */
export function gaveUpVerdict(subject: GateSubject, gaveUp: string): GateVerdict {
  const reason =
    `approval for ${pyStr(subject.tool)} timed out: ${gaveUp} before anyone answered; the call is gone, denied (a ` +
    `timeout, not a refusal)`;
  return verdictOf(subject, { allowed: false, source: "timeout", asked: true, reason });
}

/** A verdict nobody was asked for: pre-approved (`auto_allow`) or not gated by the tier (`autonomy`). */
export function unaskedVerdict(subject: GateSubject, source: "auto_allow" | "autonomy", autonomy: Autonomy): GateVerdict {
  const reason =
    source === "auto_allow"
      ? `${pyStr(subject.tool)} is in autoAllow; no one was asked`
      : `autonomy ${JSON.stringify(autonomy)} does not gate ${pyStr(subject.tool)}; no one was asked`;
  return verdictOf(subject, { allowed: true, source, asked: false, reason });
}

/**
 * A call another seam already put to a person (the same tool-use id, the
 * same arguments): allowed with that answer's facts — source, kind, actor and
 * `questionId` — and `asked: false`, since nobody was asked again. Only an
 * allowing record may be reused.
 */
export function answeredVerdict(subject: GateSubject, earlier: GateRecord): GateVerdict {
  const reason = `${earlier.reason} (answered once, at the ${earlier.via} prompt for this tool use)`;
  return verdictOf(
    { ...subject, questionId: earlier.questionId },
    {
      allowed: true,
      source: earlier.source,
      asked: false,
      kind: earlier.kind,
      actor: earlier.actor,
      claimedActor: earlier.claimedActor,
      reason,
    },
  );
}

/** How much of a `Decision.claimedActor` the record keeps (it is self-declared text, shown to people). */
const CLAIMED_ACTOR_MAX = 100;

/** A Decision's fields, each read once. */
interface ReadDecision {
  readonly kind: unknown;
  readonly actor: string | null;
  readonly claimedActor: string | null;
  readonly note: string | null;
  readonly value: unknown;
}

function readDecision(d: object): ReadDecision {
  const { kind, actor, claimedActor, note, value } = d as Record<string, unknown>;
  const claimed = typeof claimedActor === "string" ? claimedActor.trim().slice(0, CLAIMED_ACTOR_MAX) : "";
  return {
    kind,
    actor: typeof actor === "string" && actor !== "" ? actor : null,
    claimedActor: claimed || null,
    note: typeof note === "string" && note !== "" ? note : null,
    value,
  };
}

/**
 * Map an Asker's answer onto a verdict, by the seed's table: `approve` allows
 * with the original arguments; `modify` with a plain JSON object `value`
 * allows with a checked copy of it (anything else — a `Date`, a `BigInt`, a
 * cycle, an array — denies, naming why); `expired` denies naming the
 * deadline; `reject` and any other kind deny with the note (a message naming
 * who and the kind when there is none). Source `asker` for all of these. A
 * value that is not a Decision, or one whose fields throw when read, is a
 * deny with source `error` — asked, since the Asker was called. Never throws.
 */
export function verdictFromDecision(
  decision: unknown,
  subject: GateSubject,
  timeoutMs: number | undefined,
  answerer = "the Asker",
): GateVerdict {
  try {
    return tableVerdict(decision, subject, timeoutMs, answerer);
  } catch (err) {
    // describeValue() of a hostile kind can throw; the table still answers.
    return errorVerdict(subject, `${answerer}'s Decision could not be read: ${errorLine(err)}`, true);
  }
}

function tableVerdict(decision: unknown, subject: GateSubject, timeoutMs: number | undefined, answerer: string): GateVerdict {
  if (!decision || typeof decision !== "object") {
    return errorVerdict(subject, `${answerer} returned ${describeValue(decision)} instead of a Decision`, true);
  }
  let d: ReadDecision;
  try {
    d = readDecision(decision);
  } catch (err) {
    return errorVerdict(subject, `reading ${answerer}'s Decision threw ${errorLine(err)}`, true);
  }
  const kind = typeof d.kind === "string" ? d.kind : null;
  const who = d.actor ?? "the reviewer";
  const base = { source: "asker" as const, asked: true, actor: d.actor, claimedActor: d.claimedActor, kind };
  const tool = pyStr(subject.tool);
  if (d.kind === "approve")
    return verdictOf(subject, { ...base, allowed: true, reason: `approved by ${who}${d.note ? `: ${d.note}` : ""}` });
  if (d.kind === "modify") {
    const checked = plainJsonObject(d.value);
    if (checked.ok) {
      return verdictOf(subject, {
        ...base,
        allowed: true,
        arguments: checked.value,
        modified: true,
        reason: `approved with changes by ${who}${d.note ? `: ${d.note}` : ""}`,
      });
    }
    return verdictOf(subject, {
      ...base,
      allowed: false,
      reason: `denied: 'modify' from ${who} carried no plain JSON object to run with (${checked.why})${d.note ? ` (${d.note})` : ""}`,
    });
  }
  if (d.kind === "expired") {
    const deadline = timeoutMs === undefined ? "the Asker's own deadline (no timeoutMs is set)" : `the ${seconds(timeoutMs)} deadline`;
    return verdictOf(subject, {
      ...base,
      allowed: false,
      reason: `approval for ${tool} expired: nobody answered before ${deadline}${d.note ? ` (${d.note})` : ""}`,
    });
  }
  const why = d.note ? `: ${d.note}` : "";
  if (d.kind === "reject")
    return verdictOf(subject, { ...base, allowed: false, reason: d.note ?? `rejected by ${who}`, refusal: `rejected by ${who}${why}` });
  const shown = describeValue(d.kind);
  return verdictOf(subject, {
    ...base,
    allowed: false,
    reason: d.note ?? `denied: ${who} answered with decision kind ${shown}, which is neither approve nor modify`,
    refusal: `refused by ${who} (decision kind ${shown})${why}`,
  });
}

/**
 * What a tool-result reader (the model in a ReAct loop, an MCP client of a
 * guarded tool) is told for a denial: `tool 'deploy' was not run: rejected by ops: not today`.
 */
export function notRunMessage(name: string, verdict: Pick<GateVerdict, "refusal">): string {
  return `tool ${pyStr(name)} was not run: ${verdict.refusal}`;
}

/** A decision reduced to what the caller does: run (with which arguments) or refuse (with which words). */
export type GateOutcome =
  | { readonly allowed: true; readonly arguments: Record<string, unknown>; readonly modified: boolean }
  | { readonly allowed: false; readonly reason: string };

/**
 * The decision table as a synchronous function (the engine's, without the
 * asking): `approve` runs with `original`; `modify` with a plain JSON object
 * runs with a checked copy of it; anything else refuses, with the words a
 * tool-result reader sees (`tool 'deploy' was not run: rejected by ci: /etc
 * is out of scope`). Default deny: something that is not a Decision refuses
 * too. Never throws.
 */
export function decisionOutcome(decision: unknown, original: Record<string, unknown>, toolName: string): GateOutcome {
  const v = verdictFromDecision(decision, { tool: toolName, arguments: original, via: "react" }, undefined);
  return v.allowed
    ? { allowed: true, arguments: v.arguments, modified: v.modified }
    : { allowed: false, reason: notRunMessage(toolName, v) };
}
