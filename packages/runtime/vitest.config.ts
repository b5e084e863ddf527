import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // generous: CI machines run every package's tests at once on two cores
    testTimeout: 30_000,
    hookTimeout: 30_000,
    include: ['test/**/*.test.ts'],
    // PostgreSQL for the shared-availability tests: YOURTOOL_TEST_POSTGRES_URL, the default URL, or an embedded one
    globalSetup: ['@yourtool/testkit/postgres-setup'],
  },
});
