/**
 * @module otel/run-tracer
 * The observer `instrument()` attaches: turns a run tree's events into
 * OpenTelemetry spans (GenAI conventions), and gives the wire layers the
 * trace context of each MCP request and CLI process.
 */
import type * as OtelApi from "@opentelemetry/api";
import type { Attributes, Context, Span, SpanKind, Tracer, TracerProvider } from "@opentelemetry/api";
import type { RunContext, RunObserver, TracedCall, TracedRequest } from "../context/run-context.js";
import type { RunEvent } from "../context/run-events.js";
import { ATTR, attrs, put, putUsage } from "./genai-attributes.js";
import { SpanScope } from "./span-scope.js";
import { parseTraceparent, traceHeaders } from "./traceparent.js";

type Api = typeof OtelApi;
type Data = Readonly<Record<string, unknown>>;

/**
 * Open `execute_tool` spans by call id, across every tracer of this process:
 * an approval server's decision (which knows only the tool-use id) joins the
 * CLI run's span for that call even when the two contexts are instrumented apart.
 */
const openTools = new Map<string, Span>();

/** The `_meta` entries of the incoming side: none (it continues a trace, it sends none on). */
const NO_META: Readonly<Record<string, string>> = Object.freeze({});

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** The events a tracer reads (and every `cli.*` one): `emit` builds no other for it (no `llm.delta` per streamed piece). */
const HEARD: ReadonlySet<string> = new Set([
  "agent.start",
  "agent.end",
  "llm.request",
  "llm.turn",
  "tool.call",
  "tool.result",
  "gate.check",
]);

/** The no-op provider of each copy of the API (the one a fresh proxy delegates to), looked up once. */
const noopProviders = new WeakMap<Api, TracerProvider>();

/**
 * True for the API's no-op tracer provider: the one a fresh proxy delegates
 * to (this copy of the API), or one of that class from another copy (an app's
 * ESM copy next to this CommonJS one), known by its class name.
 */
function isNoopProvider(api: Api, provider: TracerProvider): boolean {
  let noop = noopProviders.get(api);
  if (!noop) noopProviders.set(api, (noop = new api.ProxyTracerProvider().getDelegate()));
  return provider === noop || provider.constructor?.name === "NoopTracerProvider";
}

/** One instrumented run tree. */
export class RunTracer implements RunObserver {
  /** Each context's open spans, linked to its parent context's (so a child's spans nest under its parent's). */
  private readonly scopes = new WeakMap<RunContext, SpanScope>();
  private readonly kind: typeof SpanKind;
  /** The provider when it delegates (the global proxy, of any copy of the API): no-op until an SDK registers behind it. */
  private readonly proxy: { getDelegate(): TracerProvider } | undefined;
  /** The provider itself is the API's no-op one. */
  private readonly noop: boolean;
  /** The proxy's delegate when last looked at, and whether it was the no-op one. */
  private delegate: TracerProvider | undefined;
  private dormant = false;

  /** `provider` is where `tracer` came from: while it is (or delegates to) the API's no-op provider, the tracer stays dormant. */
  constructor(
    private readonly api: Api,
    private readonly tracer: Tracer,
    provider: TracerProvider,
  ) {
    this.kind = api.SpanKind;
    const delegating = typeof (provider as { getDelegate?: unknown }).getDelegate === "function";
    this.proxy = delegating ? (provider as unknown as { getDelegate(): TracerProvider }) : undefined;
    this.noop = !delegating && isNoopProvider(api, provider);
  }

  /**
   * True while every span would be the API's no-op span: the provider is the
   * no-op one, or a proxy (the global provider) with no SDK registered behind
   * it yet — looked at each time, so registering one later wakes the tracer.
   * Dormant, the tracer builds no span, attribute, context or event: an
   * instrumented run then costs what an uninstrumented one does, plus this
   * check. A request that brings a `traceparent` still goes the whole way (a
   * no-op span carries the remote context on to the run's own requests, as
   * the API does).
   */
  idle(): boolean {
    if (this.noop) return true;
    if (!this.proxy) return false;
    const d = this.proxy.getDelegate();
    if (d !== this.delegate) {
      this.delegate = d;
      this.dormant = isNoopProvider(this.api, d);
    }
    return this.dormant;
  }

  child(parent: RunContext, child: RunContext): void {
    this.scopes.set(child, new SpanScope(this.scope(parent)));
  }

  /** False for the events the tracer ignores (see `HEARD`): `emit` builds none of them for it. */
  hears(event: string): boolean {
    return HEARD.has(event) || event.startsWith("cli.") || event.startsWith("mcp.task.") || event === "mcp.result.cut";
  }

  /** True when `ctx` or an ancestor has a span open (a remote trace carried through a dormant tracer). */
  private underSpan(ctx: RunContext): boolean {
    for (let s = this.scopes.get(ctx); s; s = s.parent) if (s.innermost) return true;
    return false;
  }

  private scope(ctx: RunContext): SpanScope {
    let s = this.scopes.get(ctx);
    if (!s) this.scopes.set(ctx, (s = new SpanScope()));
    return s;
  }

  /** `span` in the root context: what a span nested under it starts in (made once per parent span, see `SpanScope.nesting`). */
  private readonly nestUnder = (span: Span): Context => this.api.trace.setSpan(this.api.ROOT_CONTEXT, span);

  /**
   * The context new spans on `ctx` nest under: the innermost open span of
   * `ctx` or its nearest ancestor, else the active context. With an app's
   * context manager holding a context of its own (not the root one), the span
   * nests in that context, as before, built afresh.
   */
  private parentOf(ctx: RunContext): Context {
    const active = this.api.context.active();
    for (let s = this.scopes.get(ctx); s; s = s.parent) {
      if (active !== this.api.ROOT_CONTEXT) {
        const span = s.innermost;
        if (span) return this.api.trace.setSpan(active, span);
      } else {
        const nested = s.nesting(this.nestUnder);
        if (nested) return nested;
      }
    }
    return active;
  }

  private start(name: string, kind: SpanKind, attributes: Attributes, parent: Context, startTime?: number): Span {
    return this.tracer.startSpan(name, startTime === undefined ? { kind, attributes } : { kind, attributes, startTime }, parent);
  }

  /** Marks a span that ended in error (its status), as `SpanScope.end` ends it. */
  private readonly failed = (span: Span): void => void span.setStatus({ code: this.api.SpanStatusCode.ERROR });

  event(origin: RunContext, e: RunEvent): void {
    if (this.idle()) return;
    const s = this.scope(origin);
    const d = e.data;
    switch (e.event) {
      case "agent.start": {
        const a: Attributes = { [ATTR.operation]: "invoke_agent" };
        put(a, ATTR.agentName, d.agent);
        put(a, ATTR.runId, origin.runId);
        (s.agents ??= []).push(s.push(this.start(`invoke_agent ${str(d.agent)}`, this.kind.INTERNAL, a, this.parentOf(origin))));
        break;
      }
      case "agent.end":
        this.agentEnd(s, d);
        break;
      case "llm.request": {
        const a: Attributes = { [ATTR.operation]: "chat" };
        put(a, ATTR.requestModel, d.model);
        put(a, ATTR.step, d.step);
        s.chat = s.push(this.start(`chat ${str(d.model)}`, this.kind.CLIENT, a, this.parentOf(origin)));
        break;
      }
      case "llm.turn":
        this.turn(origin, s, d);
        break;
      case "tool.call":
        this.toolCall(origin, s, d);
        break;
      case "tool.result":
        this.toolResult(s, d);
        break;
      case "gate.check":
        this.gate(origin, s, d);
        break;
      default:
        if (e.event.startsWith("cli.")) this.cli(s, e.event, d);
        else if (e.event.startsWith("mcp.task.")) this.task(origin, e.event, d);
        else if (e.event === "mcp.result.cut")
          this.innermostEvent(
            origin,
            e.event,
            attrs({
              "mcp.tool.name": d.tool,
              "mcp.result.chars": d.chars,
              "mcp.result.kept_chars": d.kept,
              "mcp.result.cut_chars": d.cut,
              "mcp.result.spill_id": d.spillId,
            }),
          );
    }
    s.mark = Date.now();
  }

  private agentEnd(s: SpanScope, d: Data): void {
    const span = s.agents?.pop();
    if (!span) return;
    const a: Attributes = {};
    put(a, ATTR.stopReason, d.stopReason);
    span.setAttributes(put(a, ATTR.step, d.steps));
    if (d.stopReason === "error") span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: "the run ended with an error" });
    // The outermost run on this context ended: calls it never answered end with it, nothing stays open.
    if (!s.agents?.length) this.endUnfinished(s);
    s.end(span);
  }

  /** End the scope's open tool spans (outcome `unfinished`) and drop them from the process-wide map. */
  private endUnfinished(s: SpanScope): void {
    if (!s.tools) return;
    for (const [id, open] of s.tools) {
      if (openTools.get(id) === open.span) openTools.delete(id);
      open.span.setAttribute(ATTR.toolOutcome, "unfinished");
      s.end(open.span);
    }
    s.tools.clear();
  }

  private turn(origin: RunContext, s: SpanScope, d: Data): void {
    const parent = this.toolParent(d.parentToolUseId);
    let span = s.chat;
    s.chat = undefined;
    // A CLI reports a turn once it is whole: its span covers the time since the last event.
    if (!span)
      span = s.push(
        this.start(
          `chat ${str(d.model)}`.trimEnd(),
          this.kind.CLIENT,
          attrs({ [ATTR.operation]: "chat", [ATTR.step]: d.step }),
          parent ?? this.parentOf(origin),
          s.mark,
        ),
      );
    const a = putUsage(put({}, ATTR.responseModel, d.model), d.usage);
    if (typeof d.stopReason === "string") a[ATTR.finishReasons] = [d.stopReason];
    span.setAttributes(a);
    s.end(span);
  }

  /** The open tool span a CLI subagent's events belong to (`parentToolUseId`), as a parent context. */
  private toolParent(id: unknown): Context | undefined {
    const span = typeof id === "string" ? openTools.get(id) : undefined;
    return span ? this.api.trace.setSpan(this.api.context.active(), span) : undefined;
  }

  private toolCall(origin: RunContext, s: SpanScope, d: Data): void {
    const id = str(d.id);
    const a: Attributes = { [ATTR.operation]: "execute_tool" };
    put(a, ATTR.toolName, d.tool);
    put(a, ATTR.toolCallId, id);
    a[ATTR.toolType] = "function";
    const span = s.push(
      this.start(`execute_tool ${str(d.tool)}`, this.kind.INTERNAL, a, this.toolParent(d.parentToolUseId) ?? this.parentOf(origin)),
    );
    (s.tools ??= new Map()).set(id, { span, start: Date.now() });
    if (id) openTools.set(id, span);
  }

  private toolResult(s: SpanScope, d: Data): void {
    const id = str(d.id);
    const open = s.tools?.get(id);
    if (!open) return;
    s.tools?.delete(id);
    if (openTools.get(id) === open.span) openTools.delete(id);
    open.span.setAttribute(ATTR.toolOutcome, d.ok === true ? "ok" : "error");
    if (d.ok !== true) open.span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: "the call was refused or failed" });
    s.end(open.span);
  }

  /**
   * One gate decision: a span under the call it settled (found by call id, in any instrumented context of this process)
   * or under the current span. Never the arguments.
   */
  private gate(origin: RunContext, s: SpanScope, d: Data): void {
    const id = str(d.id);
    const local = s.tools?.get(id);
    const joined = local ? undefined : id ? openTools.get(id) : undefined;
    const parent = local
      ? this.api.trace.setSpan(this.api.context.active(), local.span)
      : joined
        ? this.api.trace.setSpan(this.api.context.active(), joined)
        : this.parentOf(origin);
    const facts: Attributes = {};
    put(facts, ATTR.gateSource, d.source);
    put(facts, ATTR.gateAllowed, d.allowed);
    put(facts, ATTR.gateAsked, d.asked);
    put(facts, ATTR.gateKind, d.kind);
    put(facts, ATTR.gateActor, d.actor);
    put(facts, ATTR.gateQuestionId, d.questionId);
    put(facts, ATTR.gateVia, d.via);
    const a: Attributes = { ...facts };
    put(a, ATTR.toolName, d.tool);
    if (id) put(a, ATTR.toolCallId, id);
    put(a, ATTR.runId, origin.runId);
    // Found by the call's id (on this context or any instrumented one of this process), or only by where it was emitted.
    a[ATTR.gateLinkedBy] = local || joined ? "tool_call_id" : "context";
    this.start(`gate ${str(d.tool)}`, this.kind.INTERNAL, a, parent, local?.start).end();
    (local?.span ?? joined)?.setAttributes(facts);
  }

  /**
   * An MCP task's event (`mcp.task.created`, `.question`, `.answered`,
   * `.status`) on the span of the call it belongs to (the served
   * `tools/call`, joined to the client's trace): ids, statuses and who
   * answered, never argument values.
   */
  private task(origin: RunContext, event: string, d: Data): void {
    this.innermostEvent(
      origin,
      event,
      attrs({
        "mcp.task.id": d.taskId,
        "mcp.task.status": d.status,
        "mcp.task.question": d.key,
        "mcp.task.method": d.method,
        "mcp.task.answered_by": d.by,
        "mcp.tool.name": d.tool,
      }),
    );
  }

  /** `event` on the innermost open span of `origin`'s scope or its parents' (sizes and ids only: never a result's content). */
  private innermostEvent(origin: RunContext, event: string, a: Attributes): void {
    for (let sc = this.scopes.get(origin); sc; sc = sc.parent) {
      const span = sc.innermost;
      if (!span) continue;
      span.addEvent(event, a);
      return;
    }
  }

  private cli(s: SpanScope, event: string, d: Data): void {
    const span = s.cli;
    if (!span) return;
    if (event === "cli.init") {
      span.setAttributes(attrs({ [ATTR.cliSession]: d.sessionId, [ATTR.requestModel]: d.model, [ATTR.cliVersion]: d.version }));
      span.addEvent("cli.init");
    } else if (event === "cli.denial") {
      span.addEvent("cli.permission_denial", attrs({ [ATTR.toolName]: d.tool, [ATTR.toolCallId]: d.id }));
    } else if (event === "cli.retry") {
      span.addEvent("cli.retry", attrs({ attempt: d.attempt }));
    } else if (event === "cli.exit") {
      span.setAttributes(attrs({ [ATTR.cliExitHow]: d.how, [ATTR.exitCode]: d.code }));
      const clean = d.how === "exit" && d.code === 0;
      if (!clean) span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: `the CLI ended: ${str(d.how)}` });
      // Calls the process never answered end with it.
      this.endUnfinished(s);
      s.cli = undefined;
      s.end(span);
    }
  }

  outgoing(origin: RunContext, request: TracedRequest): TracedCall | undefined {
    if (this.idle() && !this.underSpan(origin)) return undefined;
    const s = this.scope(origin);
    const isProcess = request.method === "process";
    const name = isProcess ? `process ${request.server}` : request.name ? `${request.method} ${request.name}` : request.method;
    const a: Attributes = {};
    if (isProcess) {
      put(a, ATTR.cliName, request.server);
      put(a, ATTR.runId, origin.runId);
    } else this.requestAttrs(a, request);
    const span = s.push(this.start(name, isProcess ? this.kind.INTERNAL : this.kind.CLIENT, a, this.parentOf(origin)));
    if (isProcess) {
      s.cli = span;
      // A turn the CLI reports before any other event covers the time since the process started.
      s.mark ??= Date.now();
    }
    const sc = span.spanContext();
    const meta = this.api.trace.isSpanContextValid(sc) ? traceHeaders(sc) : {};
    return {
      meta,
      end: (ok) => this.endCall(s, span, ok),
      // An MCP task's id and status transitions (mcp.task.*): the span keeps the latest, an event each change.
      note: (name, attributes) => {
        span.setAttributes(attributes);
        span.addEvent(name, attributes);
      },
    };
  }

  /** An MCP request's attributes (method, server, tool, protocol era when known) on `a`. */
  private requestAttrs(a: Attributes, request: TracedRequest): Attributes {
    put(a, ATTR.mcpMethod, request.method);
    put(a, ATTR.mcpServer, request.server);
    put(a, ATTR.toolName, request.name);
    return put(a, ATTR.mcpProtocol, request.era);
  }

  incoming(ctx: RunContext, request: TracedRequest): TracedCall | undefined {
    const meta = request.meta ?? {};
    if (this.idle() && meta.traceparent === undefined && !this.underSpan(ctx)) return undefined;
    const s = this.scope(ctx);
    const remote = parseTraceparent(meta.traceparent, meta.tracestate, (raw) => this.api.createTraceState(raw));
    // No trace context (the Claude CLI sends none), but a tool-use id: join that call's open span in this process.
    const joined = remote ? undefined : this.toolParent(meta["claudecode/toolUseId"]);
    const parent = remote ? this.api.trace.setSpanContext(this.api.ROOT_CONTEXT, remote) : (joined ?? this.parentOf(ctx));
    const linkedBy = remote ? "traceparent" : joined ? "tool_call_id" : "context";
    const a = this.requestAttrs({}, request);
    put(a, ATTR.runId, ctx.runId);
    a[ATTR.linkedBy] = linkedBy;
    if (request.method === "tools/call") a[ATTR.operation] = "execute_tool";
    const span = s.push(this.start(request.name ? `${request.method} ${request.name}` : request.method, this.kind.SERVER, a, parent));
    return { meta: NO_META, end: (ok) => this.endCall(s, span, ok) };
  }

  private endCall(s: SpanScope, span: Span, ok: boolean): void {
    if (s.cli === span) s.cli = undefined;
    s.end(span, undefined, ok ? undefined : this.failed);
  }
}
