/**
 * @module askers/pending-question
 * One question held by a `TerminalAsker`: its deadline timer, the abort
 * controller every prompt for it listens to, and the one-shot settlement of
 * the caller's promise.
 */
import type { Decision, Elicitation } from "../contracts/elicitation.js";
import { seconds } from "../util/format.js";

/** Why a question's prompts were aborted. */
export type AbortCause = "deadline" | "interrupted" | "withdrawn";

/** A question waiting for (or being shown to) the person. */
export class PendingQuestion {
  /** When the asking side's deadline fires (epoch ms), if it has one. */
  readonly deadlineAt: number | undefined;
  /** The promise `ask()` returned. */
  readonly decision: Promise<Decision>;
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout | undefined;
  #resolve!: (d: Decision) => void;
  #reject!: (e: unknown) => void;
  #settled = false;
  /** Why the asking side gave up, once it has (shown in the withdrawal line). */
  whyWithdrawn: string | undefined;

  constructor(
    readonly request: Elicitation,
    timeoutMs: number | undefined,
    /** Called once when the deadline fires; it aborts the prompts and, when they are gone, calls `expire()`. */
    onDeadline: (q: PendingQuestion) => void,
  ) {
    this.decision = new Promise<Decision>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    if (timeoutMs !== undefined) {
      this.deadlineAt = Date.now() + timeoutMs;
      this.#timer = setTimeout(() => onDeadline(this), timeoutMs);
    }
  }

  /** Aborted when the deadline fires, the asking side gives up or Ctrl-C interrupts; pass to every prompt for this question. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Why the prompts were aborted, if they were. */
  get abortCause(): AbortCause | undefined {
    return this.#controller.signal.aborted ? (this.#controller.signal.reason as AbortCause) : undefined;
  }

  /** Whether the caller already has its answer. */
  get settled(): boolean {
    return this.#settled;
  }

  /** Aborts every prompt of this question (idempotent; the first cause wins). */
  abort(cause: AbortCause): void {
    if (!this.#controller.signal.aborted) this.#controller.abort(cause);
  }

  /** Answers the caller once; later calls are ignored. */
  settle(decision: Decision): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#resolve(Object.freeze({ ...decision }));
  }

  /** Answers the caller `{ kind: "expired" }` (the asking side has already denied the call). */
  expire(): void {
    const deadline = this.request.timeoutMs === undefined ? "its" : `the ${seconds(this.request.timeoutMs)}`;
    this.settle({ kind: "expired", note: `withdrawn: ${deadline} deadline passed before anyone answered` });
  }

  /** Answers the caller `{ kind: "expired" }` because the asking side gave up (`why`, in words). */
  withdraw(why: string): void {
    this.settle({ kind: "expired", note: `withdrawn: ${why}` });
  }

  /** Fails the caller's promise once (a terminal that broke, not a person's answer). */
  fail(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#reject(error);
  }
}
