import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // generous: CI machines run every package's tests at once on two cores
    testTimeout: 30_000,
    hookTimeout: 30_000,
    include: ['test/**/*.test.ts'],
    // any console output fails the test: the library logs through its logger only
    setupFiles: ['@yourtool/testkit/no-console'],
  },
});
