/**
 * @module context/cancel-scope
 * The cancellation part of a `RunContext`: one node of the cancellation tree.
 * A scope is cancelled by `cancel()`, by the signal it was given, or by its
 * parent; cancelling it cancels its live children. Its `AbortSignal` is made
 * only when read (most per-call scopes never read it).
 */
import { Cancelled } from "../errors/cancelled.error.js";
import { callQuietly } from "../util/quietly.js";

const noop = (): void => {};

/** @internal One node of a run's cancellation tree. */
export class CancelScope {
  /** Made when `signal` is first read, or at once with a given signal. */
  private controller?: AbortController;
  /** `controller.signal`, or joined with the given signal. */
  private joined?: AbortSignal;
  private isCancelled = false;
  private reason: unknown;
  /** Live children (`adopt()`), cancelled with this scope; a released child leaves the set. */
  private children?: Set<CancelScope>;
  private parent?: CancelScope;
  private unlink?: () => void;
  /** `onCancel()` callbacks, made on first use (most runs never register one). */
  private hooks?: Set<(reason: unknown) => void>;

  /**
   * @param given a caller's signal: aborting it cancels this scope. Joined with
   * `AbortSignal.any`, which holds it weakly: many scopes on one signal add no
   * listeners to it. Children are linked through `adopt()` instead.
   */
  constructor(private readonly given?: AbortSignal) {
    if (given) {
      const joined = this.materialise();
      if (!joined.aborted) joined.addEventListener("abort", () => this.cascade(joined.reason), { once: true });
    }
  }

  /** Aborted once the scope is cancelled. */
  get signal(): AbortSignal {
    return this.joined ?? this.materialise();
  }

  private materialise(): AbortSignal {
    const controller = (this.controller = new AbortController());
    if (this.isCancelled) controller.abort(this.reason);
    this.joined = this.given ? AbortSignal.any([controller.signal, this.given]) : controller.signal;
    return this.joined;
  }

  /** True once cancelled (or the given signal aborted). */
  get cancelled(): boolean {
    return this.isCancelled || this.given?.aborted === true;
  }

  /** Why the scope was cancelled (undefined while it is not). */
  get why(): unknown {
    return this.isCancelled ? this.reason : this.given?.reason;
  }

  /** Cancel this scope and every live child (default reason: a `Cancelled`). Idempotent. */
  cancel(reason?: unknown): void {
    if (this.cancelled) return;
    const why = reason ?? new Cancelled();
    this.isCancelled = true;
    this.reason = why;
    // Take the children first (a listener on this signal may release one as it
    // reacts), abort this scope, then them: a child's listeners then see the
    // parent already cancelled.
    const kids = this.takeChildren();
    this.controller?.abort(why);
    this.runHooks(why);
    for (const c of kids) c.cancel(why);
  }

  /** Call `fn(reason)` once on cancellation (at once if already cancelled); returns the unregister function. A throw is ignored. */
  onCancel(fn: (reason: unknown) => void): () => void {
    if (this.cancelled) {
      callQuietly(fn, this.why);
      return noop;
    }
    (this.hooks ??= new Set()).add(fn);
    return () => void this.hooks?.delete(fn);
  }

  /** Throw `Cancelled` (or the `Cancelled` reason itself) once cancelled. */
  checkCancelled(): void {
    if (this.cancelled) {
      const reason = this.why;
      throw reason instanceof Cancelled ? reason : new Cancelled("the run was cancelled", reason);
    }
  }

  /**
   * Make `kid` a child: cancelled now if this scope (or `extra`) already is,
   * else held in this scope's set until `kid.release()`, and cancelled when
   * `extra` aborts. Not `AbortSignal.any` on this (long-lived) signal: on Node
   * 20 a source signal keeps every composite made from it (nodejs/node#55351),
   * which grew a served registry's heap on every call.
   */
  adopt(kid: CancelScope, extra?: AbortSignal): void {
    if (this.cancelled) kid.cancel(this.why);
    else if (extra?.aborted) kid.cancel(extra.reason);
    else {
      (this.children ??= new Set()).add(kid);
      kid.parent = this;
      if (extra) {
        const onAbort = (): void => kid.cancel(extra.reason);
        extra.addEventListener("abort", onAbort, { once: true });
        kid.unlink = () => extra.removeEventListener("abort", onAbort);
      }
    }
  }

  /** Detach from the parent and the extra signal (no longer cancelled with them). Idempotent. */
  release(): void {
    this.parent?.children?.delete(this);
    this.parent = undefined;
    this.unlink?.();
    this.unlink = undefined;
  }

  private runHooks(reason: unknown): void {
    const hooks = this.hooks;
    if (!hooks?.size) return;
    this.hooks = undefined;
    for (const fn of hooks) callQuietly(fn, reason);
  }

  private takeChildren(): CancelScope[] {
    if (!this.children?.size) return [];
    const kids = [...this.children];
    this.children.clear();
    for (const c of kids) c.parent = undefined;
    return kids;
  }

  /** The given signal aborted this scope: what cancel() does after the abort. */
  private cascade(reason: unknown): void {
    if (!this.isCancelled) {
      this.isCancelled = true;
      this.reason = reason;
    }
    this.runHooks(reason);
    for (const c of this.takeChildren()) c.cancel(reason);
  }
}
