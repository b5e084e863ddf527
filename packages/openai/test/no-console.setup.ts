/**
 * Vitest setup (see vitest.config.ts `setupFiles`): nothing of ours or the SDKs' may write to
 * the console. Every console.log/info/warn/error/debug call during a test is recorded, and the
 * test (or the file, for calls outside tests) fails with what was written. The one exception is
 * the conformance harness printing why it skips a scenario (`console.info('[conformance] ...')`,
 * the printed reason every skip must have): that is the test suite talking, not the library.
 */
import { formatWithOptions } from 'node:util';
import { afterAll, afterEach } from 'vitest';

const METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;
const calls: string[] = [];

const info = console.info.bind(console);

for (const method of METHODS) {
  console[method] = (...args: unknown[]): void => {
    if (method === 'info' && typeof args[0] === 'string' && args[0].startsWith('[conformance] ')) {
      info(...args);
      return;
    }
    calls.push(`console.${method}(${formatWithOptions({ depth: 3 }, ...args)})`);
  };
}

function failOnConsoleOutput(): void {
  if (calls.length === 0) return;
  const written = calls.splice(0);
  throw new Error(
    `the console was written to (the library must log through its logger only):\n${written.join('\n')}`,
  );
}

afterEach(failOnConsoleOutput);
afterAll(failOnConsoleOutput);
