/** Median and spread of a set of repetitions. */
export interface Summary {
  median: number;
  min: number;
  max: number;
  /** Number of repetitions. */
  n: number;
}

/** The median of `values` (mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Median, minimum and maximum of `values`. */
export function summarize(values: readonly number[]): Summary {
  return {
    median: median(values),
    min: Math.min(...values),
    max: Math.max(...values),
    n: values.length,
  };
}

/**
 * The ratio of our cost to the baseline's, from paired repetitions: each repetition of ours is
 * divided by the baseline repetition run next to it, so slow drifts of a shared machine cancel
 * out, and the median of those ratios is reported with their spread.
 */
export function pairedRatio(ours: readonly number[], baseline: readonly number[]): Summary {
  const n = Math.min(ours.length, baseline.length);
  const ratios = ours.slice(0, n).map((value, i) => value / (baseline[i] as number));
  return summarize(ratios);
}

/** Scales every value (e.g. to a per-1,000-events figure). */
export function scale(values: readonly number[], factor: number): number[] {
  return values.map((v) => v * factor);
}
