import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // PostgreSQL for the run: YOURTOOL_TEST_POSTGRES_URL, the default URL, or an embedded one
    globalSetup: ['@yourtool/testkit/postgres-setup'],
    // Real databases and child processes: generous, for slow CI machines.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
