/**
 * `concurrency/<db>/<N>`: N sessions at once in one process, each a text turn, a second turn
 * and a tool turn (every session's tool finishing at the same moment) against a paced loopback
 * Anthropic server in its own process; ours is one `SessionManager` on a SQLite file or a
 * PostgreSQL schema, the baseline the same N streams through the raw Anthropic SDK, in the same
 * process, the sides alternating run by run.
 */
import type Anthropic from '@anthropic-ai/sdk';
import {
  check,
  collectGarbage,
  type Measurement,
  peakRss,
  type RunOptions,
  type ScenarioResult,
  type Variant,
} from '../lib/harness.js';
import { summarize } from '../lib/stats.js';
import { checkResourcesBack, checkStoredHistories, markResources } from './checks.js';
import { type RunFigures, RunProbe } from './probe.js';
import { DELTA_PACE_MS, DELTAS } from './script.js';
import { type ConcurrencyDb, type ConcurrencySetup, setUpConcurrency } from './setup.js';
import { oursTurn, rawTurn, runPhases, TURNS } from './sides.js';
import { probeStatements, type StatementFigures } from './statements.js';

/** The concurrency scenarios: store, sessions, timed runs a side, untimed warm-up runs a side. */
export const CONCURRENCY_RUNS: ReadonlyArray<{
  db: ConcurrencyDb;
  sessions: number;
  reps: number;
  warmup: number;
}> = [
  { db: 'sqlite', sessions: 10, reps: 3, warmup: 1 },
  { db: 'sqlite', sessions: 100, reps: 3, warmup: 1 },
  { db: 'sqlite', sessions: 500, reps: 3, warmup: 0 },
  { db: 'sqlite', sessions: 1000, reps: 2, warmup: 0 },
  { db: 'postgres', sessions: 10, reps: 3, warmup: 1 },
  { db: 'postgres', sessions: 100, reps: 3, warmup: 1 },
];

/** `YOURTOOL_BENCH_SESSIONS` replaces a scenario's session count (the id keeps its own). */
export function sessionsOverride(sessions: number): number {
  const value = Number(process.env.YOURTOOL_BENCH_SESSIONS ?? Number.NaN);
  return Number.isInteger(value) && value > 0 ? value : sessions;
}

/** What one run of a side leaves: its figures, and for ours the rows it checked. */
interface SideRun {
  figures: RunFigures;
  rows: number;
  statements: number;
}

async function runSide(
  setup: ConcurrencySetup,
  variant: Variant,
  { sessions, rep }: { sessions: number; rep: number },
  counted: () => number,
): Promise<SideRun> {
  const side = variant === 'ours' ? 'ours' : 'raw';
  const probe = new RunProbe(`${side}-rep${rep}`);
  const base = { side, rep };
  let runner: Parameters<typeof runPhases>[3];
  let sessionIds: string[] = [];
  if (variant === 'ours') {
    // sessions are created untimed, as an application would have them already
    for (let s = 0; s < sessions; s++) {
      sessionIds.push((await setup.manager.createSession({ workspace_path: setup.dir })).id);
    }
    runner = oursTurn(setup.manager, sessionIds, { base, probe, holder: setup.holder });
  } else {
    const conversations: Anthropic.MessageParam[][] = Array.from({ length: sessions }, () => []);
    runner = rawTurn(setup.client, conversations, { base, probe, holder: setup.holder });
  }
  collectGarbage();
  const statementsBefore = counted();
  probe.start();
  const outcome = await runPhases(sessions, probe, setup.holder, runner);
  const statements = counted() - statementsBefore;
  const stats = await setup.server.stats();
  const figures = probe.finish(stats.firstDeltaMs, stats.arrivedAt);
  check(
    outcome.failed === 0,
    `${side} run ${rep}: ${outcome.failed} failed turns (first: ${outcome.firstError})`,
  );
  check(stats.unknown === 0, `${stats.unknown} requests the server could not place`);
  check(stats.aborted === 0, `${stats.aborted} streams closed before their end`);
  const calls = sessions * (TURNS + 1);
  check(
    figures.events === calls * DELTAS,
    `${side} run ${rep}: ${figures.events} text events, expected ${calls * DELTAS}`,
  );
  const rows =
    variant === 'ours' ? await checkStoredHistories(setup.store, sessionIds, side, rep) : 0;
  sessionIds = [];
  return { figures, rows, statements };
}

const METRICS: ReadonlyArray<[keyof RunFigures, string]> = [
  ['cpuMsPer1000Events', 'CPU ms per 1,000 text events'],
  ['gcMsPer1000Events', 'GC ms per 1,000 text events (of that CPU)'],
  ['addedTtftP50', 'added time to first token p50, ms'],
  ['addedTtftP99', 'added time to first token p99, ms'],
  ['gapP99', `inter-event gap p99, ms (server paces ${DELTA_PACE_MS} ms)`],
  ['loopDelayP99', 'event-loop delay p99, ms'],
  ['toolTurnLoopDelayP99', 'event-loop delay p99 in the tool turn, ms'],
  ['wallMs', 'wall ms per run'],
];

function measurementsOf(runs: Record<Variant, RunFigures[]>): Measurement[] {
  return METRICS.map(([field, metric]) => ({
    metric,
    higherIsBetter: false,
    ours: runs.ours.map((f) => f[field]),
    baseline: runs.baseline.map((f) => f[field]),
  }));
}

const range = (values: number[]) => {
  const s = summarize(values);
  return `median ${s.median} (${s.min}–${s.max}, ${s.n} turns)`;
};

function statementNotes(probe: StatementFigures | null, perTurn: number[]): string[] {
  if (!probe) return [];
  return [
    `SQL statements per turn, counted by wrapping pg's Client.prototype.query (kysely's queries and the driver's BEGIN/COMMIT alike), the request's leaving seen on undici's undici:request:create channel, one turn at a time: steady path (a session's second text turn) before the request leaves ${range(probe.steadyBefore)}, in total ${range(probe.steadyTotal)}; a session's first turn (created by the manager) before the request leaves ${range(probe.firstBefore)}, in total ${range(probe.firstTotal)}; tool turn in total ${range(probe.toolTotal)}`,
    `SQL statements per turn during the concurrent runs (all statements ÷ turns): ${perTurn.map((n) => n.toFixed(1)).join(', ')}`,
  ];
}

/** What the timed runs of a scenario leave. */
interface MeasuredRuns {
  runs: Record<Variant, RunFigures[]>;
  rows: number;
  perTurn: number[];
  statements: StatementFigures | null;
}

/** Sets up, runs the timed runs (the sides alternating) and the statement probe, closes. */
async function measureRuns(
  db: ConcurrencyDb,
  sessions: number,
  options: RunOptions,
): Promise<MeasuredRuns> {
  const setup = await setUpConcurrency(db, `conc${sessions}`);
  const counter = db === 'postgres' ? (await import('./sql-count.js')).countStatements() : null;
  const counted = () => counter?.count ?? 0;
  const runs: Record<Variant, RunFigures[]> = { ours: [], baseline: [] };
  const variants: Variant[] = options.only === 'both' ? ['ours', 'baseline'] : [options.only];
  // a memory pass (one side alone) needs no warm-up: it only measures the peak
  const warmup = options.only === 'both' ? options.warmup : 0;
  let rows = 0;
  const perTurn: number[] = [];
  let statements: StatementFigures | null = null;
  try {
    for (let rep = 0; rep < warmup + options.reps; rep++) {
      const order = rep % 2 === 0 ? variants : [...variants].reverse();
      for (const variant of order) {
        const run = await runSide(setup, variant, { sessions, rep }, counted);
        rows += run.rows;
        if (rep < warmup) continue;
        runs[variant].push(run.figures);
        if (variant === 'ours' && counter) perTurn.push(run.statements / (sessions * TURNS));
      }
    }
    if (counter && options.only !== 'baseline') statements = await probeStatements(setup, counter);
  } finally {
    counter?.stop();
    await setup.close();
  }
  return { runs, rows, perTurn, statements };
}

/** Runs the scenario's timed runs, the sides alternating, then its checks. */
export async function concurrencyScenario(
  db: ConcurrencyDb,
  configured: number,
  options: RunOptions,
): Promise<ScenarioResult> {
  const sessions = sessionsOverride(configured);
  const id = `concurrency/${db}/${configured}`;
  const start = await markResources();
  // everything the runs used is unreachable once measureRuns returns: then the heap is checked
  const { runs, rows, perTurn, statements } = await measureRuns(db, sessions, options);
  const resources = await checkResourcesBack(start);
  const checks = [
    `zero failed turns; ${sessions * (TURNS + 1) * DELTAS} text events a run on each side, every one the server sent`,
    ...(rows > 0
      ? [
          `${rows.toLocaleString('en-US')} stored rows equal to the server's script (roles, texts, statuses, tool ids)`,
        ]
      : []),
    resources,
  ];
  return {
    id,
    group: 'concurrency',
    title: `${sessions.toLocaleString('en-US')} concurrent sessions on ${db === 'sqlite' ? 'a SQLite file' : 'PostgreSQL'}, each a text turn, a second turn and a tool turn (every tool finishing at once), ${DELTAS} text deltas ${DELTA_PACE_MS} ms apart per call from a paced server process`,
    baseline: `the same ${sessions.toLocaleString('en-US')} concurrent conversations through the raw Anthropic SDK (messages.create with stream: true, iterated), same process and server`,
    measurements: measurementsOf(runs),
    checks,
    notes: [
      "all sessions run turn 1 together, then turn 2, then the tool turn; added time to first token is the client's time from the call (the tool turn's second call: from the moment every tool finished) to its first text delta, minus the server's own time from the request's arrival to that delta leaving",
      ...(db === 'postgres'
        ? [
            "our store's pool (10 connections) keeps idle ones for 120 s: the sides alternate, and pg's 10 s default closed them during the raw side's run",
          ]
        : []),
      ...(sessions !== configured
        ? [`sessions overridden to ${sessions} by YOURTOOL_BENCH_SESSIONS`]
        : []),
      ...statementNotes(statements, perTurn),
    ],
    maxRssBytes: peakRss(),
  };
}
