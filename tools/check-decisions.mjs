// Checks docs/decisions/README.md against the records: every record (docs/decisions and
// packages/*/docs/decisions) is listed once with a status, and every link in the index resolves.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const indexDir = join(root, 'docs/decisions');
const index = readFileSync(join(indexDir, 'README.md'), 'utf8');
const record = /^\d{4}-.*\.md$/;
const dirs = [indexDir];
for (const pkg of readdirSync(join(root, 'packages'))) {
  const dir = join(root, 'packages', pkg, 'docs/decisions');
  if (existsSync(dir)) dirs.push(dir);
}
const problems = [];
const rows = new Map();
for (const line of index.split('\n')) {
  const m = /^\| \[(\d{4})\]\(([^)]+)\) \| (.+?) \| (.+?) \| (.+?) \|$/.exec(line);
  if (!m) continue;
  if (rows.has(m[1])) problems.push(`${m[1]} is listed twice`);
  rows.set(m[1], { link: m[2], status: m[5] });
  if (!existsSync(join(indexDir, m[2])))
    problems.push(`${m[1]}: the link ${m[2]} does not resolve`);
  if (
    !/^(accepted|rejected|partly superseded by \d{4}|superseded by \d{4}|amended by \d{4}|supplements \d{4})/.test(
      m[5],
    )
  )
    problems.push(`${m[1]}: no status ("${m[5]}")`);
}
for (const dir of dirs) {
  for (const file of readdirSync(dir).filter((f) => record.test(f))) {
    if (!rows.has(file.slice(0, 4))) problems.push(`${join(dir, file)} is not in the index`);
  }
}
if (problems.length > 0) {
  process.stderr.write(`docs/decisions/README.md:\n  ${problems.join('\n  ')}\n`);
  process.exit(1);
}
