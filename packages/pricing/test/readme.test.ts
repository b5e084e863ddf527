import { fileURLToPath } from 'node:url';
import { materializeReadmeExample } from '@yourtool/testkit';
import { expect, it } from 'vitest';

it('the README example runs and prints what it says', async () => {
  const file = materializeReadmeExample({
    readme: fileURLToPath(new URL('../README.md', import.meta.url)),
    heading: '## Example',
    rewrite: { '@yourtool/pricing': fileURLToPath(new URL('../src/index.ts', import.meta.url)) },
    outFile: fileURLToPath(new URL('./.generated/readme-example.ts', import.meta.url)),
  });
  const module = (await import(/* @vite-ignore */ file)) as { checks: number };
  expect(module.checks).toBe(7);
});
