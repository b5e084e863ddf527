import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real databases and child processes: generous, for slow CI machines.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
