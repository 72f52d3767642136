/**
 * @module askers/question-view
 * Pure text for a question on the terminal: the header, the pretty-printed
 * arguments (or a form's fields, or a link and its host), the countdown and
 * the details. Everything taken from the question is made visible (see
 * util/visible-text). No I/O, no prompt library, so it is tested on its own.
 */
import type { Elicitation } from "../contracts/elicitation.js";
import { clipMiddle, visible } from "../util/visible-text.js";
import { formFields, formValues, type FormValues } from "../agents/form-fields.js";

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
  /** Whether the person asked for the details (and every line whole). */
  readonly details: boolean;
  /** A form's values as currently shown (default: the schema's defaults). */
  readonly values?: FormValues;
}

/** `m:ss` (or `h:mm:ss`) left until `deadlineAt`, never negative. */
export function timeLeft(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** What a question asks of the person. */
export type QuestionKind = "tool" | "form" | "link" | "question";

/** The subject a form-mode elicitation is stored under (it has no tool). */
export const FORM_SUBJECT = "elicitation/create (form)";
/** The subject a URL-mode elicitation is stored under (it has no tool). */
export const LINK_SUBJECT = "elicitation/create (link)";

/** Whether `request` approves a tool call, fills a form, opens a link, or is a plain question. */
export function questionKind(request: Elicitation): QuestionKind {
  if (request.toolCall) return "tool";
  if (request.form) return "form";
  if (typeof request.url === "string") return "link";
  return "question";
}

/** The raw subject of a question: the tool name, `FORM_SUBJECT`, `LINK_SUBJECT`, or `"(no tool)"`. Not escaped: see `toolLabel`. */
export function toolName(request: Elicitation): string {
  const kind = questionKind(request);
  if (kind === "tool") return String(request.toolCall!.name);
  return kind === "form" ? FORM_SUBJECT : kind === "link" ? LINK_SUBJECT : "(no tool)";
}

/** The subject made visible and cut to `width` columns (default 60), for lines that name it. */
export function toolLabel(request: Elicitation, width = 60): string {
  return clipMiddle(visible(toolName(request)), width);
}

/**
 * What a question is about, as a JSON object: a tool call's arguments; a
 * form's values as shown (defaults, `null` = empty); a link as `{ url }`;
 * `{}` for a plain question.
 */
export function toolArguments(request: Elicitation): Record<string, unknown> {
  const kind = questionKind(request);
  if (kind === "form") return { ...formValues(request.form?.schema) };
  if (kind === "link") return { url: request.url };
  const args = request.toolCall?.arguments;
  return args && typeof args === "object" ? args : {};
}

/** `value` as pretty JSON with hidden characters escaped as `\\uXXXX` (still valid JSON, the same value when parsed). */
export function visibleJson(value: unknown): string {
  return visible(JSON.stringify(value, null, 2) ?? "null", { style: "json", newlines: true });
}

const HEADLINES: Readonly<Record<QuestionKind, string>> = {
  tool: "Approve tool call: ",
  form: "A server asks you to fill in a form",
  link: "A server asks you to open a link",
  question: "Answer a question",
};

/** The header and body lines of one question (without the menu), made visible but not yet cut to a width. */
export function questionLines(request: Elicitation, state: QuestionState): string[] {
  const kind = questionKind(request);
  const queued = state.queued > 0 ? `  (${state.queued} more queued)` : "";
  const left = state.deadlineAt === undefined ? "no deadline" : `time left ${timeLeft(state.deadlineAt - state.now)}`;
  const from = clipMiddle(visible(request.source ?? "an unnamed source"), 40);
  const head = kind === "tool" ? `${HEADLINES.tool}${toolLabel(request)}` : HEADLINES[kind];
  const lines = [`${head}${queued}`, `  from ${from} · ${left}`];
  if (kind === "tool") lines.push("  arguments:", ...argumentLines(toolArguments(request), state.details));
  else lines.push("  message:", ...indented(request.question, 4));
  if (kind === "form") lines.push(...formLines(request, state.values ?? formValues(request.form?.schema), state.details));
  if (kind === "link") lines.push(...linkLines(String(request.url)));
  if (state.details) lines.push(...detailLines(request, state));
  return lines;
}

function indented(text: unknown, by: number): string[] {
  return visible(String(text ?? ""), { newlines: true })
    .split("\n")
    .map((l) => `${" ".repeat(by)}${l}`);
}

function argumentLines(args: Record<string, unknown>, details: boolean): string[] {
  const json = visibleJson(args).split("\n");
  const shown = details ? json : json.slice(0, MAX_ARGUMENT_LINES);
  const lines = shown.map((l) => `    ${l}`);
  if (shown.length < json.length) lines.push(`    … ${json.length - shown.length} more lines (d: details)`);
  return lines;
}

function formLines(request: Elicitation, values: FormValues, details: boolean): string[] {
  const lines = ["  fields (exactly these values are sent; m: edit them):"];
  for (const f of formFields(request.form?.schema)) {
    const v = values[f.name];
    const shown = v === null || v === undefined ? "(empty, not sent)" : visible(JSON.stringify(v));
    const about = [f.type, f.required ? "required" : ""].filter(Boolean).join(", ");
    lines.push(`    ${visible(f.name)} (${about}): ${shown}`);
    if (details && f.title) lines.push(`      title: ${visible(f.title)}`);
    if (details && f.description) lines.push(`      description: ${visible(f.description)}`);
    if (details && f.options) lines.push(`      one of: ${visible(JSON.stringify(f.options))}`);
  }
  if (lines.length === 1) lines.push("    (the form has no fields)");
  return lines;
}

/** The host a link opens, in ASCII (an internationalised name in its punycode form), or why there is none. */
export function linkHost(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname || "(none)";
    return u.protocol === "https:" ? host : `${host} (${u.protocol.replace(/:$/, "")}: link, not https)`;
  } catch {
    return "(not a valid URL)";
  }
}

function linkLines(url: string): string[] {
  return [`  the link opens host: ${visible(linkHost(url))}`, "  full link:", `    ${visible(url)}`];
}

function detailLines(request: Elicitation, state: QuestionState): string[] {
  const deadline = state.deadlineAt === undefined ? "none (the asking side waits forever)" : new Date(state.deadlineAt).toISOString();
  return [
    "  details:",
    ...indented(`question: ${request.question}`, 4),
    `    call id: ${visible(String(request.toolCall?.id ?? "(none)"))}`,
    `    source: ${visible(request.source ?? "(none)")}`,
    `    timeout: ${request.timeoutMs === undefined ? "none" : `${request.timeoutMs} ms`} · deadline ${deadline}`,
  ];
}

/** The outcome of reading edited arguments: a JSON object, or the reason it is not one. */
export type ParsedArguments =
  { readonly ok: true; readonly value: Record<string, unknown> } | { readonly ok: false; readonly error: string };

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
