/**
 * @yourtool/store: durable sessions, messages and tool calls for the canonical conversation
 * format, on SQLite (embedded default) or PostgreSQL, implementing core's `SessionStore`.
 *
 * @packageDocumentation
 */

export { SqlApprovalStore, type ToolApprovalRecord, type ToolApprovalStatus } from './approvals.js';
export {
  type BudgetReservationRecord,
  type LedgerClock,
  SqlBudgetLedger,
} from './budget-ledger.js';
export type { PostgresPoolOptions, SqliteSynchronous } from './connect.js';
export { DEFAULT_BUSY_TIMEOUT_MS } from './connect.js';
export type { Position } from './cursor.js';
export type {
  MessagesTable,
  SessionsTable,
  StoreDatabase,
  StoreDialect,
  ToolCallsTable,
} from './database.js';
export * from './errors.js';
export type { IterateMessagesOptions } from './message-reads.js';
export type { MigrationReport } from './migrate.js';
export { storeMigrationProvider, storeMigrations } from './migrations.js';
export { type OpenStoreOptions, openStore } from './open.js';
export type { PrunedRows, PruneOptions, PruneReport } from './retention-policy.js';
export {
  canonicalJson,
  parseSessionLines,
  SESSION_LINES_FORMAT,
  SESSION_LINES_VERSION,
  sessionToLines,
} from './session-lines.js';
export type { ListSessionsOptions } from './sessions.js';
export { SqlAvailabilityStore } from './shared-availability.js';
export { SqlSessionStore } from './store.js';
export type {
  DeletedSession,
  ExportedSession,
  ImportConflict,
  ImportOutcome,
  ImportSessionOptions,
  SessionExport,
} from './transfer.js';
export { parseStoreUrl, redactStoreUrl, type StoreLocation } from './url.js';
