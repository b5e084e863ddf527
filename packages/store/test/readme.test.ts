import { fileURLToPath } from 'node:url';
import { materializeReadmeExample, runReadmeCommonJsExample } from '@yourtool/testkit';
import { afterAll, expect, it } from 'vitest';
import { POSTGRES_URL, postgresTarget } from './helpers/targets.js';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const modules = {
  '@yourtool/store': source('../src/index.ts'),
  '@yourtool/pricing': source('../../pricing/src/index.ts'),
};

async function run(readme: string, heading: string, rewrite: Record<string, string>, out: string) {
  const file = materializeReadmeExample({
    readme,
    heading,
    rewrite: { ...modules, ...rewrite },
    outFile: source(`./.generated/${out}.ts`),
  });
  return ((await import(/* @vite-ignore */ file)) as { checks: number }).checks;
}

it('the README example runs and prints what it says', async () => {
  expect(await run(source('../README.md'), '## Example', {}, 'readme-example')).toBe(5);
});

const pg = postgresTarget();
afterAll(() => pg.dispose());

it('the README PostgreSQL example runs against the test server', async () => {
  const withPassword = POSTGRES_URL.replace('postgres://postgres@', 'postgres://postgres:secret@');
  const checks = await run(
    source('../README.md'),
    '## PostgreSQL',
    { 'postgres://app:secret@db.internal:5432/app': withPassword, yourtool: pg.schema },
    'readme-postgres',
  );
  expect(checks).toBe(2);
});

it("@yourtool/pricing's README repricing example runs on this store", async () => {
  const checks = await run(
    source('../../pricing/README.md'),
    '## Repricing stored messages',
    {},
    'readme-reprice',
  );
  expect(checks).toBe(2);
});

it('the README CommonJS form runs from the CommonJS build', async () => {
  expect(await runReadmeCommonJsExample({ testUrl: import.meta.url })).toBe(1);
});
