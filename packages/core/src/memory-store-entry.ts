/**
 * @yourtool/core/memory-store: an in-memory `SessionStore` for tests and prototypes.
 *
 * @packageDocumentation
 */
export { MemorySessionStore, MemoryStoreError } from './memory-store.js';
