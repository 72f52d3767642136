/**
 * @module bench/lib/stats
 * Percentiles, medians and the number formats every table uses.
 */

/** The `q`-quantile (0..1) of `xs` by nearest rank; NaN for an empty list. Does not modify `xs`. */
export function percentile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
  return s[i]!;
}

/** The median (the mean of the two middle values for an even count); NaN for an empty list. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** `[min, max]` of `xs`. */
export function range(xs: readonly number[]): [number, number] {
  return [Math.min(...xs), Math.max(...xs)];
}

/** Milliseconds with 3 significant-ish decimals: `0.412`, `3.91`, `18.2`. */
export function ms(x: number): string {
  if (!Number.isFinite(x)) return "n/a";
  if (x < 1) return x.toFixed(3);
  if (x < 10) return x.toFixed(2);
  return x.toFixed(1);
}

/** A ratio as `1.04x`. */
export function ratio(x: number): string {
  return Number.isFinite(x) ? `${x.toFixed(2)}x` : "n/a";
}

/** An integer with thousands separators. */
export function int(x: number): string {
  return Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "n/a";
}

/** Bytes as `12.3 MiB` / `4.1 KiB` / `312 B` (signed). */
export function bytes(x: number): string {
  if (!Number.isFinite(x)) return "n/a";
  const a = Math.abs(x);
  if (a >= 1024 * 1024) return `${(x / 1024 / 1024).toFixed(1)} MiB`;
  if (a >= 1024) return `${(x / 1024).toFixed(1)} KiB`;
  return `${Math.round(x)} B`;
}
