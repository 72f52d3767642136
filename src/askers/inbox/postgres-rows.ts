/**
 * @module askers/inbox/postgres-rows
 * The PostgreSQL inbox's rows as the store's records, and the SQL that
 * announces a changed row. A row arrives two ways: from a query (timestamps
 * as `Date`, bigints as strings) and inside a notification's JSON
 * (timestamps as strings, bigints as numbers); both read the same here.
 */
import type { GateSource } from "../../gate/gate-source.js";
import type { InboxAnswer, QuestionStatus, StoredDecision, StoredQuestion } from "./inbox-store.js";

type Row = Record<string, unknown>;

const iso = (v: unknown): string => new Date(v as string | Date).toISOString();
const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** The sequence number of a row's last change. */
export const changedOf = (r: Row): number => Number(r.changed);

/** A `questions` row as a `StoredQuestion`. */
export function questionOf(r: Row): StoredQuestion {
  const q: StoredQuestion = {
    id: String(r.id),
    callId: text(r.call_id),
    tool: String(r.tool),
    arguments: (r.arguments ?? {}) as Record<string, unknown>,
    question: String(r.question),
    source: text(r.source),
    from: String(r.from_),
    askedAt: iso(r.asked_at),
    deadlineAt: r.deadline_at === null || r.deadline_at === undefined ? null : iso(r.deadline_at),
    status: String(r.status) as QuestionStatus,
    worker: String(r.worker),
    ...(r.answer ? { answer: r.answer as InboxAnswer } : {}),
    ...(r.settled_at ? { settledAt: iso(r.settled_at) } : {}),
    ...(typeof r.reason === "string" ? { reason: r.reason } : {}),
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
    reason: String(r.reason),
    at: iso(r.at),
    from: String(r.from_),
    confirmed: r.confirmed === true,
  });
}

/**
 * `SELECT` over the rows a data-modifying CTE (`from`, default `hit`)
 * returned: one `pg_notify` each, the row, and `kind`. The notification
 * carries the whole row when it fits PostgreSQL's payload limit (8000
 * bytes), else only its id and change number (the listener then reads the row).
 */
export function announce(kind: "q" | "d", channel: string, from = "hit"): string {
  const full = `json_build_object('k', '${kind}', 'row', row_to_json(${from}))::text`;
  const short = `json_build_object('k', '${kind}', 'id', ${from}.id, 'c', ${from}.changed)::text`;
  return `SELECT '${kind}' AS kind, row_to_json(${from}) AS row, pg_notify('${channel}', CASE WHEN octet_length(${full}) < 7900 THEN ${full} ELSE ${short} END) FROM ${from}`;
}
