/**
 * @module bench/lib/model-contenders
 * What benchmark 7's parent (`suites/models.bench`) and its worker processes
 * (`suites/models-worker`) share: the contenders' names and the shape of a
 * worker's answer.
 */

/** One batch: each turn's latency (ms), and the process CPU the batch took (µs). */
export interface ModelBatch {
  readonly lat: number[];
  readonly cpuUs: number;
}

/** What one worker prints: contender -> rounds -> that round's batches. */
export type WorkerResult = Record<string, ModelBatch[][]>;

/** The contenders of each provider: the agent turn, the bare call, the bare call with a signal. */
export const CONTENDERS = {
  anthropic: ["anthropic-agent", "anthropic-bare", "anthropic-signal"],
  openai: ["openai-agent", "openai-bare", "openai-signal"],
} as const;
