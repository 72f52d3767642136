/**
 * @module otel/span-scope
 * The open spans of one `RunContext`, in the order they opened: the last one
 * still open is the parent of the next span made on that context; with none
 * open, the parent's scope (the context it was made from) says.
 */
import type { Context, Span } from "@opentelemetry/api";

/** Spans open on one context. */
export class SpanScope {
  /** Every open span, oldest first. */
  private readonly open: Span[] = [];
  /** The innermost span's context, made when a span first nested under it (one per parent span, not one per child). */
  private nestFor: Span | undefined;
  private nest: Context | undefined;
  /** Open `invoke_agent` spans (an agent run inside a tool on the same context nests); made with the first. */
  agents: Span[] | undefined;
  /** Open `execute_tool` spans by call id, with when each started (ms); made with the first (a served call's scope has none). */
  tools: Map<string, { span: Span; start: number }> | undefined;
  /** The open `chat` span (between `llm.request` and `llm.turn`). */
  chat: Span | undefined;
  /** The open CLI process span. */
  cli: Span | undefined;
  /** When the last event of this context arrived (ms): a `chat` span with no `llm.request` starts here (none yet: it starts now). */
  mark: number | undefined;

  /** `parent`: the scope of the context this one's context was made from (`ctx.child()`), if any. */
  constructor(readonly parent?: SpanScope) {}

  /** The innermost open span, or `undefined`. */
  get innermost(): Span | undefined {
    return this.open[this.open.length - 1];
  }

  /**
   * The context a span nested under the innermost open one starts in (`wrap` makes it, once per innermost span);
   * `undefined` with none open.
   */
  nesting(wrap: (span: Span) => Context): Context | undefined {
    const span = this.open[this.open.length - 1];
    if (!span) return undefined;
    if (this.nestFor !== span) {
      this.nest = wrap(span);
      this.nestFor = span;
    }
    return this.nest;
  }

  /** Track `span` as open. */
  push(span: Span): Span {
    this.open.push(span);
    return span;
  }

  /**
   * End `span` (if this scope still holds it): true when it was open. `last` runs just before the span ends (its final
   * attributes, its status).
   */
  end(span: Span | undefined, at?: number, last?: (span: Span) => void): boolean {
    if (!span) return false;
    const i = this.open.lastIndexOf(span);
    if (i < 0) return false;
    if (i === this.open.length - 1) this.open.pop();
    else this.open.splice(i, 1);
    if (this.nestFor === span) this.nestFor = this.nest = undefined;
    last?.(span);
    span.end(at);
    return true;
  }
}
