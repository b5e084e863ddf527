import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Migration 0007: availability verdicts shared by the instances on one database (issue 49,
 * decision 0183). One row per key that was ever not available; times are epoch milliseconds on
 * the store's clock, absolute, so a restarted instance reads the cooldown still running.
 */
export function availabilityMigration(micros: 'bigint' | 'integer'): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('availability')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('until_ms', micros, (c) => c.notNull().defaultTo(0))
        .addColumn('probe_owner', 'text')
        .addColumn('probe_started_ms', micros, (c) => c.notNull().defaultTo(0))
        .addColumn('cooldown_ms', micros, (c) => c.notNull().defaultTo(0))
        .addColumn('last_error', 'text')
        .addColumn('updated_ms', micros, (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('availability').execute();
    },
  };
}
