import type { SqliteDatabase } from 'kysely';
import type { AsyncLock } from './lock.js';
import type { SqliteGate } from './sqlite-gate.js';

// Group commit for the direct path's writes (issue 50). A write that finds the file's lock and
// the connection free runs at once in a transaction of its own, as before. Writes that arrive
// while they are taken join one batch, which runs at its turn as one `BEGIN IMMEDIATE`
// transaction: each write inside a savepoint, so a failing one is rolled back alone and fails
// alone, and every write's promise settles only once the batch has committed (a caller never
// sees a write that a crash could still lose). A batch runs at most the gate's slice and
// `MAX_BATCH` writes; the writes left over go first in the next batch. With a thousand
// sessions storing at once, a thousand commits (each writing its pages to the WAL) become a
// few dozen.

/**
 * Writes per batch at most: every write of a batch settles at once, and what its caller does
 * next (a turn building its request) runs in the same turn of the event loop; a thousand of
 * them at once blocked the loop for seconds.
 */
export const MAX_BATCH = 32;

/** A write waiting in a batch: its section and its promise's settlers. */
interface Pending {
  section: (sqlite: SqliteDatabase) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** The outcome of one write of a batch, kept until the batch commits. */
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Runs `statement` (transaction control) through the connection's statement cache. */
function control(sqlite: SqliteDatabase, statement: string): void {
  sqlite.prepare(statement).run([]);
}

/** Rolls back what is open; SQLite may have rolled it back itself already. */
function rollback(sqlite: SqliteDatabase): void {
  try {
    control(sqlite, 'rollback');
  } catch {
    // the transaction is gone already
  }
}

/** Writes batched into shared transactions on `sqlite`, behind `writeLock` and `gate`. */
export class GroupCommit {
  readonly #sqlite: SqliteDatabase;
  readonly #gate: SqliteGate;
  readonly #writeLock: AsyncLock;
  /** The batch queued and not started yet, which new writes join. */
  #open: Pending[] | undefined;

  constructor(gate: SqliteGate, sqlite: SqliteDatabase, writeLock: AsyncLock) {
    this.#gate = gate;
    this.#sqlite = sqlite;
    this.#writeLock = writeLock;
  }

  /** Runs `section` in a write transaction: its own when nothing is queued, else a batch's. */
  write<T>(section: (sqlite: SqliteDatabase) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const pending = { section, resolve, reject } as Pending;
      if (this.#open) this.#open.push(pending);
      else this.#queue([pending]);
    });
  }

  /** Queues `batch` as the open one; it runs (at once, when all is free) at its turn. */
  #queue(batch: Pending[]): void {
    this.#open = batch;
    void this.#writeLock.run(() =>
      this.#gate.run(() => {
        if (this.#open === batch) this.#open = undefined;
        this.#run(batch);
      }),
    );
  }

  /** Runs a batch (or the part of it the slice allows) as one transaction and settles it. */
  #run(batch: Pending[]): void {
    const sqlite = this.#sqlite;
    const started = performance.now();
    try {
      control(sqlite, 'begin immediate');
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    if (batch.length === 1) {
      this.#runAlone(batch[0] as Pending);
      return;
    }
    const outcomes: Outcome[] = [];
    let broken: { error: unknown } | undefined;
    for (const p of batch) {
      const outcome = runSaved(sqlite, p);
      if ('broken' in outcome) {
        broken = outcome;
        break;
      }
      outcomes.push(outcome);
      if (outcomes.length >= MAX_BATCH || performance.now() - started >= this.#gate.sliceMs) break;
    }
    const done = outcomes.length + (broken ? 1 : 0);
    const failure = broken ? broken.error : commitOrError(sqlite);
    if (failure !== undefined) {
      // nothing of the batch stays: each write it reached fails with what ended it
      rollback(sqlite);
      for (let i = 0; i < done; i++) (batch[i] as Pending).reject(failure);
    } else {
      outcomes.forEach((outcome, i) => {
        const p = batch[i] as Pending;
        if (outcome.ok) p.resolve(outcome.value);
        else p.reject(outcome.error);
      });
    }
    this.#requeue(batch.slice(done));
  }

  /** A batch of one: the write is the transaction, rolled back whole when it fails. */
  #runAlone(p: Pending): void {
    const sqlite = this.#sqlite;
    let value: unknown;
    try {
      value = p.section(sqlite);
      control(sqlite, 'commit');
    } catch (error) {
      rollback(sqlite);
      p.reject(error);
      return;
    }
    p.resolve(value);
  }

  /** Writes the slice did not reach go before those that joined later. */
  #requeue(rest: Pending[]): void {
    if (rest.length === 0) return;
    if (this.#open) this.#open.unshift(...rest);
    else this.#queue(rest);
  }
}

/** Commits; the error when that fails (undefined when it committed). */
function commitOrError(sqlite: SqliteDatabase): unknown {
  try {
    control(sqlite, 'commit');
    return undefined;
  } catch (error) {
    return error ?? new Error('commit failed');
  }
}

/**
 * One write of a larger batch, inside a savepoint: a failure undoes this write only. `broken`
 * when the savepoint itself failed (SQLite rolled the whole transaction back, e.g. on a full
 * disk): the batch cannot go on.
 */
function runSaved(sqlite: SqliteDatabase, p: Pending): Outcome | { broken: true; error: unknown } {
  try {
    control(sqlite, 'savepoint "write"');
  } catch (error) {
    return { broken: true, error };
  }
  try {
    const value = p.section(sqlite);
    control(sqlite, 'release "write"');
    return { ok: true, value };
  } catch (error) {
    try {
      control(sqlite, 'rollback to "write"');
      control(sqlite, 'release "write"');
    } catch (undo) {
      return { broken: true, error: undo };
    }
    return { ok: false, error };
  }
}
