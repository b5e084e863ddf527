/**
 * @yourtool/store/listing: a SQLite store's sessions, listed on better-sqlite3 directly, for
 * programs that only list (the `yourtool sessions list` command): it loads neither kysely nor
 * @yourtool/core's schemas, and lists what `SqlSessionStore.listSessions` lists.
 *
 * @packageDocumentation
 */

export type { ListSessionsOptions } from '../sessions.js';
export {
  LISTING_MIGRATIONS,
  openSessionListing,
  type SessionListing,
  type SessionListingOptions,
  type SessionPage,
  sqliteStoreFile,
} from './session-listing.js';
