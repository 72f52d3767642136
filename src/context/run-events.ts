/**
 * @module context/run-events
 * The events part of a `RunContext`: a sink given at construction (a child's
 * sink is its parent's delivery) and listeners added with `on()`. Delivery is
 * best-effort: a receiver that throws is ignored.
 */
import { callQuietly } from "../util/quietly.js";

/** One emitted event. */
export interface RunEvent {
  readonly event: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** A receiver of emitted events. */
export type EventSink = (event: RunEvent) => void;

/** @internal A context's receivers of events: its sink and its listeners. */
export class RunEvents {
  private listeners?: Set<EventSink>;

  constructor(private readonly sink?: EventSink) {}

  /** True when something would receive an event (the common bare run has nothing: it builds no event). */
  get heard(): boolean {
    return this.sink !== undefined || (this.listeners?.size ?? 0) > 0;
  }

  /** Hand `e` to the sink, then to each listener (a copy of the set: a listener may unsubscribe as it hears). */
  deliver(e: RunEvent): void {
    if (this.sink) callQuietly(this.sink, e);
    if (this.listeners?.size) for (const l of [...this.listeners]) callQuietly(l, e);
  }

  /** Add a listener; returns the function that removes it. */
  on(listener: EventSink): () => void {
    const all = (this.listeners ??= new Set());
    all.add(listener);
    return () => all.delete(listener);
  }
}
