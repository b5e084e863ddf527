import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Migration 0004: tool approvals waiting across requests (decision 0177). A turn that asks a
 * person to approve a tool records the question here, and the instance that receives the
 * answer (any of them) writes it; the waiting turn reads it. Rows go with their session.
 */
export function toolApprovalsMigration(micros: 'bigint' | 'integer'): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('tool_approvals')
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('tool_use_id', 'text', (c) => c.notNull())
        .addColumn('tool_name', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('reason', 'text')
        .addColumn('requested_at', micros, (c) => c.notNull())
        .addColumn('answered_at', micros)
        .addPrimaryKeyConstraint('tool_approvals_pk', ['session_id', 'tool_use_id'])
        .addForeignKeyConstraint(
          'tool_approvals_session_id_fk',
          ['session_id'],
          'sessions',
          ['id'],
          (c) => c.onDelete('cascade'),
        )
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('tool_approvals').execute();
    },
  };
}
