/**
 * @module context/run-context
 * The per-run context every tool, cognition and server receives, composed of
 * small parts: the cancellation tree (`context/cancel-scope`), the events
 * (`context/run-events`), an optional client channel the serving layer
 * supplies (`context/client-channel`), and the run's model, asker and tier.
 */
import { checkOptions, opt, type OptionRule } from "../options/option-checks.js";
import type { Asker } from "../contracts/elicitation.js";
import type { LLM } from "../contracts/llm.js";
import { callQuietly } from "../util/quietly.js";
import { CancelScope } from "./cancel-scope.js";
import { CALLER_KINDS, type Caller } from "./caller.js";
import {
  LOG_LEVELS,
  type ClientChannel,
  type ElicitRequest,
  type ElicitResult,
  type LogLevel,
  type SampleRequest,
  type SampleResult,
} from "./client-channel.js";
import { ClientRequestError } from "./client-request.error.js";
import { RunEvents, type EventSink, type RunEvent } from "./run-events.js";

/** The two autonomy tiers: `"auto"` gates only tools that require approval; `"gated"` gates every side-effecting call. */
export type Autonomy = "auto" | "gated";

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
  /**
   * Something happened while the request is open (an MCP task's status
   * changed: `mcp.task.status` with `mcp.task.id`, `mcp.task.status`):
   * record `attributes` on its span and as an event named `name`. Never
   * argument values.
   */
  note?(name: string, attributes: Readonly<Record<string, string | number | boolean>>): void;
}

/**
 * @internal What a tracer attached to a run implements (`arc-agentkit/otel`'s
 * `instrument()`); reached only through `context/run-observer`. Every method
 * is best-effort: a throw is ignored, so observing a run can never break it.
 */
export interface RunObserver {
  /** Every event of the run tree (that it `hears`), once, with the context it was emitted on; read it during the call, keep none of it. */
  event(origin: RunContext, event: RunEvent): void;
  /** `parent.child()` made `child` (so spans of the child nest under the parent's). */
  child?(parent: RunContext, child: RunContext): void;
  /** A request about to leave under `origin`: the `_meta` entries to add. */
  outgoing?(origin: RunContext, request: TracedRequest): TracedCall | undefined;
  /** A request received, handled under `ctx` (the child made for it): continue the trace its `meta` carries. */
  incoming?(ctx: RunContext, request: TracedRequest): TracedCall | undefined;
  /** True while the observer would do nothing with an event (a tracer on the no-op provider): `emit` then builds none for it. */
  idle?(): boolean;
  /** False for an event the observer ignores (a tracer reads no `llm.delta`): `emit` then builds none for it. Default: every event. */
  hears?(event: string): boolean;
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
  /** Who is calling (set by the serving layer on each served request's context; see `Caller`). Default none. */
  readonly caller?: Caller;
  /** A run id; generated when absent. */
  readonly runId?: string;
  /** The calling MCP client, for a served call (set by the serving layer). */
  readonly channel?: ClientChannel;
}

let counter = 0;
/** The start of a generated `runId` (the process's id does not change while it runs). */
const RUN_ID_PREFIX = `run-${process.pid}-`;

/** An object with a method `name`. */
function hasMethod(name: string): (v: unknown) => boolean {
  return (v) => typeof v === "object" && v !== null && typeof (v as Record<string, unknown>)[name] === "function";
}

/** `RunContext`'s options, declared once (checked by `new RunContext()`, never by `child()`). */
const RUN_CONTEXT_OPTIONS = {
  llm: opt.that<LLM>(
    hasMethod("complete"),
    "an LLM (an object with complete(request)), e.g. new AnthropicLLM(), new OpenAILLM() or FakeLLM.script([...])",
  ),
  asker: opt.that<Asker>(hasMethod("ask"), "an Asker (an object with ask(request)), e.g. new TerminalAsker()"),
  autonomy: opt.optional(opt.oneOf<Autonomy>(["auto", "gated"], "auto")),
  sink: opt.fn<EventSink>("(event) => void"),
  signal: opt.that<AbortSignal>((v) => v instanceof AbortSignal, "an AbortSignal"),
  caller: opt.that<Caller>(
    (v) => typeof v === "object" && v !== null && CALLER_KINDS.includes((v as Caller).kind),
    `a Caller, an object whose kind is one of ${CALLER_KINDS.map((k) => JSON.stringify(k)).join(", ")} (set by the serving layer)`,
  ),
  runId: opt.string("a non-empty string", true),
  channel: opt.that<ClientChannel>(
    (v) => ["progress", "log", "elicit", "sample", "end"].every((m) => hasMethod(m)(v)),
    "a ClientChannel (set by the serving layer; leave it unset)",
  ),
} satisfies Record<keyof RunContextOptions, OptionRule<unknown>>;

/**
 * Set by `child()` for the one construction it makes: a child is built from its parent's checked values, unchecked (a
 * served call's hot path).
 */
let building: RunContextOptions | undefined;

/**
 * The context of one run: events, cancellation, the autonomy tier, the model
 * and the asker. Cancellation is cooperative: `cancel()` aborts `signal`, and
 * `checkCancelled()` throws `Cancelled` once it has.
 */
export class RunContext {
  readonly llm?: LLM;
  readonly asker?: Asker;
  readonly autonomy: Autonomy;
  /**
   * Who is calling: switch on `caller.kind` (`"loopback"`, `"stdio"`, `"hosted"`, `"task"`); `undefined` for a run this
   * process started itself.
   */
  readonly caller: Caller | undefined;
  readonly runId: string;
  /** This context's node of the cancellation tree. */
  private readonly scope: CancelScope;
  /** This context's sink and listeners. */
  private readonly receivers: RunEvents;
  /** The calling MCP client (a served call and its children). */
  private channel?: ClientChannel;
  /** True when this context was given the channel (not inherited): its `release()` ends it. */
  private ownsChannel = false;
  /** The run's observer (a tracer), shared by a root and every child made from it (see `context/run-observer`). */
  private slot?: ObserverSlot;

  /**
   * @param options what the run has (all optional).
   * @throws OptionsError for an unknown option or a value of the wrong kind, naming it and what is accepted.
   */
  constructor(options: RunContextOptions = {}) {
    // Only the very object child() just built skips the check (a stale mark can never waive another's).
    if (options !== building) options = checkOptions(options, "RunContext", RUN_CONTEXT_OPTIONS);
    building = undefined;
    this.llm = options.llm;
    this.asker = options.asker;
    this.autonomy = options.autonomy ?? "auto";
    // A child is handed its parent's caller, already frozen: kept as it is, not copied per call.
    this.caller = !options.caller || Object.isFrozen(options.caller) ? options.caller : Object.freeze({ ...options.caller });
    this.runId = options.runId ?? RUN_ID_PREFIX + ++counter;
    this.receivers = new RunEvents(options.sink);
    this.scope = new CancelScope(options.signal);
    if (options.channel) {
      this.channel = options.channel;
      this.ownsChannel = true;
    }
  }

  /** Aborted once the run is cancelled; hand it to anything that accepts a signal. */
  get signal(): AbortSignal {
    return this.scope.signal;
  }

  /** True once `cancel()` was called (or the parent signal aborted). */
  get cancelled(): boolean {
    return this.scope.cancelled;
  }

  /** Cancel the run, and every live child. Idempotent. */
  cancel(reason?: unknown): void {
    this.scope.cancel(reason);
  }

  /**
   * Call `fn(reason)` once when the run is cancelled (at once if it already
   * is); returns the function that unregisters it. Cheaper than a listener on
   * `signal` for per-call work (a plain set, no `EventTarget`), so a long-lived
   * run can register and unregister one per call. A callback that throws is
   * ignored.
   */
  onCancel(fn: (reason: unknown) => void): () => void {
    return this.scope.onCancel(fn);
  }

  /** Throw `Cancelled` if the run was cancelled. Call it before starting side effects. */
  checkCancelled(): void {
    this.scope.checkCancelled();
  }

  /**
   * Emit an event to the sink and every listener. Best-effort: a listener that
   * throws is ignored, so observing a run can never break it.
   */
  emit(event: string, data: Record<string, unknown> = {}): void {
    const watcher = this.slot?.observer;
    const observer = watcher && !watcher.idle?.() && watcher.hears?.(event) !== false ? watcher : undefined;
    const heard = this.receivers.heard;
    // Nobody is observing (the common case for a bare run): build nothing.
    if (!observer && !heard) return;
    // The observer (internal: it reads the event while it is called, keeps none of it) gets the caller's data as it is
    // unless a sink or listener also hears it: only an event that leaves this call is copied and frozen.
    const e: RunEvent = heard ? Object.freeze({ event, data: Object.freeze({ ...data }) }) : { event, data };
    // The observer hears each event once, from the context it was emitted on.
    if (observer) callQuietly((ev: RunEvent) => observer.event(this, ev), e);
    if (heard) this.receivers.deliver(e);
  }

  /** Subscribe to emitted events; returns the unsubscribe function. */
  on(listener: EventSink): () => void {
    return this.receivers.on(listener);
  }

  /**
   * A child context for one call: same llm, asker, tier and sink; cancelled
   * when this one is (or when `signal` aborts); with its own `caller` (this
   * one's when none is given). Call
   * `release()` (or `using child = ctx.child(...)`) when the call ends, so a
   * long-lived run does not keep every finished call's context.
   */
  child(options: { caller?: Caller; signal?: AbortSignal; channel?: ClientChannel } = {}): RunContext {
    const receivers = this.receivers;
    building = {
      llm: this.llm,
      asker: this.asker,
      autonomy: this.autonomy,
      // A child's events reach this context's sink and listeners (not the observer: it heard them at their origin).
      sink: (e) => receivers.deliver(e),
      caller: options.caller ?? this.caller,
      runId: this.runId,
      channel: options.channel,
    };
    const c = new RunContext(building);
    const slot = (c.slot = this.slot ??= new ObserverSlot());
    if (slot.observer?.child) callQuietly((kid: RunContext) => slot.observer?.child?.(this, kid), c);
    if (!options.channel && this.channel) c.channel = this.channel;
    this.scope.adopt(c.scope, options.signal);
    return c;
  }

  /** Detach this context from its parent and its extra signal (it is no longer cancelled with them). Idempotent. */
  release(): void {
    if (this.ownsChannel) this.channel?.end();
    this.scope.release();
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
   * `tools/call` is answered `input_required` (the question first written to
   * the call's record in the module's store) and the client's retry carries
   * the answer; each question is answered once (a replayed request state is
   * refused with `-32602`, on every process sharing the store). On loopback
   * this promise resolves in the same run (it waits at most `serveRegistry`'s
   * `suspendedCalls.ttlMs`, then the context is cancelled with a
   * `ClientGaveUp`); hosted (`arc-agentkit/express`) this run ends and the
   * retry runs the tool again from the top, this question then answered from
   * the record. So: code after a question runs once per call; code before a
   * question may run again — keep side effects after it. A resource read or
   * prompt render cannot ask on 2026-07-28 (`ClientRequestError`).
   * `request` has the shape of the SDK's `ElicitRequestParams` and the
   * answer that of its `ElicitResult`: use the SDK's types, or
   * `Parameters<RunContext["elicit"]>[0]`.
   */
  elicit(request: ElicitRequest): Promise<ElicitResult> {
    if (!this.channel)
      return Promise.reject(
        new ClientRequestError(
          "elicitation",
          "ctx.elicit(): this run is not a served MCP call, so there is no client to ask; ask through ctx.asker instead",
        ),
      );
    return this.channel.elicit(request);
  }

  /**
   * Ask the calling MCP client's model (`sampling/createMessage`). Rejects
   * with `ClientRequestError` outside a served call, or when the client did
   * not declare the `sampling` capability. On MCP 2026-07-28 it waits as
   * `elicit()` does, under the same contract (code before it may run again).
   * `request` has the shape of the SDK's `CreateMessageRequestParams`
   * and the answer that of its `CreateMessageResult`.
   */
  sample(request: SampleRequest): Promise<SampleResult> {
    if (!this.channel)
      return Promise.reject(
        new ClientRequestError(
          "sampling",
          "ctx.sample(): this run is not a served MCP call, so there is no client to sample from; call ctx.llm instead",
        ),
      );
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
