import { runReadmeCommonJsExample, runReadmeExample } from '@yourtool/testkit';
import { expect, it } from 'vitest';

it('the README example runs the command in-process', async () => {
  expect(await runReadmeExample({ testUrl: import.meta.url, packageName: '@yourtool/cli' })).toBe(
    2,
  );
});

it('the README CommonJS form runs from the CommonJS build', async () => {
  expect(await runReadmeCommonJsExample({ testUrl: import.meta.url })).toBe(2);
});
