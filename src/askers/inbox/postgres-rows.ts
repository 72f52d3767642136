/**
 * @module askers/inbox/postgres-rows
 * The PostgreSQL inbox's rows as the store's records, and the SQL that
 * announces a changed row. Rows are read as JSON (`row_to_json`), so
 * timestamps arrive as strings and bigints as numbers; both read the same here.
 *
 * A notification is a wake-up only: LISTEN and NOTIFY need no rights on the
 * tables, so any login may listen to a channel or send on it. It carries the
 * row's kind, id and change number, nothing a reader decides on; the
 * listener reads the row itself, with its own login's rights.
 */
import type { ToolFacts } from "../../contracts/elicitation.js";
import type { GateSource } from "../../gate/gate-source.js";
import type { InboxAnswer, QuestionStatus, StoredDecision, StoredQuestion } from "./inbox-store.js";
import { channelOf, workerChannelSql } from "./postgres-schema.js";

type Row = Record<string, unknown>;

/** The asking process's display name on a question (the page's field, when the question carries one). */
export type WithWorkerName = { readonly workerName?: string };

const iso = (v: unknown): string => new Date(v as string | Date).toISOString();
const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** The sequence number of a row's last change. */
export const changedOf = (r: Row): number => Number(r.changed);

/** A `questions` row as a `StoredQuestion`. */
export function questionOf(r: Row): StoredQuestion {
  const q: StoredQuestion & WithWorkerName = {
    id: String(r.id),
    callId: text(r.call_id),
    tool: String(r.tool),
    arguments: (r.arguments ?? {}) as Record<string, unknown>,
    question: String(r.question),
    ...(r.tool_facts && typeof r.tool_facts === "object" ? { toolFacts: r.tool_facts as ToolFacts } : {}),
    source: text(r.source),
    from: String(r.from_),
    askedAt: iso(r.asked_at),
    deadlineAt: r.deadline_at === null || r.deadline_at === undefined ? null : iso(r.deadline_at),
    status: String(r.status) as QuestionStatus,
    worker: String(r.worker),
    ...(r.answer ? { answer: r.answer as InboxAnswer } : {}),
    ...(r.settled_at ? { settledAt: iso(r.settled_at) } : {}),
    ...(typeof r.reason === "string" ? { reason: r.reason } : {}),
    ...(typeof r.worker_name === "string" ? { workerName: r.worker_name } : {}),
  };
  return Object.freeze(q);
}

/** A `decisions` row as a `StoredDecision`. */
export function decisionOf(r: Row): StoredDecision {
  return Object.freeze({
    id: String(r.id),
    tool: String(r.tool),
    allowed: r.allowed === true,
    source: String(r.source) as GateSource,
    asked: r.asked === true,
    actor: text(r.actor),
    ...(typeof r.claimed_actor === "string" ? { claimedActor: r.claimed_actor } : {}),
    reason: String(r.reason),
    at: iso(r.at),
    from: String(r.from_),
    confirmed: r.confirmed === true,
  });
}

/**
 * What a change notification says: which row (`q` a question, `d` a decision, `r` a call record), and its change
 * number. Anything else is dropped.
 */
export interface Wakeup {
  readonly kind: "q" | "d" | "r";
  readonly id: string;
  readonly changed: number;
}

/**
 * A notification's payload as a `Wakeup`, or `undefined` when it is not one (anyone may NOTIFY: nothing in it is
 * trusted beyond "look at this row").
 */
export function wakeupOf(payload: string | undefined): Wakeup | undefined {
  if (!payload || payload.length > 1000) return undefined;
  try {
    const m = JSON.parse(payload) as { k?: unknown; id?: unknown; c?: unknown };
    if ((m.k !== "q" && m.k !== "d" && m.k !== "r") || typeof m.id !== "string" || m.id.length > 500) return undefined;
    return { kind: m.k, id: m.id, changed: typeof m.c === "number" && Number.isFinite(m.c) ? m.c : Number.MAX_SAFE_INTEGER };
  } catch {
    return undefined;
  }
}

/**
 * `SELECT` over the rows a data-modifying CTE (`from`, default `hit`)
 * returned: the row, `kind`, and a wake-up (kind, id, change number) on the
 * page's channel of `schema`; with `worker`, also on the channel of the
 * process that asked (a question settled: its worker is waiting for it).
 */
export function announce(kind: "q" | "d", schema: string, options: { readonly from?: string; readonly worker?: boolean } = {}): string {
  const from = options.from ?? "hit";
  const wake = `json_build_object('k', '${kind}', 'id', ${from}.id, 'c', ${from}.changed)::text`;
  // the same columns either way, so two announcements can be joined with UNION ALL
  const worker = options.worker ? `pg_notify(${workerChannelSql(schema, `${from}.owner`, `${from}.worker`)}, ${wake})::text` : "NULL::text";
  return (
    `SELECT '${kind}' AS kind, row_to_json(${from}) AS row, pg_notify('${channelOf(schema)}', ${wake})::text AS ` +
    `page, ${worker} AS worker FROM ${from}`
  );
}
