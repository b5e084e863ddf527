import { fileURLToPath } from 'node:url';
import { materializeReadmeExample } from '@yourtool/testkit';
import { expect, it } from 'vitest';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

it('the README example of moving and deleting sessions runs and prints what it says', async () => {
  const file = materializeReadmeExample({
    readme: source('../README.md'),
    heading: '## Moving and deleting sessions',
    rewrite: { '@yourtool/store': source('../src/index.ts') },
    outFile: source('./.generated/readme-transfer.ts'),
  });
  expect(((await import(/* @vite-ignore */ file)) as { checks: number }).checks).toBe(4);
});
