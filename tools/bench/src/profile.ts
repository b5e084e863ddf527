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

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

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

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => {
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...self.values()].reduce((a, b) => a + b, 0);

const where = (url: string): string => {
  if (url === '') return '(native/vm)';
  if (url.startsWith('node:')) return 'node internals';
  const dependency = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (dependency) return dependency[1] as string;
  const workspace = /\/packages\/([^/]+)\//.exec(url);
  if (workspace) return `@yourtool/${workspace[1]}`;
  if (url.includes('/tools/bench/')) return 'bench harness';
  return url;
};

const frames = new Map<string, number>();
const packages = new Map<string, number>();
for (const [id, us] of self) {
  const node = byId.get(id);
  if (!node) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const name = `${functionName || '(anonymous)'}  ${where(url)}${url ? `:${lineNumber + 1}` : ''}`;
  frames.set(name, (frames.get(name) ?? 0) + us);
  packages.set(where(url), (packages.get(where(url)) ?? 0) + us);
}
const pct = (us: number) =>
  `${((us / total) * 100).toFixed(1).padStart(5)}% ${(us / 1000).toFixed(0).padStart(6)} ms`;
console.log(`${scenario} (${variant}, ${reps} reps): ${(total / 1000).toFixed(0)} ms sampled`);
console.log('\nself time by package:');
for (const [name, us] of [...packages].sort((a, b) => b[1] - a[1]).slice(0, 12))
  console.log(`  ${pct(us)}  ${name}`);
console.log('\ntop frames (self time):');
for (const [name, us] of [...frames].sort((a, b) => b[1] - a[1]).slice(0, 25))
  console.log(`  ${pct(us)}  ${name}`);
console.log(`\nprofile: ${dir}`);
