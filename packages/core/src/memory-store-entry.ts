/**
 * @yourtool/core/memory-store: an in-memory `SessionStore` for tests and prototypes.
 *
 * @packageDocumentation
 */
export { MemorySessionStore } from './memory-store.js';
export { MemoryStoreError } from './memory-store-error.js';
