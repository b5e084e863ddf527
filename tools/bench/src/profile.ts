/**
 * Profiles one scenario's side with `node --cpu-prof` and prints the hottest frames:
 * `node --import tsx src/profile.ts <scenario> [ours|baseline] [reps]`. Self time is the time
 * spent in a function's own code; the package table adds up self time by where the code lives.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CpuProfile, formatSummary, summarizeProfile } from './lib/cpu-profile.js';

const [scenario, variant = 'ours', reps = '10'] = process.argv.slice(2);
if (!scenario) {
  console.error('usage: profile.ts <scenario> [ours|baseline] [reps]');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'yourtool-prof-'));
const child = fileURLToPath(new URL('./child.ts', import.meta.url));
const run = spawnSync(
  process.execPath,
  [
    '--expose-gc',
    '--cpu-prof',
    `--cpu-prof-dir=${dir}`,
    '--import',
    'tsx',
    child,
    scenario,
    '--only',
    variant,
    '--reps',
    reps,
  ],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
if (run.status !== 0) process.exit(run.status ?? 1);

// the scenario process writes one profile (the streaming server's process writes its own)
const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
const profiles = files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as CpuProfile);
const profile = profiles.sort((a, b) => b.samples.length - a.samples.length)[0];
if (!profile) throw new Error('no profile written');

console.log(`${scenario} (${variant}, ${reps} reps): ${formatSummary(summarizeProfile(profile))}`);
console.log(`\nprofile: ${dir}`);
