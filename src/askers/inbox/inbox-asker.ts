/**
 * @module askers/inbox/inbox-asker
 * `InboxAsker`: the `Asker` whose questions appear on an inbox page. It puts
 * each question in the store, waits for the page to settle it (or for the
 * asking side's deadline), and writes the decisions list: a row when the
 * person answers, replaced by the gate's own record when the asker is also
 * the asking server's `ctx` (it is a `gate.check` target).
 */
import { randomUUID } from "node:crypto";
import type { Asker, Decision, Elicitation } from "../../agents/elicitation.js";
import { OptionsError } from "../../errors/options.error.js";
import type { GateCheck } from "../../gate/gate-record.js";
import { GATE_SOURCES, type GateSource } from "../../gate/gate-source.js";
import { describeValue, seconds } from "../../util/format.js";
import { checkKnownKeys, checkTimeoutMs } from "../../util/options.js";
import { FORM_SUBJECT, toolArguments, toolName } from "../question-view.js";
import { InboxError } from "./inbox.error.js";
import type { InboxEvent, InboxStore, StoredDecision, StoredQuestion } from "./inbox-store.js";

/** Options of `inboxAsker()` / `inbox.asker()`. */
export interface InboxAskerOptions {
  /** The store the page reads (an inbox's `store`). */
  readonly store: InboxStore;
  /** Which run or server this asker's questions come from, shown on each question (e.g. `"engine"`). Default `"agentkit"`. */
  readonly source?: string;
  /** Which process asks (e.g. `"worker-3"`, or `--worker NAME`), shown on each question beside `source`; at most 100 characters. Default: none. */
  readonly worker?: string;
}

/** A question this asker settled (answered or timed out) whose gate record has not arrived yet. */
interface Unconfirmed {
  readonly id: string;
  readonly callId: string | null;
  readonly tool: string;
}

/** How many unconfirmed questions are remembered for matching a later `gate.check` (the oldest are forgotten). */
const UNCONFIRMED_LIMIT = 256;

function answerDecision(q: StoredQuestion): Decision {
  const a = q.answer!;
  // A form approved as shown sends the values the page showed (its stored arguments), nothing else.
  const shown = a.kind === "approve" && q.callId === null && q.tool === FORM_SUBJECT ? { value: q.arguments } : {};
  return Object.freeze({ kind: a.kind, actor: a.actor, ...(a.note ? { note: a.note } : {}), ...(a.kind === "modify" ? { value: a.value } : shown) });
}

/** The row the page shows as soon as the person answers (allowed as the answer says; the gate's record replaces it). */
function answeredRow(q: StoredQuestion): StoredDecision {
  const a = q.answer!;
  const allowed = a.kind !== "reject";
  const reason = a.kind === "reject" ? a.note || `rejected by ${a.actor}` : a.kind === "modify" ? `approved by ${a.actor} with edited arguments` : `approved by ${a.actor}`;
  return { id: q.id, tool: q.tool, allowed, source: "asker", asked: true, actor: a.actor, reason, at: q.settledAt ?? new Date().toISOString(), from: q.from, confirmed: false };
}

/**
 * An `Asker` that asks on an inbox page. Each `ask()` becomes a pending
 * question in the store (tool, arguments, the elicitation's `source`, this
 * asker's `source` as "from", the deadline); the page's answer comes back as
 * the `Decision` (`actor` = the name typed on the page). At the request's
 * `timeoutMs` the question is marked timed out — a later click is told so
 * and decides nothing — and `ask()` answers `{ kind: "expired" }` (the asking
 * side has denied it already).
 *
 * It is also a `gate.check` target: pass it as the asking server's `ctx`
 * (`new ApprovalServer({ asker, ctx: asker })`) and the decisions list shows
 * every settled call — `auto_allow`, `autonomy`, `timeout` and `error` too —
 * with the gate's own `allowed` and reason.
 */
export class InboxAsker implements Asker {
  /** Which run or server this asker's questions come from. */
  readonly source: string;
  /** Which process asks, when named. */
  readonly worker: string | undefined;
  readonly #store: InboxStore;
  readonly #unconfirmed: Unconfirmed[] = [];
  /** Questions of this asker still pending on the page, by question id. */
  readonly #pending = new Map<string, Unconfirmed>();

  constructor(options: InboxAskerOptions) {
    if (options === null || typeof options !== "object") throw new OptionsError("inboxAsker", "options", `inboxAsker: options must be an object { store, source? }, got ${describeValue(options)}`);
    checkKnownKeys(options, ["store", "source", "worker"], "inboxAsker");
    const store = options.store as Partial<InboxStore> | undefined;
    if (!store || typeof store.put !== "function" || typeof store.settle !== "function" || typeof store.subscribe !== "function") {
      throw new OptionsError("inboxAsker", "store", `inboxAsker: store must be an InboxStore (an inbox's store, or new MemoryInboxStore()), got ${describeValue(options.store)}`);
    }
    if (options.source !== undefined && (typeof options.source !== "string" || options.source.trim() === "")) {
      throw new OptionsError("inboxAsker", "source", `inboxAsker: source must be a non-empty name of the run or server (e.g. "engine"), got ${describeValue(options.source)}`);
    }
    if (options.worker !== undefined && (typeof options.worker !== "string" || options.worker.trim() === "" || options.worker.length > 100)) {
      throw new OptionsError("inboxAsker", "worker", `inboxAsker: worker must be a non-empty name of the asking process, at most 100 characters (e.g. "worker-3"), got ${describeValue(options.worker)}`);
    }
    this.#store = options.store;
    this.source = options.source?.trim() ?? "agentkit";
    this.worker = options.worker?.trim();
  }

  /** Puts `request` on the page and resolves with the person's answer, or `expired` at its deadline. */
  async ask(request: Elicitation): Promise<Decision> {
    if (request === null || typeof request !== "object") {
      throw new OptionsError("InboxAsker.ask", "request", `InboxAsker.ask: the request must be an Elicitation object, got ${describeValue(request)}`);
    }
    const timeoutMs = checkTimeoutMs(request.timeoutMs, "InboxAsker.ask");
    const now = Date.now();
    const question: StoredQuestion = {
      id: randomUUID(),
      callId: typeof request.toolCall?.id === "string" ? request.toolCall.id : null,
      tool: toolName(request),
      arguments: toolArguments(request),
      question: String(request.question ?? ""),
      source: typeof request.source === "string" ? request.source : null,
      from: this.source,
      ...(this.worker !== undefined ? { workerName: this.worker } : {}),
      askedAt: new Date(now).toISOString(),
      deadlineAt: timeoutMs === undefined ? null : new Date(now + timeoutMs).toISOString(),
      status: "pending",
    };
    return await this.#await(question, timeoutMs);
  }

  #await(question: StoredQuestion, timeoutMs: number | undefined): Promise<Decision> {
    return new Promise<Decision>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let done = false;
      const finish = (): boolean => {
        if (done) return false;
        done = true;
        unsubscribe();
        clearTimeout(timer);
        this.#pending.delete(question.id);
        return true;
      };
      const expired = (note: string): void => {
        if (finish()) resolve(Object.freeze({ kind: "expired", note }));
      };
      const settled = (q: StoredQuestion): void => {
        if (!finish()) return;
        if (q.status === "answered") {
          this.#remember(q);
          void this.#store.recordDecision(answeredRow(q)).catch(() => undefined);
          resolve(answerDecision(q));
        } else if (q.status === "timed_out") {
          resolve(Object.freeze({ kind: "expired", note: q.reason ?? "withdrawn: the deadline passed before anyone answered" }));
        } else {
          // An abandoned question already has its row (written by the sweep): the gate's record of this deny replaces it.
          if (q.status === "abandoned") this.#remember(q);
          reject(new InboxError("inbox_stopped", `the approval inbox withdrew the question about '${q.tool}' before anyone answered (${q.reason ?? q.status})`));
        }
      };
      const unsubscribe = this.#store.subscribe((event: InboxEvent) => {
        if (event.type === "settled" && event.question.id === question.id) settled(event.question);
        // A shared store lost its database: no answer can be trusted to arrive, so the call is denied now (gate source `error`).
        else if (event.type === "unavailable" && finish()) reject(event.error);
      });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          const note = `timed out: the ${seconds(timeoutMs)} deadline passed before anyone answered; the call was denied`;
          // The deadline is kept here whatever the store does: a store that cannot be reached still ends the wait.
          this.#store.settle(question.id, { status: "timed_out", reason: note }).then(
            (r) => (r.question && r.question.status !== "pending" ? settled(r.question) : expired(note)),
            () => expired(note),
          );
        }, timeoutMs);
      }
      this.#pending.set(question.id, { id: question.id, callId: question.callId, tool: question.tool });
      this.#store.put(question).catch((err: unknown) => {
        if (finish()) reject(err);
      });
    });
  }

  #remember(q: StoredQuestion): void {
    this.#unconfirmed.push({ id: q.id, callId: q.callId, tool: q.tool });
    if (this.#unconfirmed.length > UNCONFIRMED_LIMIT) this.#unconfirmed.shift();
  }

  /** The question a gate record is about: by tool-use id, else the oldest unconfirmed one with the same tool. */
  #match(check: GateCheck): string | undefined {
    if (!check.asked) return undefined;
    let at = check.id !== null ? this.#unconfirmed.findIndex((u) => u.callId === check.id) : -1;
    if (at < 0) at = this.#unconfirmed.findIndex((u) => u.tool === check.tool && (check.id === null || u.callId === null));
    if (at < 0) return undefined;
    return this.#unconfirmed.splice(at, 1)[0]!.id;
  }

  /**
   * The asking side gave up on a question still on the page (its own deadline
   * fired first, the client cancelled, the server stopped): mark it so, so a
   * click on it is told and decides nothing.
   */
  #withdraw(check: GateCheck): void {
    if (!check.asked || (check.source !== "timeout" && check.source !== "error")) return;
    const all = [...this.#pending.values()];
    const hit = (check.id !== null ? all.find((p) => p.callId === check.id) : undefined) ?? all.find((p) => p.tool === check.tool && (check.id === null || p.callId === null));
    if (!hit) return;
    this.#pending.delete(hit.id);
    const settlement = check.source === "timeout" ? { status: "timed_out" as const, reason: `timed out: ${check.reason}` } : { status: "withdrawn" as const, reason: check.reason };
    void this.#store.settle(hit.id, settlement).catch(() => undefined);
  }

  /**
   * A `gate.check` target: each record becomes (or replaces) a row of the
   * decisions list; a timeout or abandonment also withdraws the question
   * from the page. Other events are ignored. Never throws.
   */
  emit(event: string, data: Record<string, unknown>): void {
    if (event !== "gate.check" || !data || typeof data !== "object") return;
    const check = data as unknown as GateCheck;
    if (typeof check.tool !== "string" || !GATE_SOURCES.includes(check.source)) return;
    this.#withdraw(check);
    const row: StoredDecision = {
      id: this.#match(check) ?? randomUUID(),
      tool: check.tool,
      allowed: check.allowed === true,
      source: check.source as GateSource,
      asked: check.asked === true,
      actor: typeof check.actor === "string" ? check.actor : null,
      reason: typeof check.reason === "string" ? check.reason : "",
      at: typeof check.at === "string" ? check.at : new Date().toISOString(),
      from: this.source,
      confirmed: true,
    };
    void this.#store.recordDecision(row).catch(() => undefined);
  }
}

/** `new InboxAsker({ store, source })`: an Asker for a store another process's (or this one's) inbox page reads. */
export function inboxAsker(options: InboxAskerOptions): InboxAsker {
  return new InboxAsker(options);
}
