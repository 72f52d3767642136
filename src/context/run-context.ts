/**
 * @module context/run-context
 * The per-run context every tool, cognition and server receives.
 */
import { Cancelled } from "../errors/cancelled.error.js";
import type { Asker } from "../agents/elicitation.js";
import type { LLM } from "../agents/llm.js";

/** The two autonomy tiers: `"auto"` gates only tools that require approval; `"gated"` gates every side-effecting call. */
export type Autonomy = "auto" | "gated";

/** One emitted event. */
export interface RunEvent {
  readonly event: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** A receiver of emitted events. */
export type EventSink = (event: RunEvent) => void;

/** Options of a `RunContext`. */
export interface RunContextOptions {
  /** The model the run's cognition calls. */
  readonly llm?: LLM;
  /** The human transport for approvals. */
  readonly asker?: Asker;
  /** The autonomy tier; default `"auto"`. */
  readonly autonomy?: Autonomy;
  /** Where emitted events go (besides `on()` listeners). */
  readonly sink?: EventSink;
  /** A parent signal: aborting it cancels this context. */
  readonly signal?: AbortSignal;
  /** Who is calling (a served client's identity, a user id); free-form. */
  readonly caller?: Readonly<Record<string, unknown>>;
  /** A run id; generated when absent. */
  readonly runId?: string;
}

let counter = 0;

/**
 * The context of one run: events, cancellation, the autonomy tier, the model
 * and the asker. Cancellation is cooperative: `cancel()` aborts `signal`, and
 * `checkCancelled()` throws `Cancelled` once it has.
 */
export class RunContext {
  readonly llm?: LLM;
  readonly asker?: Asker;
  readonly autonomy: Autonomy;
  readonly caller: Readonly<Record<string, unknown>>;
  readonly runId: string;
  private readonly controller = new AbortController();
  /** `controller.signal`, joined with the parent signal when there is one. */
  private readonly joined: AbortSignal;
  private readonly sink?: EventSink;
  private readonly listeners = new Set<EventSink>();

  constructor(options: RunContextOptions = {}) {
    if (options.autonomy !== undefined && options.autonomy !== "auto" && options.autonomy !== "gated") {
      throw new TypeError(`RunContext: autonomy must be "auto" or "gated", got ${JSON.stringify(options.autonomy)}`);
    }
    this.llm = options.llm;
    this.asker = options.asker;
    this.autonomy = options.autonomy ?? "auto";
    this.caller = Object.freeze({ ...(options.caller ?? {}) });
    this.runId = options.runId ?? `run-${process.pid}-${++counter}`;
    this.sink = options.sink;
    // AbortSignal.any holds the parent only weakly: a listener on a long-lived
    // parent would keep every child alive and warn past 10 children.
    this.joined = options.signal ? AbortSignal.any([this.controller.signal, options.signal]) : this.controller.signal;
  }

  /** Aborted once the run is cancelled; hand it to anything that accepts a signal. */
  get signal(): AbortSignal {
    return this.joined;
  }

  /** True once `cancel()` was called (or the parent signal aborted). */
  get cancelled(): boolean {
    return this.joined.aborted;
  }

  /** Cancel the run. Idempotent. */
  cancel(reason?: unknown): void {
    if (!this.joined.aborted) this.controller.abort(reason ?? new Cancelled());
  }

  /** Throw `Cancelled` if the run was cancelled. Call it before starting side effects. */
  checkCancelled(): void {
    if (this.joined.aborted) {
      const reason = this.joined.reason;
      throw reason instanceof Cancelled ? reason : new Cancelled("the run was cancelled", reason);
    }
  }

  /**
   * Emit an event to the sink and every listener. Best-effort: a listener that
   * throws is ignored, so observing a run can never break it.
   */
  emit(event: string, data: Record<string, unknown> = {}): void {
    const e: RunEvent = Object.freeze({ event, data: Object.freeze({ ...data }) });
    for (const l of [this.sink, ...this.listeners]) {
      if (!l) continue;
      try {
        l(e);
      } catch {
        // best-effort by contract
      }
    }
  }

  /** Subscribe to emitted events; returns the unsubscribe function. */
  on(listener: EventSink): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * A child context for one call: same llm, asker, tier and sink; cancelled
   * when this one is; with its own `caller` and an optional extra signal.
   */
  child(options: { caller?: Record<string, unknown>; signal?: AbortSignal } = {}): RunContext {
    const signals = [this.signal, ...(options.signal ? [options.signal] : [])];
    const c = new RunContext({
      llm: this.llm,
      asker: this.asker,
      autonomy: this.autonomy,
      sink: (e) => this.emit(e.event, e.data as Record<string, unknown>),
      signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals),
      caller: { ...this.caller, ...(options.caller ?? {}) },
      runId: this.runId,
    });
    return c;
  }
}
