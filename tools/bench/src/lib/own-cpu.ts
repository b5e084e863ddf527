import { median } from './stats.js';

/**
 * The layer's own CPU per repetition, from many pairs run in one process: the median of our
 * side minus the median of the baseline's. A figure of a few milliseconds a turn drowns in a
 * shared machine's noise over 15 pairs; over a few hundred pairs the medians settle, and the
 * same difference over each quarter of the pairs shows how far it still moves.
 */
export interface OwnCpu {
  /** Median ours − median baseline, ms per repetition. */
  ownMs: number;
  /** Median of ours, ms. */
  oursMs: number;
  /** Median of the baseline, ms. */
  baselineMs: number;
  /** The same difference over each consecutive quarter of the pairs, ms (its spread). */
  quartersMs: number[];
  /** Median of the pair-by-pair differences (ours `i` − baseline `i`), ms. */
  pairwiseMs: number;
  /** Pairs measured. */
  pairs: number;
}

/** The own-CPU figure of paired repetitions (`ours[i]` was run next to `baseline[i]`). */
export function ownCpu(ours: readonly number[], baseline: readonly number[]): OwnCpu {
  const pairs = Math.min(ours.length, baseline.length);
  const quarter = Math.max(1, Math.floor(pairs / 4));
  const quartersMs: number[] = [];
  for (let start = 0; start + quarter <= pairs && quartersMs.length < 4; start += quarter) {
    const end = start + quarter;
    quartersMs.push(median(ours.slice(start, end)) - median(baseline.slice(start, end)));
  }
  const differences = ours.slice(0, pairs).map((value, i) => value - (baseline[i] as number));
  return {
    ownMs: median(ours.slice(0, pairs)) - median(baseline.slice(0, pairs)),
    oursMs: median(ours.slice(0, pairs)),
    baselineMs: median(baseline.slice(0, pairs)),
    quartersMs,
    pairwiseMs: median(differences),
    pairs,
  };
}

/** One line for a scenario's notes: the figure first, then how it was made. */
export function ownCpuNote(figure: OwnCpu, what: string): string {
  const spread = `${Math.min(...figure.quartersMs).toFixed(2)}–${Math.max(...figure.quartersMs).toFixed(2)}`;
  return (
    `${what}: ${figure.ownMs.toFixed(2)} ms (quarters of the pairs ${spread} ms; ` +
    `median ours ${figure.oursMs.toFixed(2)} ms − median baseline ${figure.baselineMs.toFixed(2)} ms ` +
    `over ${figure.pairs} in-process pairs, no forced GC; median of pair differences ${figure.pairwiseMs.toFixed(2)} ms)`
  );
}
