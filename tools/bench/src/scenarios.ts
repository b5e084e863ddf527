import { BUDGET_CONCURRENCY, budgetsScenario } from './budgets/bench.js';
import { CLI_COMMANDS, cliScenario } from './cli/bench.js';
import { CODEC_TARGETS, codecScenario } from './codec/bench.js';
import { COLD_PROVIDERS, coldScenario } from './cold/bench.js';
import { CONCURRENCY_RUNS, concurrencyScenario } from './concurrency/bench.js';
import { CANCEL_SESSIONS, cancelScenario } from './concurrency/cancel.js';
import type { RunOptions, ScenarioResult } from './lib/harness.js';
import { routerScenario } from './router/bench.js';
import { SEND_PROVIDERS, SEND_SIZES, sendScenario } from './send/bench.js';
import { STORE_OPS, type StoreDb, storeScenario } from './store/bench.js';
import { ACCUMULATOR_PROVIDERS, type AccumulatorProvider } from './streaming/accumulators.js';
import { googleStreamingScenario } from './streaming/google.js';
import { accumulatorScenario, streamingScenario } from './streaming/scenario.js';
import { STREAM_PROVIDERS } from './streaming/wire.js';
import { partialObjectScenario } from './structured/bench.js';
import { telemetryStreamingScenario, telemetryTurnScenario } from './telemetry/bench.js';
import { TURN_SIZES, turnScenario } from './turn/bench.js';
import { streamTurnScenario } from './turn/stream.js';

/** A benchmark scenario: one process runs it. */
export interface Scenario {
  id: string;
  /**
   * `interleaved`: one process times both sides, repetitions alternating, then one process per
   * side measures peak memory. `processes`: for runs of many seconds, each repetition of each
   * side runs in a process of its own, the two sides' processes alternating; those processes
   * give both the times and the peak memory.
   */
  mode: 'interleaved' | 'processes';
  /** Timed repetitions per side (`processes`: processes per side). */
  reps: number;
  /** Untimed warm-up repetitions per side (interleaved). */
  warmup: number;
  /** Repetitions in each memory-pass process (interleaved). */
  memoryReps: number;
  run: (options: RunOptions) => Promise<ScenarioResult>;
}

/** Every scenario, in report order. */
export const SCENARIOS: Scenario[] = [
  ...STREAM_PROVIDERS.map(
    (provider): Scenario => ({
      id: `streaming/${provider}`,
      mode: 'interleaved',
      reps: 9,
      warmup: 3,
      memoryReps: 3,
      run: (options) => streamingScenario(provider, options),
    }),
  ),
  {
    id: 'streaming/google',
    mode: 'interleaved',
    reps: 9,
    warmup: 3,
    memoryReps: 3,
    run: googleStreamingScenario,
  },
  // The SDK's own accumulator as a second baseline, in scenarios of their own so each stays
  // two-sided (streaming/accumulators.ts). Gemini (@google/genai) and Ollama (ollama) have no
  // accumulator, only chunks: streaming/google and streaming/ollama are their only baseline.
  // a turn asking for an object (partial objects as it streams) against plain text, same bytes
  {
    id: 'streaming/partial-object',
    mode: 'interleaved',
    // a turn's CPU time swings with where the GC lands: more pairs than the other scenarios
    reps: 25,
    warmup: 4,
    memoryReps: 3,
    run: partialObjectScenario,
  },
  ...(Object.keys(ACCUMULATOR_PROVIDERS) as AccumulatorProvider[]).map(
    (provider): Scenario => ({
      id: `streaming/${provider}-sdk-accumulator`,
      mode: 'interleaved',
      reps: 9,
      warmup: 3,
      memoryReps: 3,
      run: (options) => accumulatorScenario(provider, options),
    }),
  ),
  ...CODEC_TARGETS.map(
    (target): Scenario => ({
      id: `codec/${target}`,
      mode: 'interleaved',
      reps: 9,
      warmup: 3,
      memoryReps: 3,
      run: (options) => codecScenario(target, options),
    }),
  ),
  ...(['sqlite', 'postgres'] as StoreDb[]).flatMap((db) =>
    STORE_OPS.map(
      (op): Scenario => ({
        id: `store/${db}/${op}`,
        mode: op === 'load' ? 'interleaved' : 'processes',
        // one transaction per message on PostgreSQL takes ~10-20 s a side: two processes a side
        reps: op === 'load' ? 9 : db === 'postgres' && op === 'append-each' ? 2 : 3,
        warmup: 0,
        memoryReps: 1,
        run: (options) => storeScenario(db, op, options),
      }),
    ),
  ),
  // what a budget reservation and settlement add to a turn, at 1 and 100 concurrent sessions
  ...(['sqlite', 'postgres'] as StoreDb[]).flatMap((db) =>
    BUDGET_CONCURRENCY.map(
      (sessions): Scenario => ({
        id: `budgets/${db}/${sessions}`,
        mode: 'interleaved',
        reps: 5,
        warmup: 1,
        memoryReps: 1,
        run: (options) => budgetsScenario(db, sessions, options),
      }),
    ),
  ),
  {
    id: 'router/route',
    mode: 'interleaved',
    reps: 9,
    warmup: 3,
    memoryReps: 3,
    run: routerScenario,
  },
  ...TURN_SIZES.map(
    (size): Scenario => ({
      id: `turn/${size}`,
      mode: 'interleaved',
      // a turn's CPU time swings with where the GC lands: more pairs than the other scenarios
      reps: 15,
      warmup: 4,
      memoryReps: 3,
      run: (options) => turnScenario(size, options),
    }),
  ),
  // what a session turn adds to each streamed event (issue 50, goal 1's CPU per event)
  {
    id: 'turn/stream',
    mode: 'interleaved',
    reps: 21,
    warmup: 5,
    memoryReps: 3,
    run: streamTurnScenario,
  },
  // an adapter's call on a long history it sent before, against its raw SDK sending the same body
  ...SEND_PROVIDERS.flatMap((provider) =>
    SEND_SIZES.map(
      (size): Scenario => ({
        id: `send/${provider}/${size}`,
        mode: 'interleaved',
        reps: 15,
        warmup: 4,
        memoryReps: 3,
        run: (options) => sendScenario(provider, size, options),
      }),
    ),
  ),
  // a fresh process per repetition: import plus the first stream, against the SDK alone
  ...COLD_PROVIDERS.map(
    (provider): Scenario => ({
      id: `cold/${provider}`,
      mode: 'interleaved',
      reps: 9,
      warmup: 1,
      memoryReps: 1,
      run: (options) => coldScenario(provider, options),
    }),
  ),
  // OpenTelemetry on (an SDK with in-memory exporters registered) against off, one process
  {
    id: 'telemetry/streaming',
    mode: 'interleaved',
    reps: 9,
    warmup: 3,
    memoryReps: 3,
    run: telemetryStreamingScenario,
  },
  {
    id: 'telemetry/turn-100',
    mode: 'interleaved',
    reps: 15,
    warmup: 4,
    memoryReps: 3,
    run: (options) => telemetryTurnScenario(100, options),
  },
  // the same against the context manager alone, in use: what the tracing itself adds (0190)
  {
    id: 'telemetry/streaming-warm',
    mode: 'interleaved',
    reps: 9,
    warmup: 3,
    memoryReps: 3,
    run: (options) => telemetryStreamingScenario(options, true),
  },
  {
    id: 'telemetry/turn-100-warm',
    mode: 'interleaved',
    reps: 15,
    warmup: 4,
    memoryReps: 3,
    run: (options) => telemetryTurnScenario(100, options, true),
  },
  // `yourtool --help` and `yourtool sessions list` as whole processes against `node -e ''`
  ...CLI_COMMANDS.map(
    (command): Scenario => ({
      id: `cli/${command}`,
      mode: 'interleaved',
      // whole processes of 20-300 ms on a shared machine: many pairs
      reps: 31,
      warmup: 3,
      memoryReps: 1,
      run: (options) => cliScenario(command, options),
    }),
  ),
  // N sessions at once in one process against the raw SDK's N streams (issue 50)
  ...CONCURRENCY_RUNS.map(
    (run): Scenario => ({
      id: `concurrency/${run.db}/${run.sessions}`,
      mode: 'interleaved',
      reps: run.reps,
      warmup: run.warmup,
      memoryReps: 1,
      run: (options) => concurrencyScenario(run.db, run.sessions, options),
    }),
  ),
  {
    id: 'concurrency/cancel',
    mode: 'interleaved',
    reps: 5,
    warmup: 1,
    memoryReps: 1,
    run: (options) => cancelScenario(CANCEL_SESSIONS, options),
  },
];
