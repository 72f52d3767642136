/**
 * @module bench/lib/abba
 * Interleaved rounds. On these machines whichever batch runs first in a pair
 * reads about 8 % slower, so a fixed order charges that to one contender.
 * Each round runs the contenders in an order and then in its reverse (A B B A
 * for two; A B C C B A for three), the starting contender rotating from round
 * to round; a goal is judged on the median of the per-round ratios.
 */
import { median } from "./stats.js";

/** The batches of one contender in one round (two per round: one per half). */
export type RoundResults<T> = T[][];

/** Run `rounds` palindromic rounds over `names`; `batch(name, round)` runs one batch. Returns, per name, per round, its batches. */
export async function abba<T>(
  names: readonly string[],
  rounds: number,
  batch: (name: string, round: number) => Promise<T>,
): Promise<Map<string, RoundResults<T>>> {
  const out = new Map<string, RoundResults<T>>(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    const order = names.map((_, k) => names[(k + r) % names.length]!);
    for (const n of names) out.get(n)!.push([]);
    for (const n of [...order, ...[...order].reverse()]) out.get(n)![r]!.push(await batch(n, r));
  }
  return out;
}

/** Per round, `metric(contender's batches) / metric(baseline's batches)`. */
export function roundRatios<T>(
  results: Map<string, RoundResults<T>>,
  name: string,
  baseline: string,
  metric: (batches: T[]) => number,
): number[] {
  const a = results.get(name)!;
  const b = results.get(baseline)!;
  return a.map((batches, r) => metric(batches) / metric(b[r]!));
}

/** The median of the per-round ratios, plus the range. */
export function medianRatio(ratios: readonly number[]): { median: number; min: number; max: number } {
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

/**
 * For short rounds, whose batches are too small for a stable metric of their
 * own: `metric` over all of `name`'s rounds pooled, divided by the same over
 * `baseline`'s. The rounds interleave finely, so drift in machine speed
 * reaches every contender alike.
 */
export function pooledRatio<T>(
  results: Map<string, RoundResults<T>>,
  name: string,
  baseline: string,
  metric: (batches: T[]) => number,
): number {
  return metric(results.get(name)!.flat()) / metric(results.get(baseline)!.flat());
}
