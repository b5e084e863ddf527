import { inject } from 'vitest';

/** The key under which `@yourtool/testkit/postgres-setup` provides the run's PostgreSQL URL. */
export const POSTGRES_URL_KEY = 'yourtoolTestPostgresUrl';

declare module 'vitest' {
  interface ProvidedContext {
    yourtoolTestPostgresUrl: string;
  }
}

/**
 * The URL of the PostgreSQL server this test run uses (user `postgres`, trust auth on
 * loopback, database `test`), found or started once per run by the package's vitest
 * `globalSetup: ['@yourtool/testkit/postgres-setup']`. Throws when that setup is missing.
 */
export function testPostgresUrl(): string {
  const url = inject(POSTGRES_URL_KEY);
  if (!url) {
    throw new Error(
      "no PostgreSQL for this test run: the package's vitest.config.ts needs " +
        "globalSetup: ['@yourtool/testkit/postgres-setup']",
    );
  }
  return url;
}
