/**
 * Prints the figures of saved CPU and heap profiles (`.cpuprofile`, `.heapprofile`), in turn:
 * `node --import tsx src/profile-file.ts <file>... [--rows N]`. Pairs with the concurrency
 * bench's `YOURTOOL_BENCH_PHASE_PROFILE` (see src/concurrency/phase-profile.ts).
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { type CpuProfile, formatSummary, summarizeProfile } from './lib/cpu-profile.js';
import { formatHeapProfile, type HeapProfile } from './lib/heap-profile.js';

const args = process.argv.slice(2);
const rowsAt = args.indexOf('--rows');
const rows = rowsAt >= 0 ? Number(args[rowsAt + 1]) : 25;
const files = rowsAt >= 0 ? args.filter((_, i) => i !== rowsAt && i !== rowsAt + 1) : args;
if (files.length === 0) {
  console.error('usage: profile-file.ts <file.cpuprofile>... [--rows N]');
  process.exit(2);
}
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const figures = file.endsWith('.heapprofile')
    ? formatHeapProfile(JSON.parse(text) as HeapProfile, rows)
    : formatSummary(summarizeProfile(JSON.parse(text) as CpuProfile), rows);
  console.log(`== ${basename(file)}: ${figures}\n`);
}
