import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Migration 0005: spend budgets (decision 0181). `budgets` holds each budget's definition;
 * `budget_windows` one row per budget and window start (the window is part of the key, so a
 * new window is a new row and nothing is reset); `budget_reservations` one row per model call
 * and scope, settled once by its request id. Money is integer micro-dollars.
 */
export function budgetsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('budgets')
        .addColumn('scope', 'text', (c) => c.primaryKey())
        .addColumn('limit_micros', 'bigint', (c) => c.notNull())
        .addColumn('soft_limit_micros', 'bigint')
        .addColumn('window_kind', 'text')
        .addColumn('window_seconds', 'integer')
        .execute();
      await db.schema
        .createTable('budget_windows')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('window_start', 'bigint', (c) => c.notNull())
        .addColumn('spent_micros', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('reserved_micros', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('soft_crossed', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('budget_windows_pk', ['scope', 'window_start'])
        .execute();
      await db.schema
        .createTable('budget_reservations')
        .addColumn('request_id', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('window_start', 'bigint', (c) => c.notNull())
        .addColumn('amount_micros', 'bigint', (c) => c.notNull())
        .addColumn('actual_micros', 'bigint')
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('settled_at', 'bigint')
        .addPrimaryKeyConstraint('budget_reservations_pk', ['request_id', 'scope'])
        .execute();
      await db.schema
        .createIndex('idx_budget_reservations_open')
        .on('budget_reservations')
        .columns(['settled_at', 'expires_at'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('budget_reservations').execute();
      await db.schema.dropTable('budget_windows').execute();
      await db.schema.dropTable('budgets').execute();
    },
  };
}

/**
 * Migration 0006: who a session belongs to (decision 0182, extending ARCHITECTURE decision 12):
 * an optional user, tenant and tags, the scopes budgets are kept for.
 */
export function sessionOwnersMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('sessions').addColumn('user_id', 'text').execute();
      await db.schema.alterTable('sessions').addColumn('tenant_id', 'text').execute();
      await db.schema.alterTable('sessions').addColumn('tags_json', 'text').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('sessions').dropColumn('tags_json').execute();
      await db.schema.alterTable('sessions').dropColumn('tenant_id').execute();
      await db.schema.alterTable('sessions').dropColumn('user_id').execute();
    },
  };
}
