/**
 * @module tools/tool-invocation
 * One tool invocation, for every entry point (the ReAct loop, the served
 * `tools/call` handler): cancellation check → argument check and admission
 * (the gate or a guard) → deadline → run → a value or a model-readable
 * message. The caller turns the outcome into its wire (a `ToolCallRecord`,
 * an MCP `CallToolResult`); the texts are written here once.
 */
import { Cancelled } from "../errors/cancelled.error.js";
import { ToolArgumentError } from "../errors/tool-argument.error.js";
import type { RunContext } from "../context/run-context.js";
import { errorLine, seconds } from "../util/format.js";
import type { Tool } from "./tool.js";

/**
 * What the admission step (the approval gate, or a served guard) answered: run (optionally with replaced arguments), or
 * refuse with the text the model reads.
 */
export type Admission =
  { readonly allowed: true; readonly arguments?: Record<string, unknown> } | { readonly allowed: false; readonly message: string };

/** One call to invoke. */
export interface InvocationPlan {
  readonly tool: Tool;
  /** The name the caller used (the wire name): messages say it. */
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** The call's context: its cancellation ends the invocation at once (the tool is not waited for). */
  readonly ctx: RunContext;
  /**
   * Asked after the arguments are checked, before the run; a throw or rejection is a refusal naming it. Absent: no
   * check, no asking (the tool checks its own arguments).
   */
  readonly admit?: (args: Record<string, unknown>) => Promise<Admission> | Admission;
  /** The run's deadline in ms: at it the call ends with a message and `ctx` is cancelled. Unset: none. */
  readonly timeoutMs?: number;
  /**
   * Asked when the deadline comes: `true` lets the run go on past it (a served call that became an MCP task: its
   * record, not the request, holds it).
   */
  readonly outlivesDeadline?: () => boolean;
  /** Called as the tool starts running. */
  readonly onRunning?: () => void;
}

/** Why a call did not produce a value. */
export type NotRunReason = "malformed" | "refused" | "failed" | "timeout" | "cancelled";

/** How an invocation ended; `arguments` are the ones the tool ran with (or would have). */
export type ToolOutcome =
  | { readonly ok: true; readonly value: unknown; readonly arguments: Record<string, unknown> }
  | {
      readonly ok: false;
      readonly reason: NotRunReason;
      readonly message: string;
      readonly running: boolean;
      readonly arguments: Record<string, unknown>;
      /** What the body threw (reason `failed`). */ readonly error?: unknown;
    };

/** `unknown tool 'x'. Available tools: ['a', 'b']`, given the list already formatted. */
export function unknownToolMessage(name: string, available: string): string {
  return `unknown tool '${name}'. Available tools: ${available}`;
}

/** The default text of a cancelled call: `the run was cancelled; 'x' was not run` / `... while 'x' was running`. */
export function cancelledMessage(name: string, running: boolean): string {
  return running ? `the run was cancelled while '${name}' was running` : `the run was cancelled; '${name}' was not run`;
}

/** Invoke one call (see the module note). Never rejects. */
export function invokeTool(plan: InvocationPlan): Promise<ToolOutcome> {
  return new ToolInvocation(plan).outcome;
}

/** One call in flight: settles once, from whichever of run, refusal, deadline or cancellation comes first. */
class ToolInvocation {
  readonly outcome: Promise<ToolOutcome>;
  private resolve!: (o: ToolOutcome) => void;
  private done = false;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly offCancel: () => void;
  private args: Record<string, unknown>;

  constructor(private readonly plan: InvocationPlan) {
    this.args = plan.arguments;
    this.outcome = new Promise<ToolOutcome>((resolve) => (this.resolve = resolve));
    // A plain callback on the call's own context; runs at once when it is already cancelled.
    this.offCancel = plan.ctx.onCancel(() => this.notRun("cancelled", cancelledMessage(plan.name, this.running)));
    if (!this.done) void this.start();
  }

  private async start(): Promise<void> {
    const { admit } = this.plan;
    if (admit) {
      // A malformed call is refused before anyone is asked: a person never approves what cannot run.
      const malformed = this.argumentProblem();
      if (malformed !== undefined) return this.notRun("malformed", malformed);
      const admission = await this.admission(admit);
      if (this.done) return;
      if (!admission.allowed) return this.notRun("refused", admission.message);
      if (admission.arguments) this.args = admission.arguments;
    }
    this.run();
  }

  private argumentProblem(): string | undefined {
    try {
      this.plan.tool.checkArguments?.(this.args);
      return undefined;
    } catch (err) {
      return err instanceof ToolArgumentError ? err.message : `tool '${this.plan.name}' failed: ${errorLine(err)}`;
    }
  }

  private async admission(admit: NonNullable<InvocationPlan["admit"]>): Promise<Admission> {
    const { name } = this.plan;
    try {
      const a = await admit(this.args);
      if (a && a.allowed === true) return a;
      return {
        allowed: false,
        message: a && typeof a.message === "string" ? a.message : `tool '${name}' was not run: its guard refused the call`,
      };
    } catch (err) {
      return { allowed: false, message: `tool '${name}' was not run: its guard failed: ${errorLine(err)}` };
    }
  }

  private run(): void {
    const { tool, ctx, timeoutMs, name } = this.plan;
    this.running = true;
    this.plan.onRunning?.();
    if (timeoutMs !== undefined) {
      this.timer = setTimeout(() => {
        if (this.plan.outlivesDeadline?.()) return;
        this.notRun("timeout", `tool '${name}' did not return within ${seconds(timeoutMs)} and was abandoned`);
        ctx.cancel(new Cancelled(`tool '${name}' was abandoned at its ${seconds(timeoutMs)} deadline`));
      }, timeoutMs);
    }
    let pending: Promise<unknown>;
    try {
      pending = Promise.resolve(tool.run(this.args, ctx));
    } catch (err) {
      pending = Promise.reject(err);
    }
    pending.then(
      (value) => this.settle({ ok: true, value, arguments: this.args }),
      (err: unknown) => this.failed(err),
    );
  }

  private failed(err: unknown): void {
    const { tool, ctx, name } = this.plan;
    // Cancelled first: it must not read as an ordinary failure, which invites a retry of abandoned work.
    if (err instanceof Cancelled || ctx.cancelled) return this.notRun("cancelled", cancelledMessage(name, true));
    // The model authored this call and is the only party that can fix it: the message verbatim (not a nested tool's).
    if (err instanceof ToolArgumentError && err.tool === tool.name) return this.notRun("malformed", err.message);
    this.notRun("failed", `tool '${name}' failed: ${errorLine(err)}`, err);
  }

  private notRun(reason: NotRunReason, message: string, error?: unknown): void {
    this.settle({ ok: false, reason, message, running: this.running, arguments: this.args, ...(error !== undefined ? { error } : {}) });
  }

  private settle(outcome: ToolOutcome): void {
    if (this.done) return;
    this.done = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.offCancel?.();
    this.resolve(outcome);
  }
}
