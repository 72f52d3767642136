/**
 * @module otel/span-scope
 * The open spans of one `RunContext`, in the order they opened: the last one
 * still open is the parent of the next span made on that context.
 */
import type { Span } from "@opentelemetry/api";

/** Spans open on one context. */
export class SpanScope {
  /** Every open span, oldest first. */
  private readonly open: Span[] = [];
  /** Open `invoke_agent` spans (an agent run inside a tool on the same context nests). */
  readonly agents: Span[] = [];
  /** Open `execute_tool` spans by call id, with when each started (ms). */
  readonly tools = new Map<string, { span: Span; start: number }>();
  /** The open `chat` span (between `llm.request` and `llm.turn`). */
  chat: Span | undefined;
  /** The open CLI process span. */
  cli: Span | undefined;
  /** When the last event of this context arrived (ms): a `chat` span with no `llm.request` starts here. */
  mark = Date.now();

  /** The innermost open span, or `undefined`. */
  get innermost(): Span | undefined {
    return this.open[this.open.length - 1];
  }

  /** True while `span` is open in this scope. */
  holds(span: Span): boolean {
    return this.open.includes(span);
  }

  /** Track `span` as open. */
  push(span: Span): Span {
    this.open.push(span);
    return span;
  }

  /** End `span` (if this scope still holds it): true when it was open. */
  end(span: Span | undefined, at?: number): boolean {
    if (!span) return false;
    const i = this.open.lastIndexOf(span);
    if (i < 0) return false;
    this.open.splice(i, 1);
    span.end(at);
    return true;
  }
}
