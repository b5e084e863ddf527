import type { Figure, Measurement, ScenarioResult } from './lib/harness.js';
import { pairedRatio, type Summary, summarize } from './lib/stats.js';

/** A scenario's merged outcome: figures over every repetition, peak memory of each side. */
export interface ScenarioReport {
  id: string;
  group: ScenarioResult['group'];
  title: string;
  baseline: string;
  figures: Figure[];
  /** Peak RSS of the process that ran only our side / only the baseline, in bytes. */
  maxRss: { ours: number; baseline: number };
  checks: string[];
  notes: string[];
  /** How many processes ran it, and how long they took altogether. */
  processes: number;
  seconds: number;
}

/** The whole run. */
export interface BenchReport {
  command: string;
  startedAt: string;
  seconds: number;
  machine: { node: string; cpus: number; cpuModel: string; memoryGiB: number; platform: string };
  scenarios: ScenarioReport[];
}

/** Figures from raw measurements: medians, spreads and per-pair ratios (time over time). */
export function figuresOf(measurements: readonly Measurement[]): Figure[] {
  return measurements.map((m) => ({
    metric: m.metric,
    ours: summarize(m.ours),
    baseline: summarize(m.baseline),
    // a ratio of costs: for rates, the baseline's rate over ours
    ratio: m.higherIsBetter ? pairedRatio(m.baseline, m.ours) : pairedRatio(m.ours, m.baseline),
    higherIsBetter: m.higherIsBetter,
  }));
}

/** Concatenates the measurements of several processes of one scenario, metric by metric. */
export function mergeMeasurements(results: readonly ScenarioResult[]): Measurement[] {
  const merged = new Map<string, Measurement>();
  for (const result of results) {
    for (const m of result.measurements) {
      const into = merged.get(m.metric);
      if (into) {
        into.ours.push(...m.ours);
        into.baseline.push(...m.baseline);
      } else merged.set(m.metric, { ...m, ours: [...m.ours], baseline: [...m.baseline] });
    }
  }
  return [...merged.values()];
}

const sig = (value: number): string => {
  if (!Number.isFinite(value)) return 'n/a';
  const abs = Math.abs(value);
  if (abs >= 100_000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
};

/** `median (min–max)`. */
export function formatSummary(s: Summary): string {
  return `${sig(s.median)} (${sig(s.min)}–${sig(s.max)})`;
}

const mb = (bytes: number) => (bytes > 0 ? `${Math.round(bytes / 1e6)}` : 'n/a');

/** The markdown table of a run. */
export function markdownOf(report: BenchReport): string {
  const lines: string[] = [];
  lines.push(
    `Run ${report.startedAt} with \`${report.command}\` in ${report.seconds.toFixed(0)} s on node ${report.machine.node}, ${report.machine.cpus} cores (${report.machine.cpuModel}), ${report.machine.memoryGiB} GiB, ${report.machine.platform}.`,
    '',
    "Each figure is the median of the repetitions with their range (min–max); the ratio is our cost over the baseline's, repetition by repetition, then the median of those ratios (range in brackets). Ratios above 1.10 are marked ▲. Peak memory is the maximum RSS of a process that ran only that side.",
    '',
    '| benchmark | metric | ours | baseline | ratio (cost) | peak RSS MB ours / baseline | n |',
    '|---|---|---|---|---|---|---|',
  );
  for (const s of report.scenarios) {
    s.figures.forEach((f, i) => {
      const ratio = `${f.ratio.median.toFixed(2)} [${f.ratio.min.toFixed(2)}–${f.ratio.max.toFixed(2)}]${f.ratio.median > 1.1 ? ' ▲' : ''}`;
      lines.push(
        `| ${i === 0 ? s.id : ''} | ${f.metric} | ${formatSummary(f.ours)} | ${formatSummary(f.baseline)} | ${ratio} | ${i === 0 ? `${mb(s.maxRss.ours)} / ${mb(s.maxRss.baseline)}` : ''} | ${f.ratio.n} |`,
      );
    });
  }
  lines.push('', 'What each row runs, and its baseline:', '');
  for (const s of report.scenarios) {
    lines.push(
      `- **${s.id}**: ${s.title}. Baseline: ${s.baseline}.${s.notes.length ? ` ${s.notes.join('; ')}.` : ''}`,
    );
  }
  lines.push('', 'Sanity checks passed:', '');
  for (const s of report.scenarios) for (const c of s.checks) lines.push(`- ${s.id}: ${c}`);
  return `${lines.join('\n')}\n`;
}
