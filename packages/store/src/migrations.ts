import type { Kysely } from 'kysely';
import type { Migration, MigrationProvider } from 'kysely/migration';
import { toolApprovalsMigration } from './approvals-migration.js';
import { availabilityMigration } from './availability-migration.js';
import { budgetsMigration, sessionOwnersMigration } from './budgets-migration.js';
import type { StoreDialect } from './database.js';

/**
 * The store's migrations, in code (no directory scanning, so they ship inside the bundle).
 * Names sort in the order they run. A released migration is never edited: changes come as a
 * new, later migration.
 */
export function storeMigrations(dialect: StoreDialect): Record<string, Migration> {
  // Epoch microseconds exceed 32 bits: SQLite's INTEGER is 64-bit, PostgreSQL needs BIGINT.
  const micros = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    '0001_canonical_tables': canonicalTables(micros),
    '0002_session_revision': {
      // A counter raised by every write to a session's messages, so a reader that keeps a
      // session's history in memory can tell whether another writer changed it; see docs/decisions/0103.
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .alterTable('sessions')
          .addColumn('revision', 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
      },
      async down(db: Kysely<unknown>): Promise<void> {
        await db.schema.alterTable('sessions').dropColumn('revision').execute();
      },
    },
    '0003_session_turn_lease': {
      // One turn at a time per session across processes: the turn holding the session and
      // when its lease expires (epoch microseconds on the store's clock); see docs/decisions/0156.
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema.alterTable('sessions').addColumn('turn_lease_id', 'text').execute();
        await db.schema.alterTable('sessions').addColumn('turn_lease_expires_at', micros).execute();
      },
      async down(db: Kysely<unknown>): Promise<void> {
        await db.schema.alterTable('sessions').dropColumn('turn_lease_expires_at').execute();
        await db.schema.alterTable('sessions').dropColumn('turn_lease_id').execute();
      },
    },
    '0004_tool_approvals': toolApprovalsMigration(micros),
    '0005_budgets': budgetsMigration(),
    '0006_session_owners': sessionOwnersMigration(),
    '0007_shared_availability': availabilityMigration(micros),
  };
}

/** Migration 0001: the tables of canonical-format §10, table for table and index for index. */
function canonicalTables(micros: 'bigint' | 'integer'): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('workspace_path', 'text', (c) => c.notNull())
        .addColumn('active_model', 'text')
        .addColumn('routing_policy_json', 'text')
        .addColumn('schema_version', 'integer', (c) => c.notNull())
        .addColumn('created_at', micros, (c) => c.notNull())
        .addColumn('updated_at', micros, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('messages')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('content_json', 'text', (c) => c.notNull())
        .addColumn('metadata_json', 'text', (c) => c.notNull())
        .addColumn('created_at', micros, (c) => c.notNull())
        .addColumn('schema_version', 'integer', (c) => c.notNull())
        .addForeignKeyConstraint('messages_session_id_fk', ['session_id'], 'sessions', ['id'])
        .execute();
      await db.schema
        .createIndex('idx_messages_session_created')
        .on('messages')
        .columns(['session_id', 'created_at'])
        .execute();

      await db.schema
        .createTable('tool_calls')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('message_id', 'text', (c) => c.notNull())
        .addColumn('result_message_id', 'text')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('provider_id', 'text')
        .addColumn('provider', 'text')
        .addColumn('created_at', micros, (c) => c.notNull())
        .addColumn('completed_at', micros)
        .addForeignKeyConstraint('tool_calls_session_id_fk', ['session_id'], 'sessions', ['id'])
        .addForeignKeyConstraint('tool_calls_message_id_fk', ['message_id'], 'messages', ['id'])
        .addForeignKeyConstraint(
          'tool_calls_result_message_id_fk',
          ['result_message_id'],
          'messages',
          ['id'],
        )
        .execute();
      await db.schema
        .createIndex('idx_tool_calls_session_status')
        .on('tool_calls')
        .columns(['session_id', 'status'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('tool_calls').execute();
      await db.schema.dropTable('messages').execute();
      await db.schema.dropTable('sessions').execute();
    },
  };
}

/** A kysely `MigrationProvider` over {@link storeMigrations}. */
export function storeMigrationProvider(dialect: StoreDialect): MigrationProvider {
  const migrations = storeMigrations(dialect);
  return { getMigrations: async () => migrations };
}
