/**
 * @module records/call-record-checks
 * What a `CallRecordStore` accepts, checked before anything is stored: a
 * record, a change and an answer of the shapes `contracts/call-record`
 * declares (plain JSON), with no field a store would drop. Each check is a
 * pure function returning why the value is refused (naming the field, what
 * was given and what is accepted), or `undefined` when it is accepted; every
 * store refuses the same values with the same words.
 */
import type { CallAnswer, CallChange, CallRecord, CallStatus } from "../contracts/call-record.js";

/** Every status, in the contract's order. */
export const CALL_STATUSES: readonly CallStatus[] = ["working", "input_required", "completed", "failed", "cancelled"];

/** The longest record id a store takes (ids are 24 characters; a wake-up carries at most 500). */
export const MAX_RECORD_ID = 200;

const QUESTION_METHODS: ReadonlyArray<CallQuestionMethod> = ["elicitation/create", "sampling/createMessage"];
type CallQuestionMethod = CallAnswer["method"];

/** One field's rule: whether a value passes, and what is accepted, in words. */
interface FieldRule {
  readonly ok: (v: unknown) => boolean;
  readonly accepted: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const count = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
const nonEmpty = (v: unknown): boolean => typeof v === "string" && v.length > 0;
const isoDate = (v: unknown): boolean => typeof v === "string" && !Number.isNaN(Date.parse(v));

const rule = (ok: (v: unknown) => boolean, accepted: string): FieldRule => ({ ok, accepted });

/** One question's own fields (`key`, `method`, `params`, `questionId?`). */
const oneQuestion = (v: unknown): v is Record<string, unknown> =>
  isObject(v) &&
  nonEmpty(v.key) &&
  QUESTION_METHODS.includes(v.method as CallQuestionMethod) &&
  isObject(v.params) &&
  (v.questionId === undefined || typeof v.questionId === "string");

/** A question, and the others open with it: each a question without `others`, every key distinct. */
const questionRule = rule((v) => {
  if (!oneQuestion(v)) return false;
  if (v.others === undefined) return true;
  if (!Array.isArray(v.others) || v.others.length === 0 || !v.others.every((o) => oneQuestion(o) && o.others === undefined)) return false;
  const keys = [v.key, ...v.others.map((o: Record<string, unknown>) => o.key)];
  return new Set(keys).size === keys.length;
}, "a question { key, method ('elicitation/create' or 'sampling/createMessage'), params: an object, questionId?, others?: a non-empty array of such questions (no others of their own), every key distinct }");

/** `{ key, method, value, by }`: why `v` is not an answer, or undefined. */
function answerShapeProblem(v: unknown): string | undefined {
  if (!isObject(v)) return `an answer must be an object { key, method, value, by }, got ${describe(v)}`;
  if (!nonEmpty(v.key)) return `an answer's 'key' must be a non-empty string, got ${describe(v.key)}`;
  if (!QUESTION_METHODS.includes(v.method as CallQuestionMethod))
    return `an answer's 'method' must be 'elicitation/create' or 'sampling/createMessage', got ${describe(v.method)}`;
  if (typeof v.by !== "string") return `an answer's 'by' must be a string (who answered, in words), got ${describe(v.by)}`;
  const extra = Object.keys(v).filter((k) => !["key", "method", "value", "by"].includes(k));
  return extra.length
    ? `an answer has unknown field(s) ${extra.map((k) => `'${k}'`).join(", ")}; accepted: key, method, value, by`
    : undefined;
}

/** The rule of each field a record has; the changeable ones are the keys of `CallChange`. */
const FIELDS: Readonly<Record<keyof CallRecord, FieldRule>> = {
  id: rule((v) => nonEmpty(v) && (v as string).length <= MAX_RECORD_ID, `a non-empty string of at most ${MAX_RECORD_ID} characters`),
  kind: rule((v) => v === "task" || v === "rounds", "'task' or 'rounds'"),
  owner: rule(nonEmpty, "a non-empty string (the caller's binding)"),
  server: rule(nonEmpty, "a non-empty string (the served module's name)"),
  tool: rule(nonEmpty, "a non-empty string (the tool's served name)"),
  arguments: rule(isObject, "an object (the call's arguments)"),
  status: rule((v) => CALL_STATUSES.includes(v as CallStatus), CALL_STATUSES.map((s) => `'${s}'`).join(", ")),
  statusMessage: rule((v) => typeof v === "string", "a string"),
  started: rule((v) => typeof v === "boolean", "true or false"),
  round: rule(count, "a whole number ≥ 0"),
  question: questionRule,
  answers: rule(
    (v) => Array.isArray(v) && v.every((a) => answerShapeProblem(a) === undefined),
    "an array of answers { key, method, value, by }",
  ),
  result: rule(isObject, "an object (a CallToolResult)"),
  error: rule(
    (v) => isObject(v) && Number.isSafeInteger(v.code) && typeof v.message === "string",
    "a JSON-RPC error { code: an integer, message: a string, data? }",
  ),
  cancelRequested: rule((v) => typeof v === "boolean", "true or false"),
  worker: rule((v) => typeof v === "string", "a string (the process running the call)"),
  createdAt: rule(isoDate, "an ISO 8601 date"),
  lastUpdatedAt: rule(isoDate, "an ISO 8601 date"),
  ttlMs: rule((v) => v === null || count(v), "null (kept until deleted) or a whole number of ms ≥ 0"),
  pollIntervalMs: rule(count, "a whole number of ms ≥ 0"),
  version: rule(count, "a whole number ≥ 0"),
};

/** The fields a record may leave out (`undefined`); a change that sets one to `undefined` clears it. */
const OPTIONAL: ReadonlySet<string> = new Set<keyof CallRecord>(["statusMessage", "question", "result", "error"]);

/** The fields `CallChange` may set. */
export const CHANGEABLE_FIELDS: readonly (keyof CallChange)[] = [
  "status",
  "statusMessage",
  "started",
  "round",
  "question",
  "answers",
  "result",
  "error",
  "cancelRequested",
  "worker",
  "pollIntervalMs",
];

/** A value in a message: JSON, cut at 80 characters. */
function describe(v: unknown): string {
  if (v === undefined) return "undefined";
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** The fields holding free JSON (a database stores them as JSON: a value JSON cannot write is refused). */
const JSON_FIELDS: ReadonlySet<string> = new Set<keyof CallRecord>(["arguments", "question", "answers", "result", "error"]);

/** Why `value` cannot be written as JSON a database keeps (a BigInt, a cycle, a NUL character), or undefined. */
function jsonProblem(value: unknown): string | undefined {
  let nul = false;
  try {
    // PostgreSQL's jsonb (and text) cannot hold U+0000: refused here by every store alike
    JSON.stringify(value, (key: string, v: unknown) => ((nul ||= key.includes("\0") || (typeof v === "string" && v.includes("\0"))), v));
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  return nul ? "a string holds a NUL character (\\u0000), which PostgreSQL cannot store" : undefined;
}

/** Why `value` is refused as field `name` (`undefined` for an optional field is accepted), or undefined. */
function fieldProblem(name: string, value: unknown): string | undefined {
  const r = FIELDS[name as keyof CallRecord];
  if (!r) return undefined;
  if (value === undefined && OPTIONAL.has(name)) return undefined;
  if (name === "answers" && Array.isArray(value)) {
    const bad = value.map(answerShapeProblem).findIndex((p) => p !== undefined);
    if (bad >= 0) return `'answers[${bad}]': ${answerShapeProblem(value[bad])}`;
  }
  if (!r.ok(value)) return `'${name}' must be ${r.accepted}, got ${describe(value)}`;
  const notJson = JSON_FIELDS.has(name) ? jsonProblem(value) : undefined;
  return notJson ? `'${name}' is not plain JSON (${notJson})` : undefined;
}

/** Names in `keys` that are not in `accepted`, as a sentence, or undefined. */
function unknownKeys(keys: readonly string[], accepted: readonly string[], what: string): string | undefined {
  const extra = keys.filter((k) => !accepted.includes(k));
  return extra.length ? `unknown field(s) ${extra.map((k) => `'${k}'`).join(", ")}; ${what}: ${accepted.join(", ")}` : undefined;
}

/** Why `record` cannot be stored as a `CallRecord` (the first problem, naming the field), or undefined. */
export function callRecordProblem(record: unknown): string | undefined {
  if (!isObject(record)) return `a call record must be an object, got ${describe(record)}`;
  const names = Object.keys(FIELDS);
  const extra = unknownKeys(Object.keys(record), names, "the fields of a call record");
  if (extra) return extra;
  for (const name of names) {
    const p = fieldProblem(name, record[name]);
    if (p) return p;
  }
  return undefined;
}

/** Why `change` cannot be applied as a `CallChange` (an unknown or unchangeable field, a value of the wrong kind), or undefined. */
export function callChangeProblem(change: unknown): string | undefined {
  if (!isObject(change)) return `a change must be an object of the fields to set, got ${describe(change)}`;
  const extra = unknownKeys(Object.keys(change), CHANGEABLE_FIELDS, "a change may set");
  if (extra) return extra;
  for (const [name, value] of Object.entries(change)) {
    const p = fieldProblem(name, value);
    if (p) return p;
  }
  return undefined;
}

/** Why `answer` is not a `CallAnswer`, or undefined. */
export function callAnswerProblem(answer: unknown): string | undefined {
  return answerShapeProblem(answer);
}

/** Why argument `name` (`round`, `version`) is not a whole number ≥ 0, or undefined. */
export function countProblem(name: string, value: unknown): string | undefined {
  return count(value) ? undefined : `'${name}' must be a whole number ≥ 0, got ${describe(value)}`;
}
