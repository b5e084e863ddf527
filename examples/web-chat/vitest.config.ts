import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // a real browser on a shared two-core machine: generous
    testTimeout: 120_000,
    hookTimeout: 60_000,
    include: ['test/**/*.test.ts'],
    // the server writes through the logger it is given, never to the console
    setupFiles: ['@yourtool/testkit/no-console'],
  },
});
