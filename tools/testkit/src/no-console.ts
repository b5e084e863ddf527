import { afterEach, beforeEach, type MockInstance, vi } from 'vitest';

/**
 * Vitest setup file (`setupFiles: ['@yourtool/testkit/no-console']`): any console call while a
 * test runs (its hooks included) fails that test. Nothing of the adapters or of the SDKs they
 * wrap may write to the console: diagnostics go through the adapter's logger. Messages printed
 * while test files are collected (the conformance suite's skip reasons) are not inside a test
 * and stay allowed.
 */
const METHODS = [
  'log',
  'info',
  'warn',
  'error',
  'debug',
  'trace',
  'dir',
  'dirxml',
  'table',
  'group',
  'groupCollapsed',
  'count',
  'timeLog',
  'assert',
] as const;

const calls: string[] = [];
let spies: MockInstance[] = [];

beforeEach(() => {
  calls.length = 0;
  spies = METHODS.map((method) =>
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      // console.assert writes only when its first argument is falsy
      if (method === 'assert' && args[0]) return;
      calls.push(`console.${method}(${args.map((a) => String(a)).join(', ')})`);
    }),
  );
});

afterEach(() => {
  for (const spy of spies) spy.mockRestore();
  spies = [];
  if (calls.length > 0) {
    const written = calls.splice(0);
    throw new Error(
      `the test wrote to the console ${written.length} time(s); nothing may (use the logger):\n${written.join('\n')}`,
    );
  }
});
