import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    include: ['test/**/*.test.ts'],
    // the agent writes through the function it is given, never to the console
    setupFiles: ['@yourtool/testkit/no-console'],
  },
});
