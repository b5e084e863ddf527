import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // generous: CI machines run every package's tests at once on two cores
    testTimeout: 30_000,
    hookTimeout: 30_000,
    include: ['test/**/*.test.ts'],
    // any console call during a test fails it: nothing of ours or the ollama client's may write there
    setupFiles: ['@yourtool/testkit/no-console'],
  },
});
