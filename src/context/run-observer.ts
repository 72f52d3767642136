/**
 * @module context/run-observer
 * The seam a tracer uses: attach one observer to a run tree, and the three
 * hook points the wire layers call (an outgoing MCP request, an incoming one,
 * a CLI child process). Nothing here knows OpenTelemetry; with no observer
 * attached every hook is one property read and returns `undefined`.
 */
import { OptionsError } from "../errors/options.error.js";
import { observerSlotOf, type RunContext, type RunObserver, type TracedCall, type TracedRequest } from "./run-context.js";

/**
 * Attach `observer` to `ctx`'s run tree (the children made from it, before or
 * after, included); returns the function that detaches it (idempotent).
 *
 * @throws OptionsError when the tree already has an observer.
 */
export function attachObserver(ctx: RunContext, observer: RunObserver, where: string): () => void {
  const slot = observerSlotOf(ctx);
  if (slot.observer)
    throw new OptionsError(
      where,
      "ctx",
      `${where}: this run is already instrumented; call the detach function instrument() returned first`,
    );
  slot.observer = observer;
  return () => {
    if (slot.observer === observer) slot.observer = undefined;
  };
}

/** Call `fn` and swallow a throw: a tracer cannot break the call it traces. */
function quietly<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}

/**
 * A request leaving under `ctx`: the observer's `_meta` entries and end callback, or `undefined` (no observer, or no
 * `ctx`). Never throws.
 */
export function outgoingRequest(ctx: RunContext | undefined, request: TracedRequest): TracedCall | undefined {
  if (!ctx) return undefined;
  const observer = observerSlotOf(ctx).observer;
  return observer?.outgoing ? quietly(() => observer.outgoing!(ctx, request)) : undefined;
}

/** A request received and handled under `ctx` (the child made for it): lets the observer continue its trace. Never throws. */
export function incomingRequest(ctx: RunContext, request: TracedRequest): TracedCall | undefined {
  const observer = observerSlotOf(ctx).observer;
  return observer?.incoming ? quietly(() => observer.incoming!(ctx, request)) : undefined;
}

/** End `call` (if any), ignoring a throw. */
export function endRequest(call: TracedCall | undefined, ok: boolean): void {
  if (call) quietly(() => call.end(ok));
}

/** Note `name` with `attributes` on `call` (if any, and if its observer takes notes), ignoring a throw. */
export function noteRequest(
  call: TracedCall | undefined,
  name: string,
  attributes: Readonly<Record<string, string | number | boolean>>,
): void {
  if (call?.note) quietly(() => call.note!(name, attributes));
}

/** `{ _meta }` with `call`'s entries, to spread into a request's params; `{}` when there is nothing to send. */
export function traceMeta(call: TracedCall | undefined): { _meta?: Record<string, string> } {
  return call && Object.keys(call.meta).length ? { _meta: { ...call.meta } } : {};
}
