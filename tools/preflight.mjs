// Stops a root script early, with a plain message, on a Node.js older than the repository
// needs (engines.node in the root package.json). Older Nodes fail later and worse: better-sqlite3
// segfaults in `pnpm demo`, and the tests die on missing APIs.
// Written in syntax Node 14 and later can parse, so that it runs exactly where it is needed.
import { readFileSync } from 'node:fs';

const rootPackage = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const engines = rootPackage.engines?.node || '>=22';
const wanted = /(\d+)/.exec(engines);
const required = wanted ? Number(wanted[1]) : 22;
const found = process.versions.node;
const major = Number(found.split('.')[0]);

if (!(major >= required)) {
  process.stderr.write(
    'Node ' +
      required +
      ' or newer is required (found ' +
      found +
      ').\n' +
      'Run the same script through ./dev (./dev test, ./dev demo, ./dev <script>): it brings Node ' +
      required +
      ' and pnpm from the npm registry into a cache directory when the machine has older ones.\n',
  );
  process.exit(1);
}
