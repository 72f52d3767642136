/**
 * @module errors/run-resume.error
 * A durable run could not be started or resumed: its id is unknown or
 * already taken, a live worker holds it, its agent changed, or what is
 * stored cannot be read. Nothing of the run was executed.
 */
import { AgentkitError } from "./agentkit.error.js";

/** Why a run was refused. */
export type RunResumeFailure = "unknown_run" | "duplicate_run" | "held" | "agent_changed" | "unreadable" | "store";

/**
 * Thrown (code `run_resume`) by `agent.run(input, { store, runId })` and
 * `agent.resume(runId, { store })` when the run cannot go on; the message
 * names the run and what was wrong (the holder, each change of the agent,
 * the step that cannot be read), and nothing ran.
 */
export class RunResumeError extends AgentkitError {
  constructor(
    /** What kind of refusal it is. */
    readonly failure: RunResumeFailure,
    /** The run's id. */
    readonly runId: string,
    message: string,
    options?: { cause?: unknown; readonly changes?: readonly string[]; readonly holder?: string },
  ) {
    super("run_resume", message, options);
    this.changes = options?.changes ?? [];
    this.holder = options?.holder;
  }

  /** For `agent_changed`: each change, in words (`model: 'a' -> 'b'`). */
  readonly changes: readonly string[];
  /** For `held`: the worker holding the run. */
  readonly holder: string | undefined;
}
