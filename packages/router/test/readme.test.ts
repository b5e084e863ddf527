import { fileURLToPath } from 'node:url';
import { runReadmeExample } from '@yourtool/testkit';
import { expect, it } from 'vitest';

it('the README example runs and prints what it says', async () => {
  expect(
    await runReadmeExample({
      testUrl: import.meta.url,
      packageName: '@yourtool/router',
      rewrite: {
        '@yourtool/anthropic': fileURLToPath(
          new URL('../../anthropic/src/index.ts', import.meta.url),
        ),
      },
    }),
  ).toBe(7);
});
