import { performance } from 'node:perf_hooks';
import type { Summary } from './stats.js';

/** Which side of a comparison a process runs. */
export type Variant = 'ours' | 'baseline';

/** How a scenario process was asked to run. */
export interface RunOptions {
  /** `both`: timed repetitions, ours and baseline interleaved. One variant: the memory pass. */
  only: Variant | 'both';
  /** Timed repetitions per variant. */
  reps: number;
  /** Untimed warm-up repetitions per variant. */
  warmup: number;
}

/** CPU and wall time of one repetition, in milliseconds. */
export interface Timing {
  cpuMs: number;
  wallMs: number;
}

/** Runs `fn` and measures the process's CPU time (user + system) and the wall time it took. */
export async function timed(fn: () => Promise<void> | void): Promise<Timing> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await fn();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, wallMs };
}

/** Timings of both variants, pair `i` of each run next to each other. */
export interface PairedTimings {
  ours: Timing[];
  baseline: Timing[];
}

/** How {@link interleave} treats the heap between repetitions. */
export interface InterleaveOptions {
  /**
   * A full GC before every timed repetition (default), so garbage of one repetition is not
   * collected in the next. It also makes the engine forget what it learned about objects no
   * longer alive, so each repetition re-optimizes part of its code: `false` measures the steady
   * state of a process that keeps doing the same work (a server streaming reply after reply).
   */
  forceGc?: boolean;
}

/**
 * Runs the warm-up, then `reps` repetitions of each variant, interleaved and alternating which
 * goes first (ours, baseline, baseline, ours, ...) so neither side always runs on a warmer or
 * colder machine. With `only` set, runs just that variant (the memory pass). `prepare` runs
 * untimed before each repetition (e.g. queueing the server's response).
 */
export async function interleave(
  options: RunOptions,
  run: Record<Variant, () => Promise<void> | void>,
  prepare?: (variant: Variant) => Promise<void> | void,
  { forceGc = true }: InterleaveOptions = {},
): Promise<PairedTimings> {
  const variants: Variant[] = options.only === 'both' ? ['ours', 'baseline'] : [options.only];
  for (let i = 0; i < options.warmup; i++) {
    for (const v of variants) {
      await prepare?.(v);
      await run[v]();
    }
  }
  const out: PairedTimings = { ours: [], baseline: [] };
  for (let i = 0; i < options.reps; i++) {
    const order = i % 2 === 0 ? variants : [...variants].reverse();
    for (const v of order) {
      await prepare?.(v);
      if (forceGc) collectGarbage();
      out[v].push(await timed(run[v]));
    }
  }
  return out;
}

/** A full GC between repetitions when the process runs with --expose-gc (it always does here). */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Raw per-repetition values of one metric, as a scenario process measured them. */
export interface Measurement {
  /** What is measured, e.g. "CPU ms per 1,000 events". */
  metric: string;
  /** Whether a larger value is better (rates) or worse (times). */
  higherIsBetter: boolean;
  /** Ours, one value per repetition (empty when this process ran only the baseline). */
  ours: number[];
  /** The baseline, same unit, repetition `i` run next to ours `i`. */
  baseline: number[];
}

/** CPU and wall time per repetition, `per` naming one repetition (`turn`, `call`). */
export function cpuAndWallMeasurements(timings: PairedTimings, per: string): Measurement[] {
  return [
    {
      metric: `CPU ms per ${per}`,
      higherIsBetter: false,
      ours: timings.ours.map((t) => t.cpuMs),
      baseline: timings.baseline.map((t) => t.cpuMs),
    },
    {
      metric: `wall ms per ${per}`,
      higherIsBetter: false,
      ours: timings.ours.map((t) => t.wallMs),
      baseline: timings.baseline.map((t) => t.wallMs),
    },
  ];
}

/** One reported figure: ours against its baseline. */
export interface Figure {
  /** What is measured, e.g. "CPU ms per 1,000 events". */
  metric: string;
  /** Ours: median and spread over the repetitions. */
  ours: Summary;
  /** The baseline, same unit. */
  baseline: Summary;
  /** ours ÷ baseline per repetition pair (for rates: baseline rate ÷ our rate, i.e. time). */
  ratio: Summary;
  /** Whether a larger figure is better (rates) or worse (times). */
  higherIsBetter: boolean;
}

/** What a scenario process reports. */
export interface ScenarioResult {
  id: string;
  group:
    | 'streaming'
    | 'codec'
    | 'store'
    | 'router'
    | 'turn'
    | 'telemetry'
    | 'cli'
    | 'cold'
    | 'concurrency';
  /** One line saying what runs. */
  title: string;
  /** What the baseline is. */
  baseline: string;
  measurements: Measurement[];
  /** Sanity checks that passed, e.g. "10,000 text deltas on both paths; content matches". */
  checks: string[];
  /** Notes (fewer repetitions, sizes). */
  notes: string[];
  /** Peak resident set size of this process, in bytes. */
  maxRssBytes: number;
}

/** Peak resident set size of this process so far, in bytes. */
export function peakRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

/** Throws when a sanity check fails, so a broken scenario never reports a figure. */
export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`sanity check failed: ${message}`);
}
