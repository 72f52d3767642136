/**
 * @module context/run-context
 * The per-run context every tool, cognition and server receives.
 */
import { OptionsError } from "../errors/options.error.js";
import { Cancelled } from "../errors/cancelled.error.js";
import type { Asker } from "../contracts/elicitation.js";
import type { LLM } from "../contracts/llm.js";
import { ClientRequestError } from "./client-request.error.js";

/** MCP logging levels, least severe first (`logging/setLevel` filters by this order). */
export const LOG_LEVELS = Object.freeze(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const);

/** One MCP logging level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** An elicitation request (`elicitation/create` params): a message and a flat JSON Schema of what to ask. */
export interface ElicitRequest {
  readonly message: string;
  readonly requestedSchema: Readonly<Record<string, unknown>>;
  readonly [key: string]: unknown;
}

/** The client's answer to an elicitation. */
export interface ElicitResult {
  readonly action: "accept" | "decline" | "cancel";
  readonly content?: Readonly<Record<string, unknown>>;
  readonly [key: string]: unknown;
}

/** A sampling request (`sampling/createMessage` params). */
export interface SampleRequest {
  readonly messages: ReadonlyArray<{ readonly role: "user" | "assistant"; readonly content: Readonly<Record<string, unknown>> }>;
  readonly maxTokens: number;
  readonly [key: string]: unknown;
}

/** The client's sampled message. */
export interface SampleResult {
  readonly role: "user" | "assistant";
  readonly content: Readonly<Record<string, unknown>>;
  readonly model: string;
  readonly stopReason?: string;
  readonly [key: string]: unknown;
}

/**
 * What a served MCP call can reach of the client that made it. Set by the
 * serving layer on the call's context (`child({ channel })`); inherited by
 * that context's children; ended when the owning context is released.
 */
export interface ClientChannel {
  progress(done: number, total: number | undefined, message: string | undefined): void;
  log(level: LogLevel, data: unknown): void;
  elicit(request: ElicitRequest): Promise<ElicitResult>;
  sample(request: SampleRequest): Promise<SampleResult>;
  /** The call ended: drop pending notifications. */
  end(): void;
}

/** The two autonomy tiers: `"auto"` gates only tools that require approval; `"gated"` gates every side-effecting call. */
export type Autonomy = "auto" | "gated";

/** One emitted event. */
export interface RunEvent {
  readonly event: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** A receiver of emitted events. */
export type EventSink = (event: RunEvent) => void;

/** What a traced MCP request (or child process) is, for the observer. */
export interface TracedRequest {
  /** `tools/call`, `prompts/get`, ...; `process` for a CLI child process. */
  readonly method: string;
  /** The server's name (the client's view, or the serving module's). */
  readonly server: string;
  /** The tool, prompt or CLI name. */
  readonly name?: string;
  /** The request's `_meta` as received (incoming side only). */
  readonly meta?: Readonly<Record<string, unknown>>;
  /** The protocol era (`2025-11-25`, `2026-07-28`) when the side knows it. */
  readonly era?: string;
}

/** A traced request in flight: what to send with it, and the function that ends it. */
export interface TracedCall {
  /** Entries to merge into the request's `_meta` (W3C `traceparent`, `tracestate`); empty on the incoming side. */
  readonly meta: Readonly<Record<string, string>>;
  /** The request ended; `ok` false for an error result or a failure. */
  end(ok: boolean): void;
}

/**
 * @internal What a tracer attached to a run implements (`arc-agentkit/otel`'s
 * `instrument()`); reached only through `context/run-observer`. Every method
 * is best-effort: a throw is ignored, so observing a run can never break it.
 */
export interface RunObserver {
  /** Every event of the run tree, once, with the context it was emitted on. */
  event(origin: RunContext, event: RunEvent): void;
  /** `parent.child()` made `child` (so spans of the child nest under the parent's). */
  child?(parent: RunContext, child: RunContext): void;
  /** A request about to leave under `origin`: the `_meta` entries to add. */
  outgoing?(origin: RunContext, request: TracedRequest): TracedCall | undefined;
  /** A request received, handled under `ctx` (the child made for it): continue the trace its `meta` carries. */
  incoming?(ctx: RunContext, request: TracedRequest): TracedCall | undefined;
  /** True while the observer would do nothing with an event (a tracer on the no-op provider): `emit` then builds none for it. */
  idle?(): boolean;
}

/** @internal One run tree's observer, shared by a root and every child made from it. */
export class ObserverSlot {
  observer: RunObserver | undefined = undefined;
}

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
  /** The calling MCP client, for a served call (set by the serving layer). */
  readonly channel?: ClientChannel;
}

let counter = 0;
const NO_CALLER: Readonly<Record<string, unknown>> = Object.freeze({});

const noop = (): void => {};

/** Call `fn(arg)`, ignoring a throw: an event observer cannot break the run, a cancellation callback cannot stop the cancellation. */
function callQuietly<T>(fn: (arg: T) => void, arg: T): void {
  try {
    fn(arg);
  } catch {
    // best-effort by contract
  }
}

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
  /** Made when `signal` is first read (most per-call contexts never read it), or at once with a caller's signal. */
  private controller?: AbortController;
  /** `controller.signal`, or joined with the caller's signal. */
  private joined?: AbortSignal;
  /** The caller's signal (`options.signal`), if any. */
  private readonly given?: AbortSignal;
  private isCancelled = false;
  private reason: unknown;
  private readonly sink?: EventSink;
  private listeners?: Set<EventSink>;
  /** Live children (`child()`), cancelled with this context; a released child leaves the set. */
  private children?: Set<RunContext>;
  private parent?: RunContext;
  private unlink?: () => void;
  /** `onCancel()` callbacks, made on first use (most runs never register one). */
  private hooks?: Set<(reason: unknown) => void>;
  /** The calling MCP client (a served call and its children). */
  private channel?: ClientChannel;
  /** True when this context was given the channel (not inherited): its `release()` ends it. */
  private ownsChannel = false;
  /** The run's observer (a tracer), shared by a root and every child made from it (see `context/run-observer`). */
  private slot?: ObserverSlot;

  constructor(options: RunContextOptions = {}) {
    if (options.autonomy !== undefined && options.autonomy !== "auto" && options.autonomy !== "gated") {
      throw new OptionsError("RunContext", "autonomy", `RunContext: autonomy must be "auto" or "gated", got ${JSON.stringify(options.autonomy)}`);
    }
    this.llm = options.llm;
    this.asker = options.asker;
    this.autonomy = options.autonomy ?? "auto";
    this.caller = options.caller ? Object.freeze({ ...options.caller }) : NO_CALLER;
    this.runId = options.runId ?? `run-${process.pid}-${++counter}`;
    this.sink = options.sink;
    if (options.channel) {
      this.channel = options.channel;
      this.ownsChannel = true;
    }
    // A caller's signal is joined with AbortSignal.any, which holds it weakly:
    // many contexts on one signal add no listeners to it. Children made by
    // child() are linked through this.children instead (see there).
    const given = options.signal;
    if (given) {
      this.given = given;
      const joined = this.materialise();
      if (!joined.aborted) joined.addEventListener("abort", () => this.cascade(joined.reason), { once: true });
    }
  }

  /** Aborted once the run is cancelled; hand it to anything that accepts a signal. */
  get signal(): AbortSignal {
    return this.joined ?? this.materialise();
  }

  private materialise(): AbortSignal {
    const controller = (this.controller = new AbortController());
    if (this.isCancelled) controller.abort(this.reason);
    this.joined = this.given ? AbortSignal.any([controller.signal, this.given]) : controller.signal;
    return this.joined;
  }

  /** True once `cancel()` was called (or the parent signal aborted). */
  get cancelled(): boolean {
    return this.isCancelled || this.given?.aborted === true;
  }

  /** Why the run was cancelled (undefined while it is not). */
  private get why(): unknown {
    return this.isCancelled ? this.reason : this.given?.reason;
  }

  /** Cancel the run, and every live child. Idempotent. */
  cancel(reason?: unknown): void {
    if (this.cancelled) return;
    const why = reason ?? new Cancelled();
    this.isCancelled = true;
    this.reason = why;
    // Take the children first (a listener on this signal may release one as it
    // reacts), abort this context, then them: a child's listeners then see
    // the parent already cancelled.
    const kids = this.takeChildren();
    this.controller?.abort(why);
    this.runHooks(why);
    for (const c of kids) c.cancel(why);
  }

  /**
   * Call `fn(reason)` once when the run is cancelled (at once if it already
   * is); returns the function that unregisters it. Cheaper than a listener on
   * `signal` for per-call work (a plain set, no `EventTarget`), so a long-lived
   * run can register and unregister one per call. A callback that throws is
   * ignored.
   */
  onCancel(fn: (reason: unknown) => void): () => void {
    if (this.cancelled) {
      callQuietly(fn, this.why);
      return noop;
    }
    (this.hooks ??= new Set()).add(fn);
    return () => void this.hooks?.delete(fn);
  }

  private runHooks(reason: unknown): void {
    const hooks = this.hooks;
    if (!hooks?.size) return;
    this.hooks = undefined;
    for (const fn of hooks) callQuietly(fn, reason);
  }

  private takeChildren(): RunContext[] {
    if (!this.children?.size) return [];
    const kids = [...this.children];
    this.children.clear();
    for (const c of kids) c.parent = undefined;
    return kids;
  }

  /** The caller's signal aborted this context: what cancel() does after the abort. */
  private cascade(reason: unknown): void {
    if (!this.isCancelled) {
      this.isCancelled = true;
      this.reason = reason;
    }
    this.runHooks(reason);
    for (const c of this.takeChildren()) c.cancel(reason);
  }

  /** Throw `Cancelled` if the run was cancelled. Call it before starting side effects. */
  checkCancelled(): void {
    if (this.cancelled) {
      const reason = this.why;
      throw reason instanceof Cancelled ? reason : new Cancelled("the run was cancelled", reason);
    }
  }

  /**
   * Emit an event to the sink and every listener. Best-effort: a listener that
   * throws is ignored, so observing a run can never break it.
   */
  emit(event: string, data: Record<string, unknown> = {}): void {
    const watcher = this.slot?.observer;
    const observer = watcher?.idle?.() ? undefined : watcher;
    const sink = this.sink;
    const listeners = this.listeners?.size ? [...this.listeners] : undefined;
    // Nobody is observing (the common case for a bare run): build nothing.
    if (!sink && !listeners && !observer) return;
    const e: RunEvent = Object.freeze({ event, data: Object.freeze({ ...data }) });
    // The observer hears each event once, from the context it was emitted on.
    if (observer) callQuietly((ev: RunEvent) => observer.event(this, ev), e);
    this.deliver(e);
  }

  /** Hand `e` to the sink and the listeners (not the observer: a child's event reaches it once, at its origin). */
  private deliver(e: RunEvent): void {
    if (this.sink) callQuietly(this.sink, e);
    if (this.listeners?.size) for (const l of [...this.listeners]) callQuietly(l, e);
  }

  /** Subscribe to emitted events; returns the unsubscribe function. */
  on(listener: EventSink): () => void {
    const all = (this.listeners ??= new Set());
    all.add(listener);
    return () => all.delete(listener);
  }

  /**
   * A child context for one call: same llm, asker, tier and sink; cancelled
   * when this one is (or when `signal` aborts); with its own `caller`. Call
   * `release()` (or `using child = ctx.child(...)`) when the call ends, so a
   * long-lived run does not keep every finished call's context.
   */
  child(options: { caller?: Record<string, unknown>; signal?: AbortSignal; channel?: ClientChannel } = {}): RunContext {
    // Not AbortSignal.any on this (long-lived) signal: on Node 20 a source
    // signal keeps every composite made from it (nodejs/node#55351), which grew
    // a served registry's heap on every call. The parent holds its live
    // children in a set instead, and the extra (per-call) signal gets one
    // listener that release() removes.
    const c = new RunContext({
      llm: this.llm,
      asker: this.asker,
      autonomy: this.autonomy,
      sink: (e) => this.deliver(e),
      caller: { ...this.caller, ...(options.caller ?? {}) },
      runId: this.runId,
      channel: options.channel,
    });
    const slot = (c.slot = this.slot ??= new ObserverSlot());
    if (slot.observer?.child) callQuietly((kid: RunContext) => slot.observer?.child?.(this, kid), c);
    if (!options.channel && this.channel) c.channel = this.channel;
    const extra = options.signal;
    if (this.cancelled) c.cancel(this.why);
    else if (extra?.aborted) c.cancel(extra.reason);
    else {
      (this.children ??= new Set()).add(c);
      c.parent = this;
      if (extra) {
        const onAbort = (): void => c.cancel(extra.reason);
        extra.addEventListener("abort", onAbort, { once: true });
        c.unlink = () => extra.removeEventListener("abort", onAbort);
      }
    }
    return c;
  }

  /** Detach this context from its parent and its extra signal (it is no longer cancelled with them). Idempotent. */
  release(): void {
    if (this.ownsChannel) this.channel?.end();
    this.parent?.children?.delete(this);
    this.parent = undefined;
    this.unlink?.();
    this.unlink = undefined;
  }

  /**
   * Report progress. In a served MCP call whose client sent a progress token,
   * a `notifications/progress` (rate-limited: a tight loop sends at most one
   * per 20 ms, the latest value, and the final `done === total` at once);
   * elsewhere (an in-process run) a `progress` event. Never throws.
   */
  progress(done: number, total?: number, message?: string): void {
    if (typeof done !== "number" || !Number.isFinite(done)) return;
    if (this.channel) this.channel.progress(done, total, message);
    else this.emit("progress", { done, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message } : {}) });
  }

  /**
   * Log to the caller. In a served MCP call, a `notifications/message` at
   * `level` unless the client's `logging/setLevel` filters it out; elsewhere a
   * `log` event. An unknown level is `"info"`. Never throws.
   */
  log(level: LogLevel, data: unknown): void {
    const lvl: LogLevel = (LOG_LEVELS as readonly string[]).includes(level) ? level : "info";
    if (this.channel) this.channel.log(lvl, data);
    else this.emit("log", { level: lvl, data });
  }

  /**
   * Ask the calling MCP client's user (`elicitation/create`). Rejects with
   * `ClientRequestError` outside a served call, or when the client did not
   * declare the `elicitation` capability. On MCP 2026-07-28 a served
   * `tools/call` is answered `input_required` and this promise resolves when
   * the client retries with the answer (same run, same process); it waits at
   * most `serveRegistry`'s `suspendedCalls.ttlMs`, then the context is
   * cancelled with a `ClientGaveUp`. A resource read or prompt render cannot
   * ask on 2026-07-28 (`ClientRequestError`).
   */
  elicit(request: ElicitRequest): Promise<ElicitResult> {
    if (!this.channel) return Promise.reject(new ClientRequestError("elicitation", "ctx.elicit(): this run is not a served MCP call, so there is no client to ask; ask through ctx.asker instead"));
    return this.channel.elicit(request);
  }

  /**
   * Ask the calling MCP client's model (`sampling/createMessage`). Rejects
   * with `ClientRequestError` outside a served call, or when the client did
   * not declare the `sampling` capability. On MCP 2026-07-28 it suspends the
   * served call as `elicit()` does.
   */
  sample(request: SampleRequest): Promise<SampleResult> {
    if (!this.channel) return Promise.reject(new ClientRequestError("sampling", "ctx.sample(): this run is not a served MCP call, so there is no client to sample from; call ctx.llm instead"));
    return this.channel.sample(request);
  }

  /** `release()`, for `using child = ctx.child(...)`. */
  [Symbol.dispose](): void {
    this.release();
  }
}

/** @internal The observer slot of `ctx` (for `context/run-observer`, which is the only reader). */
export function observerSlotOf(ctx: RunContext): ObserverSlot {
  return (ctx["slot"] ??= new ObserverSlot());
}
