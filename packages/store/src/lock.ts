/** Runs async sections one at a time, in call order. */
export class AsyncLock {
  #tail: Promise<void> = Promise.resolve();

  /** Runs `section` after every section queued before it has settled. */
  run<T>(section: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(section);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

const fileLocks = new Map<string, AsyncLock>();

/**
 * The lock of one SQLite file, shared by every store of this process (and thread) that has it
 * open. SQLite serializes writers of different processes with its own locks and busy timeout;
 * within one thread that would deadlock (better-sqlite3 waits synchronously, blocking the very
 * writer it waits for), so writers of the same thread queue here first.
 */
export function fileLock(path: string): AsyncLock {
  let lock = fileLocks.get(path);
  if (!lock) {
    lock = new AsyncLock();
    fileLocks.set(path, lock);
  }
  return lock;
}
