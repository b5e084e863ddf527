import { existsSync } from 'node:fs';
import { type Kysely, sql } from 'kysely';
import { loadSqliteDriver } from './connect.js';
import type { StoreDatabase, StoreDialect } from './database.js';
import { NotAStoreError, StoreNotFoundError, StoreSchemaVersionError } from './errors.js';
import { storeMigrations } from './migrations.js';

// What a database holds before a store is opened on it with `create: false`: nothing is created,
// migrated or otherwise written while finding out (docs/decisions/0150).

/** The table kysely's `Migrator` keeps the applied migrations in (`name`, `timestamp`). */
const MIGRATION_TABLE = 'kysely_migration';

/** What a database's tables say about the store in it. */
export type StoreSchemaState =
  | { kind: 'foreign'; tables: string[] }
  | { kind: 'older'; pending: string[] }
  | { kind: 'current' }
  | { kind: 'newer'; unknown: string[] };

/**
 * Classifies a database by its tables and the migrations its migration table lists (`null`
 * when it has none): a store has at least one of this version's migrations; it is older when
 * some are not applied, newer when it has applied some this version does not know.
 */
export function classifySchema(
  dialect: StoreDialect,
  tables: readonly string[],
  applied: readonly string[] | null,
): StoreSchemaState {
  const known = Object.keys(storeMigrations(dialect));
  const done = new Set(applied ?? []);
  if (!known.some((name) => done.has(name))) return { kind: 'foreign', tables: [...tables] };
  const unknown = [...done].filter((name) => !known.includes(name)).sort();
  if (unknown.length > 0) return { kind: 'newer', unknown };
  const pending = known.filter((name) => !done.has(name));
  return pending.length > 0 ? { kind: 'older', pending } : { kind: 'current' };
}

/** The tables of a foreign database, for its error: the first few, and how many more. */
function describeTables(tables: readonly string[]): string {
  if (tables.length === 0) return 'it has no tables';
  const shown = tables.slice(0, 5).join(', ');
  return tables.length > 5
    ? `its tables: ${shown} and ${tables.length - 5} more`
    : `its tables: ${shown}`;
}

/**
 * Throws unless `state` can be opened: a foreign database is {@link NotAStoreError}, a newer
 * store {@link StoreSchemaVersionError}, and so is an older one unless `migrate` (which then
 * upgrades it).
 */
export function requireStoreSchema(
  state: StoreSchemaState,
  where: { url: string; location: string },
  migrate: boolean,
): void {
  const { url, location } = where;
  if (state.kind === 'foreign') {
    throw new NotAStoreError(url, location, describeTables(state.tables), state.tables);
  }
  if (state.kind === 'newer') {
    throw new StoreSchemaVersionError(url, location, { pending: [], unknown: state.unknown });
  }
  if (state.kind === 'older' && !migrate) {
    throw new StoreSchemaVersionError(url, location, { pending: state.pending, unknown: [] });
  }
}

function driverCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * SQLite: the state of the file at `path`; the file must exist. The connection only reads (no
 * pragma, so not even the journal mode changes). It is not opened read-only: a read-only
 * connection to a WAL database leaves its `-wal` and `-shm` files behind, where a reader that
 * closes last removes them.
 * @throws StoreNotFoundError when there is no file; NotAStoreError when it is not SQLite.
 */
export async function sqliteSchemaState(path: string, url: string): Promise<StoreSchemaState> {
  if (!existsSync(path)) throw new StoreNotFoundError(url, path, 'the file does not exist');
  const Database = await loadSqliteDriver();
  let sqlite: import('better-sqlite3').Database;
  try {
    sqlite = new Database(path, { fileMustExist: true });
  } catch (cause) {
    if (!existsSync(path)) throw new StoreNotFoundError(url, path, 'the file does not exist');
    throw new NotAStoreError(url, path, `it cannot be opened: ${(cause as Error).message}`);
  }
  try {
    const tables = sqlite
      .prepare(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name",
      )
      .pluck()
      .all() as string[];
    const applied = tables.includes(MIGRATION_TABLE)
      ? (sqlite.prepare(`select name from "${MIGRATION_TABLE}"`).pluck().all() as string[])
      : null;
    return classifySchema('sqlite', tables, applied);
  } catch (cause) {
    const code = driverCode(cause);
    const detail =
      code === 'SQLITE_NOTADB'
        ? 'it is not a SQLite database'
        : `it cannot be read: ${(cause as Error).message}`;
    throw new NotAStoreError(url, path, detail);
  } finally {
    sqlite.close();
  }
}

/**
 * PostgreSQL: the state of `schema`, from the catalog and the migration table (reads only).
 * @throws StoreNotFoundError when the schema does not exist.
 */
export async function postgresSchemaState(
  db: Kysely<StoreDatabase>,
  schema: string,
  where: { url: string; location: string },
): Promise<StoreSchemaState> {
  const found = await sql<{
    n: number;
  }>`select count(*)::int as n from pg_namespace where nspname = ${schema}`.execute(db);
  if ((found.rows[0]?.n ?? 0) === 0) {
    throw new StoreNotFoundError(
      where.url,
      where.location,
      `the schema "${schema}" does not exist`,
    );
  }
  const tables = await sql<{
    tablename: string;
  }>`select tablename from pg_catalog.pg_tables where schemaname = ${schema} order by tablename`.execute(
    db,
  );
  const names = tables.rows.map((row) => row.tablename);
  let applied: string[] | null = null;
  if (names.includes(MIGRATION_TABLE)) {
    const rows = await sql<{
      name: string;
    }>`select name from ${sql.id(schema, MIGRATION_TABLE)}`.execute(db);
    applied = rows.rows.map((row) => row.name);
  }
  return classifySchema('postgres', names, applied);
}
