import {
  type AbortableOperationOptions,
  type DatabaseConnection,
  type Driver,
  SqliteAdapter,
  SqliteDialect,
  type SqliteDialectConfig,
  type TransactionSettings,
} from 'kysely';

// Turn-taking on a store's one SQLite connection (issue 50). kysely's own mutex for
// single-connection dialects wakes every waiter at each release, and each re-checks and waits
// again: with n queries queued, one release costs n wake-ups, a queue drains in n² of them.
// Here the waiters queue first in, first out and a release hands the connection to exactly one;
// and since better-sqlite3 is synchronous, a section of synchronous statements that finds the
// connection free runs at once, with no promise to wait for at all. Synchronous statements
// chained through promises never give the event loop a turn, though: after `sliceMs` of such
// work the next holder waits for `setImmediate`, so sockets and timers are served between
// slices (a thousand sessions storing their tool results at once blocked the loop for 1.2 s).

/** How long sections may follow each other before the event loop gets a turn, by default. */
export const DEFAULT_SLICE_MS = 10;

/** Who holds a store's SQLite connection, and who waits for it, in arrival order. */
export class SqliteGate {
  #held = false;
  /** Waiters from `#head` on; the ones before it were woken already. */
  #waiters: Array<(() => void) | undefined> = [];
  #head = 0;
  readonly #sliceMs: number;
  /** When the present slice of back-to-back sections began; 0 once the loop had a turn. */
  #sliceStart = 0;

  /** `sliceMs`: how long sections may follow each other before the event loop gets a turn. */
  constructor(sliceMs = DEFAULT_SLICE_MS) {
    this.#sliceMs = sliceMs;
  }

  /** Whether the present slice is used up: the next holder should let the loop turn first. */
  #sliceSpent(): boolean {
    const now = performance.now();
    if (this.#sliceStart === 0) {
      this.#sliceStart = now;
      // a turn of the loop reaching this ends the slice
      setImmediate(() => {
        this.#sliceStart = 0;
      });
      return false;
    }
    return now - this.#sliceStart >= this.#sliceMs;
  }

  /** How long sections may follow each other before the event loop gets a turn, in ms. */
  get sliceMs(): number {
    return this.#sliceMs;
  }

  /** Whether nobody holds the connection (and so nobody waits for it). */
  get free(): boolean {
    return !this.#held;
  }

  /** Resolves once the caller holds the connection; {@link release} hands it on. */
  acquire(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      if (this.#sliceSpent()) return new Promise((resolve) => setImmediate(resolve));
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Hands the connection to the longest waiter, or frees it when nobody waits. */
  release(): void {
    if (this.#head < this.#waiters.length) {
      const next = this.#waiters[this.#head];
      this.#waiters[this.#head] = undefined;
      this.#head++;
      if (this.#head >= 1024 && this.#head * 2 >= this.#waiters.length) {
        this.#waiters = this.#waiters.slice(this.#head);
        this.#head = 0;
      }
      // the connection stays held: it is the waiter's now
      if (this.#sliceSpent()) setImmediate(() => next?.());
      else next?.();
      return;
    }
    this.#held = false;
    this.#waiters = [];
    this.#head = 0;
  }

  /**
   * Runs a synchronous `section` while holding the connection: at once when it is free (no
   * transaction open, nobody waiting) and the slice is not spent, else at its turn in the queue.
   */
  run<T>(section: () => T): Promise<T> {
    if (!this.#held && !this.#sliceSpent()) {
      try {
        return Promise.resolve(section());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.acquire().then(() => {
      try {
        return section();
      } finally {
        this.release();
      }
    });
  }
}

/** SQLite's adapter, saying kysely need not keep its own mutex: the gate's driver does. */
class GatedAdapter extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true; // there is one connection, but the gate (GatedDriver) guards it, not kysely
  }
}

/** kysely's SQLite driver, its connection acquired and released through a {@link SqliteGate}. */
class GatedDriver implements Driver {
  readonly #inner: Driver;
  readonly #gate: SqliteGate;

  constructor(inner: Driver, gate: SqliteGate) {
    this.#inner = inner;
    this.#gate = gate;
  }

  init(options?: AbortableOperationOptions): Promise<void> {
    return this.#inner.init(options);
  }

  // An abort while waiting is kysely's to handle: it releases the connection once acquired.
  async acquireConnection(options?: AbortableOperationOptions): Promise<DatabaseConnection> {
    await this.#gate.acquire();
    try {
      return await this.#inner.acquireConnection(options);
    } catch (error) {
      this.#gate.release();
      throw error;
    }
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.rollbackTransaction(connection);
  }

  savepoint: Driver['savepoint'] = (connection, name, compile) =>
    (this.#inner.savepoint as NonNullable<Driver['savepoint']>)(connection, name, compile);

  rollbackToSavepoint: Driver['rollbackToSavepoint'] = (connection, name, compile) =>
    (this.#inner.rollbackToSavepoint as NonNullable<Driver['rollbackToSavepoint']>)(
      connection,
      name,
      compile,
    );

  releaseSavepoint: Driver['releaseSavepoint'] = (connection, name, compile) =>
    (this.#inner.releaseSavepoint as NonNullable<Driver['releaseSavepoint']>)(
      connection,
      name,
      compile,
    );

  async releaseConnection(
    connection: DatabaseConnection,
    options?: AbortableOperationOptions,
  ): Promise<void> {
    try {
      await this.#inner.releaseConnection(connection, options);
    } finally {
      this.#gate.release();
    }
  }

  destroy(options?: AbortableOperationOptions): Promise<void> {
    return this.#inner.destroy(options);
  }
}

/** kysely's SQLite dialect with its connection behind `gate` instead of kysely's mutex. */
export class GatedSqliteDialect extends SqliteDialect {
  readonly #gate: SqliteGate;

  constructor(config: SqliteDialectConfig, gate: SqliteGate) {
    super(config);
    this.#gate = gate;
  }

  override createDriver(): Driver {
    return new GatedDriver(super.createDriver(), this.#gate);
  }

  override createAdapter(): SqliteAdapter {
    return new GatedAdapter();
  }
}
