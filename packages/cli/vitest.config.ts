import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // generous: CI machines run every package's tests at once on two cores, and these tests
    // start the built CLI as child processes
    testTimeout: 60_000,
    hookTimeout: 60_000,
    include: ['test/**/*.test.ts'],
    // PostgreSQL for the run (sessions delete, export/import): the shared test server
    globalSetup: ['@yourtool/testkit/postgres-setup'],
    // any console output fails the test: the CLI writes to the streams it is given
    setupFiles: ['@yourtool/testkit/no-console'],
  },
});
