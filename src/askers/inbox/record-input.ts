/**
 * @module askers/inbox/record-input
 * What the inbox stores (memory, PGlite, PostgreSQL) accept as call records,
 * changes and answers: the checks of `records/call-record-checks`, refused
 * the same way by every store, as `InboxError` (code `inbox_store`) `invalid` naming the
 * operation, the record and the field.
 */
import type { CallAnswer, CallChange, CallRecord } from "../../contracts/call-record.js";
import { callAnswerProblem, callChangeProblem, callRecordProblem, countProblem } from "../../records/call-record-checks.js";
import type { InboxError } from "./inbox.error.js";
import { inboxStoreError } from "./inbox-store.error.js";

const invalid = (what: string, problem: string, cause?: unknown): InboxError =>
  inboxStoreError("invalid", `${what} refused: ${problem}`, cause === undefined ? undefined : { cause });

const idOf = (record: unknown): string => {
  const id = (record as { id?: unknown } | null)?.id;
  return typeof id === "string" ? ` '${id.slice(0, 40)}'` : "";
};

/** @throws InboxError (code `inbox_store`) `invalid` when `record` is not a storable `CallRecord`. */
export function checkRecord(record: CallRecord): void {
  const problem = callRecordProblem(record);
  if (problem) throw invalid(`createRecord${idOf(record)}`, problem);
}

/** @throws InboxError (code `inbox_store`) `invalid` when `version` or `change` is not accepted by `updateRecord`. */
export function checkChange(id: string, version: number, change: CallChange): void {
  const problem = countProblem("version", version) ?? callChangeProblem(change);
  if (problem) throw invalid(`updateRecord '${String(id).slice(0, 40)}'`, problem);
}

/** @throws InboxError (code `inbox_store`) `invalid` when `round` or `answer` is not accepted by `answerRecord`. */
export function checkAnswer(id: string, round: number, answer: CallAnswer): void {
  const problem = countProblem("round", round) ?? callAnswerProblem(answer);
  if (problem) throw invalid(`answerRecord '${String(id).slice(0, 40)}'`, problem);
}

/** @throws InboxError (code `inbox_store`) `invalid` when `now` (of `expireRecords`) is not a valid Date. */
export function checkExpiry(now: Date): void {
  if (!(now instanceof Date) || Number.isNaN(now.getTime()))
    throw invalid("expireRecords", `'now' must be a valid Date, got ${String(now)}`);
}

/** The error of `what` (`createRecord '<id>'`) when the record's id is already in the store (whoever's record it is). */
export function duplicateRecord(what: string, cause?: unknown): InboxError {
  return invalid(what, "a call record with this id already exists; each record needs a fresh id (≥ 128 random bits)", cause);
}
