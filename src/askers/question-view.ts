/**
 * @module askers/question-view
 * Pure text for a question on the terminal: the header, the pretty-printed
 * arguments, the countdown and the details. No I/O, no prompt library, so it
 * is tested on its own.
 */
import type { Elicitation } from "../agents/elicitation.js";

/** Arguments longer than this many lines are cut in the main view; "details" shows them whole. */
export const MAX_ARGUMENT_LINES = 20;

/** What the view needs besides the question itself. */
export interface QuestionState {
  /** `Date.now()` at render time. */
  readonly now: number;
  /** When the asking side's deadline fires (epoch ms), if it has one. */
  readonly deadlineAt?: number;
  /** How many questions wait behind this one. */
  readonly queued: number;
  /** Whether the person asked for the details. */
  readonly details: boolean;
}

/** `m:ss` (or `h:mm:ss`) left until `deadlineAt`, never negative. */
export function timeLeft(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** The tool name a question is about, or `"(no tool)"` for a plain question. */
export function toolName(request: Elicitation): string {
  return request.toolCall?.name ?? "(no tool)";
}

/** The arguments of the question's tool call (`{}` when there is none). */
export function toolArguments(request: Elicitation): Record<string, unknown> {
  const args = request.toolCall?.arguments;
  return args && typeof args === "object" ? args : {};
}

/** The header and body lines of one question (without the menu). */
export function questionLines(request: Elicitation, state: QuestionState): string[] {
  const queued = state.queued > 0 ? `  (${state.queued} more queued)` : "";
  const left = state.deadlineAt === undefined ? "no deadline" : `time left ${timeLeft(state.deadlineAt - state.now)}`;
  const lines = [
    `Approve tool call: ${toolName(request)}${queued}`,
    `  from ${request.source ?? "an unnamed source"} · ${left}`,
    "  arguments:",
  ];
  const json = JSON.stringify(toolArguments(request), null, 2).split("\n");
  const shown = state.details ? json : json.slice(0, MAX_ARGUMENT_LINES);
  lines.push(...shown.map((l) => `    ${l}`));
  if (shown.length < json.length) lines.push(`    … ${json.length - shown.length} more lines (d: details)`);
  if (state.details) lines.push(...detailLines(request, state));
  return lines;
}

function detailLines(request: Elicitation, state: QuestionState): string[] {
  const deadline = state.deadlineAt === undefined ? "none (the asking side waits forever)" : new Date(state.deadlineAt).toISOString();
  return [
    "  details:",
    `    question: ${request.question}`,
    `    call id: ${request.toolCall?.id ?? "(none)"}`,
    `    source: ${request.source ?? "(none)"}`,
    `    timeout: ${request.timeoutMs === undefined ? "none" : `${request.timeoutMs} ms`} · deadline ${deadline}`,
  ];
}

/** The outcome of reading edited arguments: a JSON object, or the reason it is not one. */
export type ParsedArguments = { readonly ok: true; readonly value: Record<string, unknown> } | { readonly ok: false; readonly error: string };

/** Parses edited text; only a JSON object is accepted (not an array, string, number or null). */
export function parseArguments(text: string): ParsedArguments {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `not valid JSON: ${(err as Error).message}. The arguments must be a JSON object, e.g. {"path": "a.txt"}` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const got = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return { ok: false, error: `not a JSON object: got ${got}. The arguments must be a JSON object, e.g. {"path": "a.txt"}` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}
