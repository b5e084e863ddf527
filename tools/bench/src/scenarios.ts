import type { RunOptions, ScenarioResult } from './lib/harness.js';
import { streamingScenario } from './streaming/bench.js';
import { STREAM_PROVIDERS } from './streaming/wire.js';

/** A benchmark scenario: one process runs it. */
export interface Scenario {
  id: string;
  /** Timed repetitions per variant, and untimed warm-ups. */
  reps: number;
  warmup: number;
  /** Repetitions of the memory pass (one variant per process). */
  memoryReps: number;
  run: (options: RunOptions) => Promise<ScenarioResult>;
}

/** Every scenario, in report order. */
export const SCENARIOS: Scenario[] = [
  ...STREAM_PROVIDERS.map(
    (provider): Scenario => ({
      id: `streaming/${provider}`,
      reps: 9,
      warmup: 3,
      memoryReps: 3,
      run: (options) => streamingScenario(provider, options),
    }),
  ),
];
