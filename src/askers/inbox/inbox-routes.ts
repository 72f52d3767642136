/**
 * @module askers/inbox/inbox-routes
 * The inbox's HTTP surface, mounted on the loopback listener: the page, its
 * live stream (server-sent events) and the answer endpoint. The listener has
 * already applied its Host/Origin checks and the route's session check
 * (`check`: the cookie and the session key; the page itself, a navigation,
 * needs the cookie only and carries no data — the stream brings it).
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CheckResult } from "../../listener/loopback-checks.js";
import { checkWriteOrigin } from "../../listener/session-cookie.js";
import { plainJsonObject } from "../../gate/json-object.js";
import { parseArguments } from "../question-view.js";
import { clipMiddle, visible } from "../../util/visible-text.js";
import { closedText, decisionHtml, pageHtml, questionHtml } from "./inbox-html.js";
import { json, pageHeaders, readJson, sendLoginPage } from "./inbox-http.js";
import type { InboxSession, InboxSessions } from "./inbox-sessions.js";
import {
  answeredByText,
  type InboxAnswer,
  type InboxEvent,
  type InboxStore,
  type SettleResult,
  type StoredDecision,
  type StoredQuestion,
} from "./inbox-store.js";
import type { InboxError, InboxStoreFailure } from "./inbox.error.js";
import { isStoreFailure } from "./inbox-store.error.js";

/** How many decisions the page shows. */
export const PAGE_DECISIONS = 200;
/** A comment on every live stream this often, so proxies and the browser keep it open. */
const HEARTBEAT_MS = 15_000;
/** How many questions' arguments the page remembers for its decision rows. */
const ARGUMENTS_KEPT = 2000;
/** How many live streams one session may hold open at once (a tab holds one). */
export const MAX_STREAMS_PER_SESSION = 8;

/** What a click on a question that is no longer pending is told. */
export function refusedText(q: StoredQuestion): string {
  if (q.status === "timed_out")
    return (
      `This question timed out before your answer arrived (${q.reason ?? "its deadline passed"}); the asking side ` +
      `already denied it. Nothing was decided.`
    );
  if (q.status === "withdrawn") return `This question was withdrawn (${q.reason ?? "the asking side gave up"}). Nothing was decided.`;
  if (q.status === "abandoned")
    return `This question was abandoned: ${q.reason ?? "the process that asked it stopped"}. Nothing was decided.`;
  return `This question was already answered (${q.answer?.kind ?? "?"}) by ${answeredByText(q.answer)}. Your answer was not recorded.`;
}

/** A name the page's script puts in announcements and notifications: made visible (no bidi or control characters), at most 100 columns. */
function shownName(name: string): string {
  return clipMiddle(visible(name), 100);
}

function settledData(q: StoredQuestion): Record<string, unknown> {
  return { id: q.id, tool: shownName(q.tool), status: q.status, text: closedText(q) };
}

/** One live-stream message. */
function sse(res: ServerResponse, event: string, data: Record<string, unknown>): void {
  // An ended stream (its session expired, the inbox stopped) takes no more: a write after end is an error event.
  if (res.writableEnded) return;
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function toSse(res: ServerResponse, event: InboxEvent): void {
  if (event.type === "question")
    sse(res, "question", {
      id: event.question.id,
      tool: shownName(event.question.tool),
      from: shownName(event.question.from),
      html: questionHtml(event.question),
    });
  else if (event.type === "settled") sse(res, "settled", settledData(event.question));
  else if (event.type === "decision") sse(res, "decision", { id: event.decision.id, html: decisionHtml(event.decision) });
  else sse(res, "store", { available: event.type === "available" });
}

type ParsedAnswer = { ok: true; id: string; answer: InboxAnswer } | { ok: false; error: string; field?: string };

/**
 * Check an answer body: `{ id, kind: approve|reject|modify, actor?, note?,
 * arguments? (JSON text, for modify) }`. The answer's `actor` is `session`
 * (who the page's server knows answered: the session's label); the body's
 * `actor`, the name typed on the page, is kept only as `claimed`.
 */
export function parseAnswer(body: unknown, session = "inbox"): ParsedAnswer {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    return { ok: false, error: "an answer must be a JSON object { id, kind, actor?, note?, arguments? }" };
  const b = body as Record<string, unknown>;
  if (typeof b.id !== "string" || b.id === "") return { ok: false, error: "id must be the question's id (a string)", field: "id" };
  if (b.kind !== "approve" && b.kind !== "reject" && b.kind !== "modify")
    return { ok: false, error: `kind must be approve, reject or modify, got ${JSON.stringify(b.kind) ?? "nothing"}`, field: "kind" };
  if (b.actor !== undefined && typeof b.actor !== "string")
    return { ok: false, error: "actor must be a string (the name typed on the page)", field: "actor" };
  const typed = ((b.actor as string | undefined) ?? "").trim().slice(0, 100);
  const who = { actor: session, ...(typed ? { claimed: typed } : {}) };
  if (b.note !== undefined && typeof b.note !== "string") return { ok: false, error: "note must be a string", field: "note" };
  const note = ((b.note as string | undefined) ?? "").trim().slice(0, 2000);
  if (b.kind !== "modify") return { ok: true, id: b.id, answer: { kind: b.kind, ...who, ...(note ? { note } : {}) } };
  if (typeof b.arguments !== "string")
    return { ok: false, error: "arguments must be the edited arguments as JSON text", field: "arguments" };
  const parsed = parseArguments(b.arguments);
  if (!parsed.ok) return { ok: false, error: parsed.error, field: "arguments" };
  // The gate's own rule, checked here so the person is never told "approved" about arguments the gate then refuses.
  const plain = plainJsonObject(parsed.value);
  if (!plain.ok)
    return {
      ok: false,
      error:
        `the gate would refuse these arguments (${plain.why.replace(/^value/, "the arguments")}); nothing was ` +
        `decided — edit them and save again`,
      field: "arguments",
    };
  return { ok: true, id: b.id, answer: { kind: "modify", ...who, value: plain.value } };
}

/** What a click is told when the store failed: the outage (or refusal) by name, and that nothing was decided. */
function unreachableText(err: InboxError & { readonly failure: InboxStoreFailure }): string {
  const why = err.message.replace(/^the inbox database is unavailable: /, "");
  if (err.failure === "unavailable") {
    return (
      `The inbox database is unavailable (${why}): your answer was not recorded and nothing was decided. A worker ` +
      `that lost the database denies its call; try again once the database is back.`
    );
  }
  return `The inbox store failed (${err.failure}: ${why}): your answer was not recorded and nothing was decided.`;
}

const DONE: Record<InboxAnswer["kind"], string> = {
  approve: "Approved. The asking side has its answer.",
  reject: "Rejected. The asking side has its answer.",
  modify: "Approved with the edited arguments. The asking side has its answer.",
};

/** The page's request handler (paths relative to the inbox's base), its session check and its open live streams. */
export class InboxRoutes {
  readonly #streams = new Set<ServerResponse>();
  /** The session each request passed `check` with. */
  readonly #sessionOf = new WeakMap<IncomingMessage, InboxSession>();
  /** The arguments of the questions this page has seen, by id (bounded), for decision rows that do not carry theirs: no query per row. */
  readonly #argumentsOf = new Map<string, Record<string, unknown>>();
  readonly #unsubscribe: () => void;

  constructor(
    readonly store: InboxStore,
    readonly base: string,
    readonly sessions: InboxSessions,
  ) {
    this.#unsubscribe = store.subscribe((event) => {
      if (event.type === "question") this.#remember(event.question);
    });
  }

  #remember(q: StoredQuestion): void {
    this.#argumentsOf.set(q.id, q.arguments);
    if (this.#argumentsOf.size > ARGUMENTS_KEPT) this.#argumentsOf.delete(this.#argumentsOf.keys().next().value!);
  }

  /**
   * The route's auth: the page itself (a navigation) is checked by `handle`; everything else needs the cookie, the
   * session key and, to write, an Origin.
   */
  check = (req: IncomingMessage): CheckResult => {
    // The listener checks before routing: the path is still the full one.
    const full = (req.url ?? "/").split("?")[0]!;
    const path = full.startsWith(`${this.base}/`) ? full.slice(this.base.length) : full;
    if (path === "/" && (req.method === "GET" || req.method === "HEAD")) return { ok: true };
    const session = this.sessions.check(req);
    if (!session.ok) return session;
    this.#sessionOf.set(req, session.session);
    return checkWriteOrigin(req.method, req.headers.origin);
  };

  /** Answer one request under the base path. */
  handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "/").split("?")[0]!;
    const method = req.method ?? "GET";
    if (path === "/" && (method === "GET" || method === "HEAD")) return this.#page(req, res);
    if (path === "/events" && method === "GET") return this.#events(req, res);
    if (path === "/answer" && method === "POST") return this.#answer(req, res);
    req.resume();
    json(res, path === "/" || path === "/events" || path === "/answer" ? 405 : 404, {
      error: `nothing answers ${method} ${path} on this inbox (GET ${this.base}/, GET ${this.base}/events, POST ${this.base}/answer)`,
    });
  };

  /** The page: its frame only (the live stream brings the questions and decisions); without a live session cookie, the login page. */
  #page(req: IncomingMessage, res: ServerResponse): void {
    req.resume();
    if (!this.sessions.check(req, true).ok) return sendLoginPage(res, this.base, 401);
    const nonce = randomBytes(16).toString("base64");
    const html = pageHtml({ nonce, base: this.base });
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Content-Length": Buffer.byteLength(html), ...pageHeaders(nonce) });
    res.end(html);
  }

  /**
   * The live stream: `decisions` (the list as it stands), then a `question`
   * for each pending one, then `ready`, then every change as it happens.
   * Changes during the first reads are held back until `ready` so the page
   * never sees them out of order. It ends when its session expires.
   */
  async #events(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const session = this.#sessionOf.get(req)!;
    if (session.streams >= MAX_STREAMS_PER_SESSION) {
      req.resume();
      return json(
        res,
        429,
        {
          error:
            `this session already has ${MAX_STREAMS_PER_SESSION} live streams open (one per inbox tab); close some ` +
            `tabs of the inbox and reload`,
        },
        { "Retry-After": "5" },
      );
    }
    session.streams++;
    res.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    });
    res.write(": live questions\nretry: 1000\n\n");
    this.#streams.add(res);
    let held: InboxEvent[] | null = [];
    // Subscribe before reading, so nothing falls between them (the page drops duplicates).
    const unsubscribe = this.store.subscribe((event) => (held ? held.push(event) : this.#send(res, event)));
    const heartbeat = setInterval(() => res.writableEnded || res.write(": keep-alive\n\n"), HEARTBEAT_MS);
    heartbeat.unref();
    // Clamped: a timer past 2^31-1 ms would fire at once.
    const expiry = setTimeout(() => res.end(), Math.min(2 ** 31 - 1, Math.max(0, session.expiresAt - Date.now())));
    expiry.unref();
    let open = true;
    const done = (): void => {
      if (!open) return;
      open = false;
      clearInterval(heartbeat);
      clearTimeout(expiry);
      unsubscribe();
      session.streams--;
      this.#streams.delete(res);
    };
    req.once("close", done);
    res.once("close", done);
    const [decisions, pending] = await Promise.all([this.store.decisions(PAGE_DECISIONS), this.store.pending()]);
    for (const q of pending) this.#remember(q);
    sse(res, "decisions", { html: decisions.map((d) => this.#decisionRow(d)).join("\n") });
    for (const q of pending) toSse(res, { type: "question", question: q });
    sse(res, "ready", { pending: pending.length, session: session.label });
    for (const event of held) this.#send(res, event);
    held = null;
  }

  /** One store event on a stream (a decision with the arguments it was about). */
  #send(res: ServerResponse, event: InboxEvent): void {
    if (event.type !== "decision") return toSse(res, event);
    sse(res, "decision", { id: event.decision.id, html: this.#decisionRow(event.decision) });
  }

  /** A decision row with its arguments: the row's own, else those of its question when this page saw it. */
  #decisionRow(d: StoredDecision): string {
    const args = d.arguments ?? this.#argumentsOf.get(d.id);
    return decisionHtml(args ? { ...d, arguments: args } : d);
  }

  async #answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req, res);
    if (!body) return;
    if (!body.ok) return json(res, body.status, { error: body.error });
    const parsed = parseAnswer(body.value, this.#sessionOf.get(req)!.label);
    if (!parsed.ok) return json(res, 400, { error: parsed.error, ...(parsed.field ? { field: parsed.field } : {}) });
    let result: SettleResult;
    try {
      result = await this.store.settle(parsed.id, { status: "answered", answer: parsed.answer });
    } catch (err) {
      // The store could not be reached (or refused this login): nothing was decided, and the person is told why, not "500".
      if (!isStoreFailure(err)) throw err;
      return json(res, 503, { error: unreachableText(err) }, { "Retry-After": "5" });
    }
    if (result.ok) return json(res, 200, { ok: true, status: "answered", message: DONE[parsed.answer.kind] });
    if (!result.question) return json(res, 404, { error: `no question with id ${JSON.stringify(parsed.id).slice(0, 80)} on this inbox` });
    return json(res, 409, { error: refusedText(result.question), status: result.question.status });
  }

  /** End every live stream (the page shows it reconnecting) and stop following the store. */
  closeStreams(): void {
    this.#unsubscribe();
    for (const res of this.#streams) res.end();
    this.#streams.clear();
  }
}
