/**
 * @module contracts/run-record
 * The record of a durable agent run (`agent.run(input, { store })`): one run
 * row and its steps, in the same database as the inbox's questions,
 * decisions and call records (memory, PGlite, PostgreSQL). Every model turn,
 * tool call (started, finished) and question is a step (on a CLI cognition,
 * the CLI's session id), written before the
 * loop takes its next step, so a run whose process died is continued by
 * `agent.resume(runId, { store })` from what is written.
 *
 * The contract every store keeps:
 * - `createRun` resolves once any process on the store finds the run, held
 *   by the creating `holder`; an id already there rejects (`duplicate`).
 * - `claimRun(runId, holder)` takes the run for `holder` when nobody alive
 *   holds it (the holder's process ended: its lease lapsed, or on an
 *   embedded store it is not this process), else answers who holds it.
 * - `appendRunStep`, `appendRunSteps` and `setRunStatus` write only while `holder` holds the
 *   run (a run taken over by another worker is not written by the one that
 *   lost it); a step's `seq` is the next after the last one written.
 * - `releaseRun` lets go of the lease (the run stays as it is, resumable
 *   when not finished); `setRunStatus` to `finished` or `failed` lets go of
 *   it in the same write (a run's end is one write, not two).
 * - Every method may reject with the store's error (the database is down):
 *   the run stops where it is, and nothing already written is lost.
 */

/** Where a run stands: running (a worker holds it, or held it when its process died), waiting (for a person), finished, failed. */
export type RunStatus = "running" | "waiting" | "finished" | "failed";

/** Every `RunStatus`. */
export const RUN_STATUSES: readonly RunStatus[] = Object.freeze(["running", "waiting", "finished", "failed"]);

/** The version of the stored run state this package writes and reads. */
export const RUN_STATE_FORMAT = 1;

/** One row of `store.runs()`. */
export interface RunSummary {
  readonly runId: string;
  readonly status: RunStatus;
  /** The agent's name. */
  readonly agent: string;
  /** ISO 8601. */
  readonly updatedAt: string;
}

/** A run as stored (plain JSON). */
export interface RunHead extends RunSummary {
  /** The version of the stored state (`RUN_STATE_FORMAT` of the package that wrote it). */
  readonly format: number;
  /** What the run was started with. */
  readonly input: string;
  /** What the agent was when the run started (name, model, instructions, tools): a resume compares it with the agent it is given. */
  readonly fingerprint: Readonly<Record<string, unknown>>;
  /** The worker holding the run (`host:pid:...`), or `null` when none does. */
  readonly holder: string | null;
  /** The stored result of a finished or failed run. */
  readonly result?: Readonly<Record<string, unknown>>;
  /** ISO 8601. */
  readonly createdAt: string;
}

/** What a step records (`cli_session`: the session a CLI cognition's run goes on in, `{ cli, sessionId }`). */
export type RunStepKind = "turn" | "question" | "call_started" | "call_finished" | "cli_session";

/** One step of a run, in order (`seq` from 1). */
export interface RunStep {
  readonly seq: number;
  readonly kind: RunStepKind;
  /** The step's facts (plain JSON; what each kind carries is the agent loop's). */
  readonly data: Readonly<Record<string, unknown>>;
  /** ISO 8601. */
  readonly at: string;
}

/**
 * A claim of a run: taken (`ok`; `steps`, when the store says, is how many steps the run had as
 * it was taken, which spares a resume a second read when it matches what it read), or held by a
 * live worker (named), or unknown (`holder` undefined, `missing`).
 */
export type RunClaim =
  | { readonly ok: true; readonly steps?: number }
  | { readonly ok: false; readonly holder: string }
  | { readonly ok: false; readonly missing: true };

/** The store seam of durable runs (implemented by the inbox stores). */
export interface RunStore {
  /** This store's worker name (the holder it claims runs as). */
  readonly worker: string;
  /** Add a run held by `head.holder`. Rejects when the id exists. */
  createRun(head: RunHead): Promise<void>;
  /** The run and its steps in order, or `undefined`. */
  loadRun(runId: string): Promise<{ readonly head: RunHead; readonly steps: readonly RunStep[] } | undefined>;
  /** Take the run for `holder` when no live worker holds it (see the module's contract). */
  claimRun(runId: string, holder: string): Promise<RunClaim>;
  /** Append a step while `holder` holds the run; rejects when it does not, or when `seq` is taken. */
  appendRunStep(runId: string, holder: string, step: RunStep): Promise<void>;
  /**
   * Append `steps` (consecutive, in order) in one write while `holder` holds the run: all of them or none; rejects as
   * `appendRunStep` does. Optional: a run on a store without it writes them one by one.
   */
  appendRunSteps?(runId: string, holder: string, steps: readonly RunStep[]): Promise<void>;
  /** Set the status (and a finished run's result) while `holder` holds the run; `finished` and `failed` also let go of it. */
  setRunStatus(runId: string, holder: string, status: RunStatus, result?: Readonly<Record<string, unknown>>): Promise<void>;
  /** Let go of the run (no-op when `holder` does not hold it). */
  releaseRun(runId: string, holder: string): Promise<void>;
  /** The runs, newest change first, optionally only those in `status`. */
  runs(filter?: { readonly status?: RunStatus }): Promise<RunSummary[]>;
}
