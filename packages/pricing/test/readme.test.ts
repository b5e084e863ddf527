import { runReadmeExample } from '@yourtool/testkit';
import { expect, it } from 'vitest';

it('the README example runs and prints what it says', async () => {
  expect(
    await runReadmeExample({ testUrl: import.meta.url, packageName: '@yourtool/pricing' }),
  ).toBe(7);
});
