import { type Kysely, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import type { StoreContext } from './context.js';
import type { StoreDatabase } from './database.js';
import { StoreConnectionError } from './errors.js';
import { storeMigrationProvider } from './migrations.js';

/** Outcome of {@link SqlSessionStore.migrate}. */
export interface MigrationReport {
  /** Names of the migrations applied now, in order (empty when already up to date). */
  applied: string[];
}

/** Applies the store's pending migrations: see {@link SqlSessionStore.migrate}. */
export async function migrate(ctx: StoreContext): Promise<MigrationReport> {
  const run = (db: Kysely<StoreDatabase>) => migrateToLatest(ctx, db);
  if (ctx.dialect === 'postgres') {
    await createSchema(ctx);
    // PostgreSQL: kysely runs the migrations in a transaction under an advisory lock.
    return run(ctx.db);
  }
  // SQLite: kysely takes no lock there, so several processes opening a new file at once
  // would race. One IMMEDIATE transaction makes the whole migration atomic and serialized.
  return ctx.write(run);
}

async function migrateToLatest(
  ctx: StoreContext,
  db: Kysely<StoreDatabase>,
): Promise<MigrationReport> {
  const provider = storeMigrationProvider(ctx.dialect);
  const migrator = new Migrator(
    ctx.schema === undefined
      ? { db, provider }
      : { db, provider, migrationTableSchema: ctx.schema },
  );
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results.find((r) => r.status === 'Error')?.migrationName ?? '(setup)';
    throw new StoreConnectionError(
      ctx.url,
      `migration ${failed} failed: ${(error as Error)?.message ?? String(error)}`,
      { cause: error },
    );
  }
  return { applied: results.filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

/** PostgreSQL: creates the store's schema unless it is there. */
async function createSchema(ctx: StoreContext): Promise<void> {
  const schema = ctx.schema ?? 'public';
  await ctx.db.schema
    .createSchema(schema)
    .ifNotExists()
    .execute()
    .catch(async (error: unknown) => {
      // Two instances creating the schema at once: the loser's "if not exists" can still
      // fail; it is fine as long as the schema is there now.
      const found = await sql<{
        n: number;
      }>`select count(*)::int as n from pg_namespace where nspname = ${schema}`.execute(ctx.db);
      if ((found.rows[0]?.n ?? 0) === 0) throw error;
    });
}
