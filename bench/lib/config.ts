/**
 * @module bench/lib/config
 * Run-wide settings every suite reads.
 */
import type { Section } from "./report.js";

/** Settings of one `npm run bench`. */
export interface BenchConfig {
  /** `--quick`: every count cut to about a fifth; for a smoke run, not for numbers. */
  readonly quick: boolean;
  /** Print progress lines to stderr. */
  readonly log: (line: string) => void;
}

/** `full` normally, `quick` under `--quick`. */
export function pick(cfg: BenchConfig, full: number, quick: number): number {
  return cfg.quick ? quick : full;
}

/** One benchmark. */
export interface Suite {
  /** The `--only=` name. */
  readonly id: string;
  readonly title: string;
  /** Run the benchmark and return its section (tables, goals, notes). */
  run(cfg: BenchConfig): Promise<Section>;
}
