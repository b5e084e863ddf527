/**
 * `pnpm bench`: runs every scenario, each in processes of its own, and writes the results to
 * `bench-results/` (JSON and markdown) at the repository root, printing the markdown table.
 * `pnpm bench -- <prefix>...` runs only the scenarios whose id starts with a prefix.
 */
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { ScenarioResult, Variant } from './lib/harness.js';
import {
  type BenchReport,
  figuresOf,
  markdownOf,
  mergeMeasurements,
  type ScenarioReport,
} from './report.js';
import { SCENARIOS, type Scenario } from './scenarios.js';

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));
const RESULTS = fileURLToPath(new URL('../../../bench-results/', import.meta.url));

/** Runs one scenario process and resolves with what it reported. */
function runChild(id: string, args: string[]): Promise<ScenarioResult> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [id, ...args], {
      execArgv: ['--expose-gc', '--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result: ScenarioResult | undefined;
    child.on('message', (message: ScenarioResult) => {
      result = message;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0 && result) resolve(result);
      else reject(new Error(`${id} ${args.join(' ')} failed (exit ${code})`));
    });
  });
}

async function runScenario(scenario: Scenario): Promise<ScenarioReport> {
  const started = performance.now();
  const results: ScenarioResult[] = [];
  const rss: Record<Variant, number> = { ours: 0, baseline: 0 };
  let processes = 0;
  const only = async (variant: Variant, reps: number) => {
    const result = await runChild(scenario.id, ['--only', variant, '--reps', String(reps)]);
    processes++;
    rss[variant] = Math.max(rss[variant], result.maxRssBytes);
    return result;
  };
  if (scenario.mode === 'interleaved') {
    results.push(await runChild(scenario.id, []));
    processes++;
    await only('ours', scenario.memoryReps);
    await only('baseline', scenario.memoryReps);
  } else {
    for (let i = 0; i < scenario.reps; i++) {
      const order: Variant[] = i % 2 === 0 ? ['ours', 'baseline'] : ['baseline', 'ours'];
      for (const variant of order) results.push(await only(variant, 1));
    }
  }
  const first = results[0] as ScenarioResult;
  const seconds = (performance.now() - started) / 1000;
  const report: ScenarioReport = {
    id: scenario.id,
    group: first.group,
    title: first.title,
    baseline: first.baseline,
    figures: figuresOf(mergeMeasurements(results)),
    maxRss: rss,
    checks: [...new Set(results.flatMap((r) => r.checks))],
    notes: [
      ...new Set([
        ...results.flatMap((r) => r.notes),
        ...(scenario.mode === 'processes'
          ? [`${scenario.reps} processes a side, one repetition each, the sides alternating`]
          : []),
      ]),
    ],
    processes,
    seconds,
  };
  const f = report.figures[0];
  console.error(
    `  ${scenario.id}: ${f ? `ratio ${f.ratio.median.toFixed(2)}` : 'no figure'} (${seconds.toFixed(1)} s, ${processes} processes)`,
  );
  return report;
}

// each argument picks the scenarios whose id starts with it; one ending in `$` picks that id only
const prefixes = process.argv.slice(2).filter((a) => a !== '--');
const picks = (id: string, p: string) =>
  p.endsWith('$') ? id === p.slice(0, -1) : id.startsWith(p);
const chosen = SCENARIOS.filter(
  (s) => prefixes.length === 0 || prefixes.some((p) => picks(s.id, p)),
);
if (chosen.length === 0) {
  console.error(`no scenario matches ${prefixes.join(' ')}`);
  process.exit(2);
}
const startedAt = new Date();
const started = performance.now();
console.error(`pnpm bench: ${chosen.length} scenarios`);
const scenarios: ScenarioReport[] = [];
for (const scenario of chosen) scenarios.push(await runScenario(scenario));
const report: BenchReport = {
  command: `pnpm bench${prefixes.length ? ` -- ${prefixes.join(' ')}` : ''}`,
  startedAt: startedAt.toISOString(),
  seconds: (performance.now() - started) / 1000,
  machine: {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    platform: `${process.platform} ${process.arch}`,
  },
  scenarios,
};
const markdown = markdownOf(report);
mkdirSync(RESULTS, { recursive: true });
const stamp = report.startedAt.replace(/[:.]/g, '-');
for (const name of [`bench-${stamp}`, 'latest']) {
  writeFileSync(`${RESULTS}${name}.json`, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(`${RESULTS}${name}.md`, markdown);
}
console.log(markdown);
console.error(`results: ${RESULTS}latest.json, ${RESULTS}latest.md`);
