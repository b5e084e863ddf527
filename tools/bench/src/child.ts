/**
 * Runs one scenario in this process and reports its result to the parent over IPC (or prints
 * it as JSON when started by hand): `node --expose-gc --import tsx src/child.ts <id> [--only
 * ours|baseline] [--reps n] [--warmup n]`.
 */
import { parseArgs } from 'node:util';
import type { RunOptions, Variant } from './lib/harness.js';
import { SCENARIOS } from './scenarios.js';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    only: { type: 'string' },
    reps: { type: 'string' },
    warmup: { type: 'string' },
  },
});
const id = positionals[0];
const scenario = SCENARIOS.find((s) => s.id === id);
if (!scenario) {
  console.error(`unknown scenario "${id}"; known: ${SCENARIOS.map((s) => s.id).join(', ')}`);
  process.exit(2);
}
const only = (values.only ?? 'both') as Variant | 'both';
const options: RunOptions = {
  only,
  reps: Number(values.reps ?? (only === 'both' ? scenario.reps : scenario.memoryReps)),
  warmup: Number(values.warmup ?? (only === 'both' ? scenario.warmup : 1)),
};
const result = await scenario.run(options);
if (process.send) {
  process.send(result, () => process.disconnect());
} else {
  console.log(JSON.stringify(result, null, 2));
}
