/** Runs async sections one at a time, in call order. */
export class AsyncLock {
  #tail: Promise<void> = Promise.resolve();
  /** Sections started or queued and not settled yet. */
  #pending = 0;

  /**
   * Runs `section` after every section queued before it has settled: at once (synchronously)
   * when none is pending, so a synchronous section on a free lock waits for nothing.
   */
  run<T>(section: () => Promise<T>): Promise<T> {
    let result: Promise<T>;
    if (this.#pending === 0) {
      try {
        result = section();
      } catch (error) {
        result = Promise.reject(error);
      }
    } else result = this.#tail.then(section);
    this.#pending++;
    const settled = () => {
      this.#pending--;
    };
    this.#tail = result.then(settled, settled);
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
