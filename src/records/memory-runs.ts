/**
 * @module records/memory-runs
 * Durable-run records in this process's memory: the run half of
 * `MemoryInboxStore`. It keeps the contract of `contracts/run-record`
 * (created once, written only by its holder, one holder at a time) but
 * nothing outlives the process: a run is resumable here only after the
 * worker running it let go (its context was cancelled, or it stopped on a
 * store error). For runs that survive a crash use `pgliteInboxStore` or
 * `postgresInboxStore`.
 */
import { randomUUID } from "node:crypto";
import type { RunClaim, RunHead, RunStatus, RunStep, RunStore, RunSummary } from "../contracts/run-record.js";

/** A run held here, with its steps. */
interface HeldRun {
  head: RunHead;
  readonly steps: RunStep[];
}

/** The message of a write by a worker that does not hold the run. */
export function notHolderMessage(runId: string, holder: string, current?: string | null): string {
  const now =
    current === undefined ? "another worker took it, or it was let go" : current === null ? "nobody holds it" : `'${current}' does`;
  return `run '${runId}' is not held by '${holder}' (${now}); the step was not written`;
}

/** Runs in this process's memory (see the module note). */
export class MemoryRuns implements RunStore {
  readonly worker = `memory:${process.pid}:${randomUUID().slice(0, 8)}`;
  readonly #runs = new Map<string, HeldRun>();

  createRun(head: RunHead): Promise<void> {
    if (this.#runs.has(head.runId)) return Promise.reject(new Error(`a run with id '${head.runId}' already exists`));
    this.#runs.set(head.runId, { head: Object.freeze({ ...head }), steps: [] });
    return Promise.resolve();
  }

  loadRun(runId: string): Promise<{ head: RunHead; steps: readonly RunStep[] } | undefined> {
    const r = this.#runs.get(runId);
    return Promise.resolve(r ? { head: r.head, steps: [...r.steps] } : undefined);
  }

  claimRun(runId: string, holder: string): Promise<RunClaim> {
    const r = this.#runs.get(runId);
    if (!r) return Promise.resolve({ ok: false, missing: true });
    if (r.head.holder !== null) return Promise.resolve({ ok: false, holder: r.head.holder });
    this.#change(r, { holder });
    return Promise.resolve({ ok: true, steps: r.steps.length });
  }

  appendRunStep(runId: string, holder: string, step: RunStep): Promise<void> {
    return this.appendRunSteps(runId, holder, [step]);
  }

  appendRunSteps(runId: string, holder: string, steps: readonly RunStep[]): Promise<void> {
    try {
      const r = this.#held(runId, holder);
      steps.forEach((step, i) => {
        const next = r.steps.length + 1 + i;
        if (step.seq !== next) throw new Error(`run '${runId}': step ${step.seq} is not the next one (${next})`);
      });
      for (const step of steps) r.steps.push(Object.freeze({ ...step }));
      const last = steps.at(-1);
      if (last) this.#change(r, { status: last.kind === "question" ? "waiting" : "running" });
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  setRunStatus(runId: string, holder: string, status: RunStatus, result?: Readonly<Record<string, unknown>>): Promise<void> {
    try {
      const ended = status === "finished" || status === "failed";
      this.#change(this.#held(runId, holder), { status, ...(result ? { result } : {}), ...(ended ? { holder: null } : {}) });
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  releaseRun(runId: string, holder: string): Promise<void> {
    const r = this.#runs.get(runId);
    if (r && r.head.holder === holder) this.#change(r, { holder: null });
    return Promise.resolve();
  }

  runs(filter: { readonly status?: RunStatus } = {}): Promise<RunSummary[]> {
    const all = [...this.#runs.values()].map((r) => r.head).filter((h) => filter.status === undefined || h.status === filter.status);
    all.sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt));
    return Promise.resolve(all.map(({ runId, status, agent, updatedAt }) => ({ runId, status, agent, updatedAt })));
  }

  #held(runId: string, holder: string): HeldRun {
    const r = this.#runs.get(runId);
    if (!r || r.head.holder !== holder) throw new Error(notHolderMessage(runId, holder, r ? r.head.holder : null));
    return r;
  }

  #change(r: HeldRun, change: Partial<RunHead>): void {
    r.head = Object.freeze({ ...r.head, ...change, updatedAt: new Date().toISOString() });
  }
}
