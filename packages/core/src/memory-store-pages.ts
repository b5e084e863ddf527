import { MemoryStoreError } from './memory-store-error.js';

// How `MemorySessionStore` pages: sessions by an offset cursor, messages after the id of the
// last one given. A cursor it did not give is refused, as `@yourtool/store` refuses it.

/**
 * A page size as given.
 * @throws MemoryStoreError (`invalid_store_input`) unless it is a positive integer.
 */
export function checkedLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new MemoryStoreError(
      'invalid_store_input',
      `limit must be a positive integer, got ${limit}`,
    );
  }
  return limit;
}

/**
 * The offset a session list cursor stands for (0 without one).
 * @throws MemoryStoreError (`invalid_store_input`) for a cursor that is not an offset.
 */
export function offsetOfCursor(cursor: string | undefined): number {
  const offset = cursor === undefined ? 0 : Number(cursor);
  if (!Number.isInteger(offset) || offset < 0) {
    throw new MemoryStoreError(
      'invalid_store_input',
      `cursor "${cursor}" is not one this store gave`,
    );
  }
  return offset;
}

/**
 * The ids of one page of `order` after the id `after` (from the start without one), and the
 * cursor of the next page (the page's last id), or null when none follows.
 * @throws MemoryStoreError (`invalid_store_input`) for an `after` that is not in `order`.
 */
export function pageAfter(
  order: readonly string[],
  after: string | null | undefined,
  limit: number,
): { ids: string[]; next_cursor: string | null } {
  let start = 0;
  if (after) {
    const at = order.indexOf(after);
    if (at < 0) {
      throw new MemoryStoreError(
        'invalid_store_input',
        `cursor "${after}" is not one this store gave`,
      );
    }
    start = at + 1;
  }
  const ids = order.slice(start, start + limit);
  const last = ids.at(-1);
  return {
    ids,
    next_cursor: last !== undefined && start + limit < order.length ? last : null,
  };
}
