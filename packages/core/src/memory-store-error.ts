import { YourtoolError } from './errors.js';

/**
 * A write the in-memory store refused: an unknown session, a message that fails the schema or,
 * at `status: complete`, the canonical invariants, a duplicate id, a changed role. `code` says
 * which; nothing was written.
 */
export class MemoryStoreError extends YourtoolError {}
