import { runReadmeExample } from '@yourtool/testkit';
import { expect, it } from 'vitest';

it('the README example renders a reply and its stream', async () => {
  expect(
    await runReadmeExample({ testUrl: import.meta.url, packageName: '@yourtool/wire-formats' }),
  ).toBe(2);
});
