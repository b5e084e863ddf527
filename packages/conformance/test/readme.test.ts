import { runReadmeCommonJsExample, runReadmeExample } from '@yourtool/testkit';
import { expect, it } from 'vitest';

it('the README server example runs and prints what it says', async () => {
  expect(
    await runReadmeExample({
      testUrl: import.meta.url,
      packageName: '@yourtool/conformance',
      heading: '## Example: the loopback server',
    }),
  ).toBe(3);
});

it('the README CommonJS form runs from the CommonJS build', async () => {
  expect(
    await runReadmeCommonJsExample({
      testUrl: import.meta.url,
      heading: '### CommonJS',
    }),
  ).toBe(2);
});
