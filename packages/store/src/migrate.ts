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
    return withOtherSchemaDropRetry(ctx, () => run(ctx.db));
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

/** How often a migration is tried again when another schema was dropped under it. */
const OTHER_SCHEMA_DROP_ATTEMPTS = 3;

/**
 * Runs `migration`, again (at most {@link OTHER_SCHEMA_DROP_ATTEMPTS} times in all) when it
 * failed only because another schema of the database was dropped meanwhile: kysely's migrator
 * lists tables across every schema (`has_schema_privilege` per namespace), which fails with
 * 3F000 when a schema disappears during the query, as in a database shared with other tenants.
 */
async function withOtherSchemaDropRetry<T>(ctx: StoreContext, migration: () => Promise<T>) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await migration();
    } catch (error) {
      if (attempt >= OTHER_SCHEMA_DROP_ATTEMPTS || !otherSchemaDropped(error, ctx.schema)) {
        throw error;
      }
    }
  }
}

/** Whether `error` (or its cause) is PostgreSQL's 3F000 for a schema other than `own`. */
function otherSchemaDropped(error: unknown, own: string | undefined): boolean {
  for (
    let e: unknown = error;
    e instanceof Error || isRecord(e);
    e = (e as { cause?: unknown }).cause
  ) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (code === '3F000' && typeof message === 'string') {
      const named = /schema "([^"]+)" does not exist/.exec(message)?.[1];
      return named !== undefined && named !== (own ?? 'public');
    }
    if (e === (e as { cause?: unknown }).cause) break;
  }
  return false;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

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
