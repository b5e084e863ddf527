import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  check,
  interleave,
  type Measurement,
  type PairedTimings,
  peakRss,
  type RunOptions,
  type ScenarioResult,
  type Variant,
} from '../lib/harness.js';
import { LIST_MESSAGES, LIST_SESSIONS, sessionsStore } from './fixture.js';

// `yourtool <command>` as a whole process, its wall time from spawn to exit, against
// `node -e ''` (a process that starts and ends) timed next to it (issue 51 goal 2).

/** The CLI commands timed. */
export const CLI_COMMANDS = ['help', 'sessions-list'] as const;
/** One of {@link CLI_COMMANDS}. */
export type CliCommand = (typeof CLI_COMMANDS)[number];

/**
 * The built `yourtool` command (`pnpm build` first), or `$YOURTOOL_BENCH_CLI_BIN` (another
 * checkout's build, to time a before and an after the same way).
 */
const BIN =
  process.env.YOURTOOL_BENCH_CLI_BIN ??
  fileURLToPath(new URL('../../../../packages/cli/dist/bin.js', import.meta.url));

/** The environment of both sides: this one without NODE_OPTIONS (no tsx, no inspector). */
function childEnv(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  return env;
}

/** Reports each process's own CPU time on its stderr (both sides load it). */
const REPORT_CPU = fileURLToPath(new URL('./report-cpu.mjs', import.meta.url));

/**
 * Runs `node <args>` to its end (the harness times the call, spawn to exit); its stdout and the
 * CPU time it reported.
 */
function runNode(args: readonly string[], env: NodeJS.ProcessEnv) {
  const child = spawnSync(process.execPath, ['--import', REPORT_CPU, ...args], {
    env,
    encoding: 'utf8',
  });
  if (child.status !== 0) {
    throw new Error(`node ${args.join(' ')} exited ${child.status}: ${child.stderr}`);
  }
  const cpu = /\ncpu-ms ([\d.]+)\n$/.exec(child.stderr);
  check(cpu, `node ${args.join(' ')} reported its CPU time`);
  return { stdout: child.stdout, cpuMs: Number(cpu[1]) };
}

/** The arguments of `yourtool <command>` in this scenario. */
function cliArgs(command: CliCommand, storeUrl: string): string[] {
  return command === 'help' ? ['--help'] : ['sessions', 'list', '--store', storeUrl];
}

/** `yourtool --help` or `yourtool sessions list` against `node -e ''`, whole processes. */
export async function cliScenario(
  command: CliCommand,
  options: RunOptions,
): Promise<ScenarioResult> {
  check(existsSync(BIN), `${BIN} is built (pnpm build)`);
  const store = command === 'sessions-list' ? await sessionsStore() : undefined;
  const env = childEnv();
  const args = cliArgs(command, store?.url ?? '');
  let output = '';
  let timings: PairedTimings;
  const cpu: Record<Variant, number[]> = { ours: [], baseline: [] };
  try {
    const sides = {
      ours: () => {
        const run = runNode([BIN, ...args], env);
        output = run.stdout;
        cpu.ours.push(run.cpuMs);
      },
      baseline: () => {
        cpu.baseline.push(runNode(['-e', ''], env).cpuMs);
      },
    };
    // the harness times each spawnSync call, spawn to exit; a GC here would only add noise
    timings = await interleave(options, sides, undefined, { forceGc: false });
  } finally {
    store?.dispose();
  }
  const checks: string[] = [];
  if (options.only !== 'baseline') {
    if (command === 'help') {
      check(/^Usage: yourtool \[options\] \[command\]/.test(output), 'help printed its usage');
      checks.push('yourtool --help printed its usage');
    } else {
      const rows = output.trimEnd().split('\n').length - 1;
      check(rows === 50, `sessions list showed 50 of ${LIST_SESSIONS} sessions (got ${rows})`);
      checks.push(
        `sessions list showed 50 sessions of ${LIST_SESSIONS} (${LIST_MESSAGES} messages each)`,
      );
    }
  }
  // the harness times only the repetitions after the warm-up; cpu has the warm-up's first
  const timed = (values: number[]) => values.slice(values.length - options.reps);
  const measurements: Measurement[] = [
    {
      metric: 'wall ms per process',
      higherIsBetter: false,
      ours: timings.ours.map((t) => t.wallMs),
      baseline: timings.baseline.map((t) => t.wallMs),
    },
    {
      metric: 'CPU ms per process',
      higherIsBetter: false,
      ours: options.only === 'baseline' ? [] : timed(cpu.ours),
      baseline: options.only === 'ours' ? [] : timed(cpu.baseline),
    },
  ];
  return {
    id: `cli/${command}`,
    group: 'cli',
    title: `\`yourtool ${args.join(' ').replace(store?.url ?? '\0', 'sqlite:<file>')}\`, the whole process`,
    baseline: "`node -e ''` (the same Node, the same environment), pairs interleaved",
    measurements,
    checks,
    notes: [
      `wall time from spawn to exit (spawnSync); ${options.warmup} untimed pairs first`,
      "CPU: each process's own user + system time, reported at exit by a hook both sides load",
      'peak RSS is the timing process, not the CLI',
    ],
    maxRssBytes: peakRss(),
  };
}
