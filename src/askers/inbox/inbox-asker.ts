/**
 * @module askers/inbox/inbox-asker
 * `InboxAsker`: the `Asker` whose questions appear on an inbox page. It puts
 * each question in the store and waits for the page to settle it (or for the
 * asking side's deadline). As a `gate.check` target (the asking server's
 * `ctx`) it writes the decisions list: one row per decision, the gate's own
 * record.
 */
import { randomUUID } from "node:crypto";
import type { AskOptions, Asker, Decision, Elicitation } from "../../contracts/elicitation.js";
import { OptionsError } from "../../errors/options.error.js";
import type { GateCheck } from "../../gate/gate-record.js";
import { GATE_SOURCES, type GateSource } from "../../gate/gate-source.js";
import { describeValue, errorLine, seconds } from "../../util/format.js";
import { checkOptions, checkTimeoutMs, opt, type OptionRule } from "../../options/option-checks.js";
import { FORM_SUBJECT, toolArguments, toolName } from "../question-view.js";
import { boundedToolFacts } from "../call-view.js";
import { InboxError } from "./inbox.error.js";
import { answerActor, type InboxEvent, type InboxStore, type Settlement, type StoredDecision, type StoredQuestion } from "./inbox-store.js";
import { getLogger, ignoreRejection } from "../../util/logger.js";
import { MAX_ARGUMENT_DEPTH, nestedDeeperThan } from "../../util/nesting.js";

/** Options of `inboxAsker()` / `inbox.asker()`. */
export interface InboxAskerOptions {
  /** The store the page reads (an inbox's `store`). */
  readonly store: InboxStore;
  /** Which run or server this asker's questions come from, shown on each question (e.g. `"engine"`). Default `"agentkit"`. */
  readonly source?: string;
  /**
   * Which process asks (e.g. `"worker-3"`, or `--worker NAME`), shown on each question beside `source`; at most 100
   * characters. Default: none.
   */
  readonly worker?: string;
}

/** The tool's declarations a tool call's question carries, bounded, as a spread (nothing for a form, a link or an unknown tool). */
function factsOf(request: Elicitation): { toolFacts?: StoredQuestion["toolFacts"] } {
  const facts = request.toolCall ? boundedToolFacts(request.toolFacts) : undefined;
  return facts ? { toolFacts: facts } : {};
}

function answerDecision(q: StoredQuestion): Decision {
  const a = q.answer!;
  // A form approved as shown sends the values the page showed (its stored arguments), nothing else.
  const shown = a.kind === "approve" && q.callId === null && q.tool === FORM_SUBJECT ? { value: q.arguments } : {};
  const claimed = a.claimed ? { claimedActor: a.claimed } : {};
  return Object.freeze({
    kind: a.kind,
    actor: answerActor(a),
    ...claimed,
    ...(a.note ? { note: a.note } : {}),
    ...(a.kind === "modify" ? { value: a.value } : shown),
  });
}

/**
 * Say that a decision row could not be written (the database refused it, or
 * was down): the caller's decision stands, but the decisions list is missing
 * this record, so it is logged as a warning, once, with the reason.
 */
function recordFailed(row: StoredDecision, what: string, err: unknown): void {
  const about = row.asked || row.source === "asker" ? `question '${row.id}'` : `call '${row.id}'`;
  const why = err instanceof Error ? err.message : errorLine(err);
  try {
    getLogger().warn(
      `inbox asker: the decisions list is missing the record of ${about} about '${row.tool}' (${what}, ` +
        `${row.allowed ? "allowed" : "denied"}, source ${row.source}): ${why}`,
    );
  } catch {
    // a broken logger must not turn into a broken asker
  }
}

/** How the asking side gave up, from its signal's reason: the deadline (`TimeoutError`) or anything else. */
function withdrawal(signal: AbortSignal): Settlement {
  const reason: unknown = signal.reason;
  const why =
    reason instanceof Error || reason instanceof DOMException ? reason.message : typeof reason === "string" && reason ? reason : "";
  if ((reason as { name?: unknown } | undefined)?.name === "TimeoutError") {
    return { status: "timed_out", reason: `timed out: ${why || "the deadline passed before anyone answered"}; the call was denied` };
  }
  return { status: "withdrawn", reason: `the asking side gave up${why ? ` (${why})` : ""}; the call is gone` };
}

/** Whether `v` has every one of `methods` (an `InboxStore`, or the part of one a caller uses). */
export function hasMethods(v: unknown, methods: readonly string[]): boolean {
  return v !== null && typeof v === "object" && methods.every((m) => typeof (v as Record<string, unknown>)[m] === "function");
}

/** The names an asker says who asks by: `source` (the run or server) and `worker` (the process). */
export const ASKER_NAME_RULES = {
  source: opt.that<string>((v) => typeof v === "string" && v.trim() !== "", 'a non-empty name of the run or server (e.g. "engine")'),
  worker: opt.that<string>(
    (v) => typeof v === "string" && v.trim() !== "" && v.length <= 100,
    'a non-empty name of the asking process, at most 100 characters (e.g. "worker-3")',
  ),
} as const;

/** The options `inboxAsker()` (an `InboxAsker`) accepts, declared once. */
const INBOX_ASKER_OPTIONS = {
  store: opt.required(
    opt.that<InboxStore>(
      (v) => hasMethods(v, ["put", "settle", "subscribe"]),
      "an InboxStore (an inbox's store, or new MemoryInboxStore())",
    ),
    "an InboxStore: an inbox's store, or new MemoryInboxStore()",
  ),
  ...ASKER_NAME_RULES,
} satisfies Record<keyof InboxAskerOptions, OptionRule<unknown>>;

/**
 * An `Asker` that asks on an inbox page. Each `ask()` becomes a pending
 * question in the store (tool, arguments, the elicitation's `source`, this
 * asker's `source` as "from", the deadline); the page's answer comes back as
 * the `Decision`: `actor` is the page session that answered (`inbox session
 * 2 (3fa9c1)`, after the database login on a shared store), and a name typed
 * on the page comes as `claimedActor`, self-declared.
 *
 * A question carries its call: its store id is `AskOptions.questionId` (the
 * gate record's `questionId`; a fresh UUID for a one-argument caller), and the
 * moment `AskOptions.signal` aborts the question is withdrawn from the page
 * (store status `timed_out` when the reason is the deadline, a
 * `TimeoutError`; `withdrawn` otherwise) — a later click is told the call is
 * gone and decides nothing — and `ask()` answers `{ kind: "expired" }`.
 * At the request's own `timeoutMs` it is marked timed out the same way. When
 * a shared store loses its database, `ask()` rejects at once (the call is
 * denied) and the question is withdrawn as soon as the store is back, so a
 * late Approve cannot claim success.
 *
 * A question asked again (`AskOptions.again`: a resumed durable run) is
 * looked up by its id first: an answer given meanwhile (while no worker was
 * alive) is the decision; a question still pending is taken over by this
 * process and waited on; one the deadline took is `expired`.
 *
 * It is also a `gate.check` target, and the decisions list's one writer: pass
 * it as the asking server's `ctx` (`new ApprovalServer({ asker, ctx: asker })`,
 * or forward its context's `gate.check` events to `emit`) and the list shows
 * every settled call — answered, `auto_allow`, `autonomy`, `timeout` and
 * `error` — as the gate's own record, written once, keyed by its
 * `questionId`; nothing is matched by tool name. Without that the questions
 * still show their answers, but the decisions list stays empty.
 */
export class InboxAsker implements Asker {
  /** Which run or server this asker's questions come from. */
  readonly source: string;
  /** Which process asks, when named. */
  readonly worker: string | undefined;
  readonly #store: InboxStore;
  /** Questions of this asker still pending on the page, by question id. */
  readonly #pending = new Set<string>();

  /**
   * @throws OptionsError for an unknown option, a missing required one or a
   *   value of the wrong kind (or `null` options), naming what is accepted.
   */
  constructor(options: InboxAskerOptions) {
    const o = checkOptions(options, "inboxAsker", INBOX_ASKER_OPTIONS);
    this.#store = o.store;
    this.source = o.source?.trim() ?? "agentkit";
    this.worker = o.worker?.trim();
  }

  /**
   * Puts `request` on the page and resolves with the person's answer, or `expired` at its deadline or when `options.signal` aborts.
   *
   * @throws OptionsError (rejects) for a request that is not an object, a bad `questionId`, or arguments nested deeper
   * than `MAX_ARGUMENT_DEPTH` levels (the call is denied).
   */
  async ask(request: Elicitation, options?: AskOptions): Promise<Decision> {
    if (request === null || typeof request !== "object") {
      throw new OptionsError(
        "InboxAsker.ask",
        "request",
        `InboxAsker.ask: the request must be an Elicitation object, got ${describeValue(request)}`,
      );
    }
    const timeoutMs = checkTimeoutMs(request.timeoutMs, "InboxAsker.ask");
    const questionId = options?.questionId === undefined ? randomUUID() : options.questionId;
    // The id keys the store row and the page's element: a plain token only (the gate's are UUIDs).
    if (typeof questionId !== "string" || !/^[A-Za-z0-9._:-]{1,128}$/.test(questionId)) {
      throw new OptionsError(
        "InboxAsker.ask",
        "questionId",
        `InboxAsker.ask: options.questionId must be 1-128 letters, digits, '.', '_', ':' or '-' (the gate passes a ` +
          `UUID), got ${describeValue(questionId)}`,
      );
    }
    const args = toolArguments(request);
    // A JSON text, a database and the page all walk the arguments recursively: refused here, by name, before any of them overflows.
    if (nestedDeeperThan(args, MAX_ARGUMENT_DEPTH)) {
      throw new OptionsError(
        "InboxAsker.ask",
        "request",
        `InboxAsker.ask: the question about '${toolName(request).slice(0, 100)}' is nested deeper than ` +
          `${MAX_ARGUMENT_DEPTH} levels (the inbox's limit), so it cannot be shown or stored; it was not asked, and ` +
          `its call is denied. Send flatter arguments`,
      );
    }
    // Asked again under its id (a durable run resumed): an answer given meanwhile decides; a pending question is waited on.
    const before = options?.again === true ? await this.#store.get(questionId) : undefined;
    if (before) return await this.#again(before, timeoutMs, options?.signal);
    const now = Date.now();
    const question: StoredQuestion = {
      id: questionId,
      callId: typeof request.toolCall?.id === "string" ? request.toolCall.id : null,
      tool: toolName(request),
      arguments: args,
      question: String(request.question ?? ""),
      ...factsOf(request),
      source: typeof request.source === "string" ? request.source : null,
      from: this.source,
      ...(this.worker !== undefined ? { workerName: this.worker } : {}),
      askedAt: new Date(now).toISOString(),
      deadlineAt: timeoutMs === undefined ? null : new Date(now + timeoutMs).toISOString(),
      status: "pending",
    };
    return await this.#await(question, timeoutMs, options?.signal);
  }

  /**
   * A question already in the store, asked again (a resumed run): its answer
   * when it has one; when still pending, this process takes it over
   * (`adopt`, on a shared store) and waits for it; a question the deadline
   * took is `expired`; one withdrawn or abandoned denies.
   */
  async #again(q: StoredQuestion, timeoutMs: number | undefined, signal: AbortSignal | undefined): Promise<Decision> {
    // The decisions row is the gate's record of this call (one write per decision), as for a fresh question.
    if (q.status === "answered") return answerDecision(q);
    if (q.status === "timed_out")
      return Object.freeze({ kind: "expired", note: q.reason ?? "withdrawn: the deadline passed before anyone answered" });
    if (q.status !== "pending")
      throw new InboxError(
        "inbox_stopped",
        `the approval inbox withdrew the question about '${q.tool}' before anyone answered (${q.reason ?? q.status})`,
      );
    return await this.#await(q, timeoutMs, signal, false);
  }

  /** Put a new question in the store; or take over one asked before (`adopt` on a shared store), resolving with it as it stands. */
  #place(question: StoredQuestion, fresh: boolean): Promise<StoredQuestion | undefined | void> {
    if (fresh) return this.#store.put(question);
    const adopt = (this.#store as InboxStore & { adopt?: (id: string) => Promise<StoredQuestion | undefined> }).adopt;
    return typeof adopt === "function" ? adopt.call(this.#store, question.id) : this.#store.get(question.id);
  }

  #await(question: StoredQuestion, timeoutMs: number | undefined, signal: AbortSignal | undefined, fresh = true): Promise<Decision> {
    return new Promise<Decision>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let done = false;
      const finish = (): boolean => {
        if (done) return false;
        done = true;
        unsubscribe();
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.#pending.delete(question.id);
        return true;
      };
      // True once this asker took the question back itself (its signal or its deadline): that settlement is an `expired` answer.
      let withdrawing = false;
      const expire = (note: string): void => {
        if (finish()) resolve(Object.freeze({ kind: "expired", note }));
      };
      const settled = (q: StoredQuestion): void => {
        if (withdrawing && q.status !== "answered") return expire(q.reason ?? "withdrawn");
        if (!finish()) return;
        if (q.status === "answered") {
          // No row here: the gate's record of this call is the row (see emit), one write per decision.
          resolve(answerDecision(q));
        } else if (q.status === "timed_out") {
          resolve(Object.freeze({ kind: "expired", note: q.reason ?? "withdrawn: the deadline passed before anyone answered" }));
        } else {
          // Withdrawn by the page's side (the inbox stopped), or abandoned: a deny that is not a policy decision.
          // (A withdrawal this asker made itself is for a gate that has already moved on.)
          reject(
            new InboxError(
              "inbox_stopped",
              `the approval inbox withdrew the question about '${q.tool}' before anyone answered (${q.reason ?? q.status})`,
            ),
          );
        }
      };
      // The asking side gave up (or the deadline fired): take the question off the page at once; whatever
      // the store says, the wait ends now.
      const withdraw = (settlement: Settlement): void => {
        const note = settlement.status === "answered" ? "" : settlement.reason;
        withdrawing = true;
        this.#store.settle(question.id, settlement).then(
          (r) => (!r.ok && r.question && r.question.status === "answered" ? settled(r.question) : expire(r.question?.reason ?? note)),
          () => expire(note),
        );
      };
      const onAbort = (): void => withdraw(withdrawal(signal!));
      const unsubscribe = this.#store.subscribe((event: InboxEvent) => {
        if (event.type === "settled" && event.question.id === question.id) settled(event.question);
        // A shared store lost its database: no answer can be trusted to arrive, so the call is denied now (gate
        // source `error`), and the question is withdrawn once the store is back.
        else if (event.type === "unavailable" && finish()) {
          this.#withdrawWhenBack(
            question.id,
            `the asking process lost the inbox database and denied the call (${event.error.message}); the call is gone`,
          );
          reject(event.error);
        }
      });
      if (timeoutMs !== undefined) {
        timer = setTimeout(
          () =>
            withdraw({
              status: "timed_out",
              reason: `timed out: the ${seconds(timeoutMs)} deadline passed before anyone answered; the call was denied`,
            }),
          timeoutMs,
        );
      }
      this.#pending.add(question.id);
      signal?.addEventListener("abort", onAbort, { once: true });
      // (a question taken over may have been settled between the read and the take-over: that settlement is the answer)
      this.#place(question, fresh).then(
        (now) => (now && now.status !== "pending" ? settled(now) : signal?.aborted && onAbort()),
        (err: unknown) => finish() && reject(err),
      );
    });
  }

  /**
   * Withdraw a question the asking side already denied: now if the store
   * answers, else on each `available` the store reports and on a backoff
   * (0.25 s doubling to 5 s, for at most about 5 minutes), whichever comes
   * first. Listening starts before the first attempt, so an `available` that
   * comes while that attempt is still waiting on the database is not missed.
   */
  #withdrawWhenBack(id: string, reason: string): void {
    let done = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let delay = 250;
    let tries = 0;
    const finish = (): void => {
      done = true;
      clearTimeout(timer);
      off();
    };
    const attempt = (): void => {
      if (done) return;
      tries++;
      void this.#store.settle(id, { status: "withdrawn", reason }).then(
        () => finish(),
        () => {
          if (done) return;
          if (tries >= 70) return finish();
          clearTimeout(timer);
          timer = setTimeout(attempt, delay);
          timer.unref?.();
          delay = Math.min(delay * 2, 5000);
        },
      );
    };
    const off = this.#store.subscribe((event) => {
      if (event.type === "available") attempt();
    });
    attempt();
  }

  /**
   * A `gate.check` target: each record becomes (or replaces) a row of the
   * decisions list, keyed by the record's `questionId` when someone was
   * asked; a timeout or abandonment of a question still on the page also
   * withdraws it (for a caller that passed no signal). Other events are
   * ignored. Never throws.
   */
  emit(event: string, data: Record<string, unknown>): void {
    if (event !== "gate.check" || !data || typeof data !== "object") return;
    const check = data as unknown as GateCheck;
    if (typeof check.tool !== "string" || !GATE_SOURCES.includes(check.source)) return;
    const questionId = typeof check.questionId === "string" ? check.questionId : null;
    if (questionId !== null && this.#pending.has(questionId) && (check.source === "timeout" || check.source === "error")) {
      this.#pending.delete(questionId);
      const settlement: Settlement =
        check.source === "timeout"
          ? { status: "timed_out", reason: `timed out: ${check.reason}` }
          : { status: "withdrawn", reason: check.reason };
      void this.#store.settle(questionId, settlement).catch(ignoreRejection("settling a question in the store; it lapses with its lease"));
    }
    const row: StoredDecision = {
      id: questionId ?? randomUUID(),
      tool: check.tool,
      allowed: check.allowed === true,
      source: check.source as GateSource,
      asked: check.asked === true,
      actor: typeof check.actor === "string" ? check.actor : null,
      ...(typeof check.claimedActor === "string" ? { claimedActor: check.claimedActor } : {}),
      reason: typeof check.reason === "string" ? check.reason : "",
      at: typeof check.at === "string" ? check.at : new Date().toISOString(),
      from: this.source,
      confirmed: true,
    };
    void this.#store.recordDecision(row).catch((err: unknown) => recordFailed(row, "the gate's record", err));
  }
}

/** `new InboxAsker({ store, source })`: an Asker for a store another process's (or this one's) inbox page reads. */
export function inboxAsker(options: InboxAskerOptions): InboxAsker {
  return new InboxAsker(options);
}
