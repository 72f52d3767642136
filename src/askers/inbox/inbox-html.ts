/**
 * @module askers/inbox/inbox-html
 * The inbox page as plain server-rendered HTML: one renderer for a pending
 * question's `article` and one for a decision's row, used both for the first
 * page and for the fragments the live stream sends (so the page and the
 * updates can never disagree), the page's frame and the login page. Pure but
 * for the page scripts' text, read once per process (inbox-script).
 */
import { clipMiddle, visible } from "../../util/visible-text.js";
import { callView, factLabels, type DiffLine } from "../call-view.js";
import { ANSWER_KEYS } from "../approval-prompt.js";
import { FORM_SUBJECT, LINK_SUBJECT, linkHost, timeLeft, visibleJson } from "../question-view.js";
import { answeredByText, type StoredDecision, type StoredQuestion } from "./inbox-store.js";
import { INBOX_STYLE, pageScript } from "./inbox-script.js";

/** Escape text for HTML element content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** The status line of a question that is no longer pending, or `""`. */
export function closedText(q: StoredQuestion): string {
  if (q.status === "timed_out") return `Timed out — ${q.reason ?? "the deadline passed"}. Nothing can be decided here any more.`;
  if (q.status === "withdrawn") return `Withdrawn — ${q.reason ?? "the asking side gave up"}. Nothing can be decided here any more.`;
  if (q.status === "abandoned")
    return `Abandoned — ${q.reason ?? "the process that asked it stopped"}. Nothing can be decided here any more.`;
  if (q.status === "answered") return `Answered (${q.answer?.kind ?? "?"}) by ${answeredByText(q.answer)}.`;
  return "";
}

/**
 * An instant for a `title`: the full date and time in UTC (`Wed, 02 Dec 2026 09:15:03 UTC`; the page's script shows it
 * in the reader's zone).
 */
export function fullDate(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Date(t).toUTCString().replace("GMT", "UTC");
}

/**
 * A `<time>`: the instant in `datetime`, the full date in `title`, the time
 * of day as text; with `ago`, the page's script shows how long ago instead
 * (`3 min ago`, kept current).
 */
function timeHtml(iso: string, ago = false): string {
  const at = escapeHtml(iso);
  return `<time datetime="${at}" title="${escapeHtml(fullDate(iso))}"${ago ? " data-ago" : ""}>${escapeHtml(iso.slice(11, 19))}</time>`;
}

function countdown(q: StoredQuestion, now: number): string {
  if (q.deadlineAt === null) return `<span class="timer">no deadline</span>`;
  const ms = Date.parse(q.deadlineAt) - now;
  const text = ms > 0 ? `time left ${timeLeft(ms)}` : "deadline passed";
  return (
    `deadline ${timeHtml(q.deadlineAt)} (<span class="timer" role="timer" aria-live="off" ` +
    `data-deadline="${escapeHtml(q.deadlineAt)}">${text}</span>)`
  );
}

/** How long a question has waited, kept current by the page's script. */
function age(q: StoredQuestion, now: number): string {
  return `<span class="age" data-asked="${escapeHtml(q.askedAt)}">waiting ${timeLeft(Math.max(0, now - Date.parse(q.askedAt)))}</span>`;
}

/** Which process asked: the name its owner gave it, else its shared-store identity, else nothing. */
function workerText(q: StoredQuestion): string {
  const name = q.workerName ?? q.worker;
  return name ? ` · worker <b class="worker">${escapeHtml(clipMiddle(visible(name), 100))}</b>` : "";
}

/** What a stored question asks: a tool call, a form's values or a link (an elicitation has no tool call id). */
function storedKind(q: StoredQuestion): "tool" | "form" | "link" {
  if (q.callId !== null) return "tool";
  return q.tool === FORM_SUBJECT ? "form" : q.tool === LINK_SUBJECT ? "link" : "tool";
}

/** A form's fields and the values Approve sends (exactly these; empty ones are not sent). */
function formHtml(q: StoredQuestion): string {
  const rows = Object.entries(q.arguments).map(([name, v]) => {
    const value = v === null || v === undefined ? "<i>(empty, not sent)</i>" : `<code>${escapeHtml(visible(JSON.stringify(v)))}</code>`;
    return `<dt>${escapeHtml(visible(name))}</dt><dd>${value}</dd>`;
  });
  return `<p class="note">Approve sends exactly these values; Modify edits them.</p>
<dl class="fields" aria-label="Form fields">${rows.join("") || "<dt>(no fields)</dt>"}</dl>`;
}

/** A link's host called out, then the whole URL as text (not a clickable link). */
function linkHtml(q: StoredQuestion): string {
  const url = String(q.arguments.url ?? "");
  return `<p class="link-host">The link opens host: <b>${escapeHtml(visible(linkHost(url)))}</b></p>
<p class="link-url">Full link: <code>${escapeHtml(visible(url))}</code></p>`;
}

/**
 * The body of one question: the arguments of a tool call, a form's fields, or a link and its host. Everything from the
 * question is made visible (controls, C1 and bidi characters escaped).
 */
function bodyHtml(q: StoredQuestion): string {
  const kind = storedKind(q);
  const ask = `<p class="ask">${escapeHtml(visible(q.question, { newlines: true }))}</p>`;
  if (kind === "form") return `${ask}\n${formHtml(q)}`;
  if (kind === "link") return `${ask}\n${linkHtml(q)}`;
  const json =
    `<pre class="args" aria-label="Arguments of ${escapeHtml(visible(q.tool))}" ` +
    `tabindex="0">${escapeHtml(visibleJson(q.arguments))}</pre>`;
  const view = viewHtml(q.arguments);
  return `${factsHtml(q)}${ask}\n${view ? `${view}\n<details class="json"><summary>Arguments (JSON)</summary>${json}</details>` : json}`;
}

/** What the tool declares about itself: its description and its caps and declarations as labels (made visible, bounded when stored). */
function factsHtml(q: StoredQuestion): string {
  const facts = q.toolFacts;
  if (!facts) return "";
  const description = facts.description ? `<p class="description">${escapeHtml(visible(facts.description, { newlines: true }))}</p>` : "";
  const caps = (facts.caps ?? []).map((c) => `<li class="cap">cap <b>${escapeHtml(visible(c))}</b></li>`);
  const labels = factLabels(facts).map((l) => `<li>${escapeHtml(l)}</li>`);
  const list =
    caps.length + labels.length > 0
      ? `<ul class="facts" aria-label="What ${escapeHtml(visible(q.tool))} declares">${[...caps, ...labels].join("")}</ul>`
      : "";
  return `<div class="tool-facts">${description}${list}</div>\n`;
}

function diffHtml(lines: readonly DiffLine[], more: number, label: string): string {
  const body = lines.map((l) => {
    const text = escapeHtml(`${l.op} ${l.text}`);
    if (l.op === "@") return `<span class="hunk">@@ ${escapeHtml(l.text)} @@</span>`;
    return l.op === "-" ? `<del>${text}</del>` : l.op === "+" ? `<ins>${text}</ins>` : `<span>${text}</span>`;
  });
  if (more > 0) body.push(`<span class="more">… ${more} more lines (the JSON below has them all)</span>`);
  return `<pre class="diff" aria-label="${label}" tabindex="0">${body.join("\n")}</pre>`;
}

/**
 * A call shown by its shape (see call-view): an edit as a diff, a write as the new file, a command as a command line;
 * `""` for any other shape.
 */
function viewHtml(args: Record<string, unknown>): string {
  const view = callView(args);
  if (!view) return "";
  if (view.kind === "command") {
    const where = [
      view.cwd === undefined ? "" : `in <code>${escapeHtml(view.cwd)}</code>`,
      view.timeout === undefined ? "" : `timeout <code>${escapeHtml(view.timeout)}</code>`,
    ]
      .filter(Boolean)
      .join(" · ");
    const about = view.description === undefined ? "" : `<p class="view-head">${escapeHtml(view.description)}</p>`;
    return (
      `<div class="view command">${about}<pre class="command-line" aria-label="Command" tabindex="0"><code>$ ` +
      `${escapeHtml(view.command)}</code></pre>${where ? `<p class="view-head">${where}</p>` : ""}</div>`
    );
  }
  const path = escapeHtml(view.path);
  const what = view.kind === "edit" ? "Edit" : "Write (the whole file)";
  return (
    `<div class="view ${view.kind}"><p class="view-head">${what} ` +
    `<code>${path}</code></p>${diffHtml(view.lines, view.more, `${view.kind === "edit" ? "Changes to" : "New content of"} ${path}`)}</div>`
  );
}

/** The details the `d` key opens: ids and full dates (the JSON, for a call shown as a diff or a command, is its own disclosure). */
function detailsHtml(q: StoredQuestion): string {
  const row = (name: string, value: string) => `<dt>${name}</dt><dd>${value}</dd>`;
  const rows = [
    row("question id", `<code>${escapeHtml(q.id)}</code>`),
    row("call id", q.callId === null ? "(none)" : `<code>${escapeHtml(clipMiddle(visible(q.callId), 200))}</code>`),
    row("asked", escapeHtml(fullDate(q.askedAt))),
    row("deadline", q.deadlineAt === null ? "none (the asking side waits forever)" : escapeHtml(fullDate(q.deadlineAt))),
  ];
  return `<details class="call-details" data-role="details"><summary>Details</summary><dl class="details">${rows.join("")}</dl></details>`;
}

/** The entry points that ask (`GateVia`), in words; another source is shown as it is. */
const ASKED_BY: ReadonlyMap<string, string> = new Map([
  ["react", "an agent's loop"],
  ["approval_server", "the approval server"],
  ["mcp_guard", "the approval guard"],
  ["claude_hook", "the Claude Code hook"],
]);

/** `mcp__<server>__<tool>` (a server name is one token of `[A-Za-z0-9_-]` without `__`). */
const QUALIFIED = /^mcp__([A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*)__(.+)$/s;

/** The longest tool or server part the heading's words show (the exact name beside them is bounded when stored). */
const WORDS_WIDTH = 64;

/** A question's heading: a qualified name in words ("deploy, a tool of the ops server") with the exact name beside; another name as it is. */
function toolHeading(name: string): string {
  const exact = escapeHtml(visible(name));
  const m = QUALIFIED.exec(name);
  if (!m) return exact;
  const [server, tool] = [m[1]!, m[2]!].map((part) => escapeHtml(clipMiddle(visible(part), WORDS_WIDTH)));
  return `${tool}, a tool of the ${server} server <code class="qualified">${exact}</code>`;
}

/** Who asked, in words when it is one of the package's entry points ("asked by the approval guard"). */
function askedByHtml(source: string | null): string {
  const words = source === null ? undefined : ASKED_BY.get(source);
  return words ? `asked by <b>${words}</b>` : `source <b>${escapeHtml(visible(source ?? "(none)"))}</b>`;
}

/**
 * One question as an `article`: heading = tool name (made visible; a qualified name in words, the exact name beside); the arguments (or a form's fields, or a link);
 * source, from, countdown; the three answers and their forms.
 */
export function questionHtml(q: StoredQuestion, now = Date.now()): string {
  const id = escapeHtml(q.id);
  const tool = escapeHtml(visible(q.tool));
  const json = visibleJson(q.arguments);
  const closed = q.status !== "pending";
  const aria = closed ? ' aria-disabled="true"' : "";
  return `<article class="question${closed ? " closed" : ""}" id="q-${id}" data-id="${id}" data-status="${q.status}" aria-labelledby="q-${id}-h" tabindex="-1">
<h3 id="q-${id}-h">${toolHeading(q.tool)}</h3>
<p class="meta">${askedByHtml(q.source)} · from <b class="from">${escapeHtml(visible(q.from))}</b>${workerText(q)} · asked ${timeHtml(q.askedAt)}, ${age(q, now)} · ${countdown(q, now)}</p>
${bodyHtml(q)}
${detailsHtml(q)}
<p class="outcome" data-role="outcome">${escapeHtml(visible(closedText(q)))}</p>
<div class="actions" role="group" aria-label="Answer ${tool}">
<button type="button" data-act="approve" aria-keyshortcuts="${ANSWER_KEYS.approve}"${aria}>Approve</button>
<button type="button" data-act="reject" aria-keyshortcuts="${ANSWER_KEYS.reject}" aria-expanded="false" aria-controls="q-${id}-reject"${aria}>Reject</button>
<button type="button" data-act="modify" aria-keyshortcuts="${ANSWER_KEYS.modify}" aria-expanded="false" aria-controls="q-${id}-modify"${aria}>Modify</button>
</div>
<form class="reject" id="q-${id}-reject" data-form="reject" hidden>
<label for="q-${id}-note">Note</label>
<input id="q-${id}-note" name="note" autocomplete="off" maxlength="2000">
<button type="submit">Confirm rejection</button>
</form>
<form class="modify" id="q-${id}-modify" data-form="modify" hidden>
<label for="q-${id}-args">Arguments (JSON)</label>
<textarea id="q-${id}-args" name="arguments" rows="8" spellcheck="false" aria-describedby="q-${id}-err">${escapeHtml(json)}</textarea>
<p class="error" id="q-${id}-err" role="alert" data-role="error"></p>
<button type="submit">Save and approve</button>
</form>
</article>`;
}

/** A decision's arguments: one compact line (cut), the whole JSON a click away. */
function argumentsCell(args: Record<string, unknown> | undefined): string {
  if (!args) return "—";
  const compact = visible(JSON.stringify(args));
  if (compact.length <= 60) return `<code>${escapeHtml(compact)}</code>`;
  return `<details><summary><code>${escapeHtml(clipMiddle(compact, 60))}</code></summary><pre>${escapeHtml(visibleJson(args))}</pre></details>`;
}

/** Who decided: the recorded actor, then a typed name marked as a claim (nothing checked it). */
function actorCell(d: StoredDecision): string {
  const actor = escapeHtml(clipMiddle(visible(d.actor ?? "—"), 200));
  if (!d.claimedActor) return actor;
  return (
    `${actor} <span class="claimed" title="typed on the page; nothing checks it">claims ` +
    `“${escapeHtml(clipMiddle(visible(d.claimedActor), 100))}”</span>`
  );
}

/** One decision as a table row (keyed by `data-id`, so the gate's record replaces the page's). */
export function decisionHtml(d: StoredDecision): string {
  const allowed = d.allowed ? "yes" : "no";
  return `<tr data-id="${escapeHtml(d.id)}" class="${d.allowed ? "allowed" : "denied"}">
<td>${escapeHtml(visible(d.tool))}</td><td>${allowed}</td><td>${escapeHtml(d.source)}</td><td>${d.asked ? "yes" : "no"}</td><td>${actorCell(d)}</td><td>${escapeHtml(visible(d.reason))}</td><td>${timeHtml(d.at, true)}</td><td>${escapeHtml(visible(d.from))}</td><td class="args">${argumentsCell(d.arguments)}</td>
</tr>`;
}

/** What the page's frame needs (the live stream brings the questions and decisions). */
export interface PageState {
  /** The nonce of this response's Content-Security-Policy (the inline style and script carry it). */
  readonly nonce: string;
  /** The inbox's base path, e.g. `/inbox`. */
  readonly base: string;
}

function head(nonce: string, title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style nonce="${nonce}">${INBOX_STYLE}</style>
</head>`;
}

/** The page's title; with questions pending the script prefixes their count (`(3) agentkit inbox`). */
export const PAGE_TITLE = "agentkit inbox";

/**
 * Where a page keeps its session key, per inbox base path (sessionStorage is per origin and per tab); the scripts read
 * it from `data-key-name`.
 */
function keyName(base: string): string {
  return `agentkit-inbox-key:${base}`;
}

/** The single keys the page answers to, key → action (the terminal's, `ANSWER_KEYS`), as JSON for `data-keys`. */
const KEYS_JSON = JSON.stringify(Object.fromEntries(Object.entries(ANSWER_KEYS).map(([act, key]) => [key, act])));

/** The visible hint for the single-key answers (the terminal's keys, `ANSWER_KEYS`). */
const KEYS_HINT =
  `Keys: <kbd>${ANSWER_KEYS.approve}</kbd> approve · <kbd>${ANSWER_KEYS.reject}</kbd> reject · ` +
  `<kbd>${ANSWER_KEYS.modify}</kbd> modify · <kbd>${ANSWER_KEYS.details}</kbd> details, for the question with focus ` +
  `(else the first); <kbd>j</kbd>/<kbd>k</kbd> next/previous question. Ignored while typing in a field.`;

/** What a person without a live session reads: how to get back in. */
const LOGGED_OUT =
  "You are not logged in to this inbox (or your session ended). Each login link works once: get a new one from whoever started the inbox — in the terminal where it runs, press Enter for a new link — and open it here.";

/**
 * The login page: its script exchanges the code in the URL fragment for a
 * session; without a code (or for a dead session, status 401) it says how
 * to get a new link.
 */
export function loginPageHtml(nonceText: string, base: string): string {
  const nonce = escapeHtml(nonceText);
  return `${head(nonce, "Approval inbox: log in")}
<body data-base="${escapeHtml(base)}" data-key-name="${escapeHtml(keyName(base))}" data-logged-out="${escapeHtml(LOGGED_OUT)}">
<header><h1>Approval inbox</h1></header>
<main>
<h2>Log in</h2>
<p id="login-status" role="status" aria-live="polite">Logging in…</p>
<noscript><p>${escapeHtml(LOGGED_OUT)} The page needs JavaScript.</p></noscript>
</main>
<script nonce="${nonce}">${pageScript("login")}</script>
</body>
</html>
`;
}

/**
 * The page's frame: who this session is recorded as, the name field, the live region, the (empty) pending list and
 * decisions table, the logged-out notice.
 */
export function pageHtml(state: PageState): string {
  const nonce = escapeHtml(state.nonce);
  return `${head(nonce, PAGE_TITLE)}
<body data-base="${escapeHtml(state.base)}" data-key-name="${escapeHtml(keyName(state.base))}" data-title="${escapeHtml(PAGE_TITLE)}" data-keys="${escapeHtml(KEYS_JSON)}">
<header>
<h1>Approval inbox</h1>
<p id="who" class="who">Decisions you make here are recorded as made by this session.</p>
<p><label for="actor">Your name (optional; recorded beside your session as claimed, not checked)</label> <input id="actor" name="actor" value="" maxlength="100" autocomplete="name"></p>
<p id="connection" class="connection">Connecting for live questions…</p>
<p class="notify"><button type="button" id="notify" aria-pressed="false" hidden>Notify me of new questions</button> <span id="notify-state"></span></p>
<p id="keys" class="keys">${KEYS_HINT}</p>
</header>
<div id="announcer" class="visually-hidden" role="status" aria-live="polite" aria-atomic="true"></div>
<section id="logged-out" class="logged-out" role="alert" hidden><h2>Log in again</h2><p>${escapeHtml(LOGGED_OUT)}</p><p data-role="why"></p></section>
<main>
<section id="pending-section" aria-labelledby="pending-h" tabindex="-1">
<h2 id="pending-h">Pending questions (<span id="pending-count">0</span>)</h2>
<p id="empty" class="empty">Nothing is waiting for you.</p>
<div id="pending">
</div>
</section>
<section aria-labelledby="decisions-h">
<h2 id="decisions-h">Decisions</h2>
<table id="decisions">
<caption class="visually-hidden">Past decisions, newest first</caption>
<thead><tr><th scope="col">Tool</th><th scope="col">Allowed</th><th scope="col">Source</th><th scope="col">Asked</th><th scope="col">Actor</th><th scope="col">Reason</th><th scope="col">Time</th><th scope="col">From</th><th scope="col">Arguments</th></tr></thead>
<tbody>
</tbody>
</table>
</section>
</main>
<script nonce="${nonce}">${pageScript("inbox")}</script>
</body>
</html>
`;
}
