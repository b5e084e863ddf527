import { runReadmeCommonJsExample, runReadmeExample } from '@yourtool/testkit';
import { expect, it } from 'vitest';

// The examples start their own scripted provider: nothing to set up.

it('the README example runs through the real Anthropic adapter and prints what it says', async () => {
  expect(
    await runReadmeExample({ testUrl: import.meta.url, packageName: '@yourtool/testing' }),
  ).toBe(6);
});

it('the README createRuntime example runs a tool loop, a model swap and a replay', async () => {
  expect(
    await runReadmeExample({
      testUrl: import.meta.url,
      packageName: '@yourtool/testing',
      heading: '## Testing an application built on createRuntime',
    }),
  ).toBe(4);
});

it('the README structured-output example gets objects natively, through the tool, and a cut one', async () => {
  expect(
    await runReadmeExample({
      testUrl: import.meta.url,
      packageName: '@yourtool/testing',
      heading: '## Structured output',
    }),
  ).toBe(5);
});

it('the README CommonJS form runs from the CommonJS build', async () => {
  expect(await runReadmeCommonJsExample({ testUrl: import.meta.url })).toBe(1);
});
