import type {
  SharedAvailabilityRecord,
  SharedAvailabilityState,
  SharedAvailabilityStore,
  SharedUnavailableInput,
} from '@yourtool/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { StoreDialect } from './database.js';
import { InvalidStoreInputError } from './errors.js';

interface AvailabilityTable {
  key: string;
  state: string;
  until_ms: number;
  probe_owner: string | null;
  probe_started_ms: number;
  cooldown_ms: number;
  last_error: string | null;
  updated_ms: number;
}

type Db = Kysely<{ availability: AvailabilityTable }>;

const STATES: ReadonlySet<string> = new Set([
  'available',
  'unavailable',
  'probing',
  'not_configured',
]);

/** The store's clock in epoch ms: the server's on PostgreSQL, the process's on SQLite (one machine). */
function nowMs(dialect: StoreDialect): RawBuilder<number> {
  return dialect === 'postgres'
    ? sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`
    : sql<number>`${Date.now()}`;
}

/**
 * Availability verdicts in the session database (table `availability`, migration 0007,
 * decision 0183), shared by every instance using it. Each write is one conditional statement:
 * a deadline only moves later, one instance wins each probe, and only the prober ends it.
 */
export class SqlAvailabilityStore implements SharedAvailabilityStore {
  readonly #db: Db;
  readonly #dialect: StoreDialect;

  /** Uses a store's connection (`SqlSessionStore.sharedAvailability()` makes one). */
  constructor(db: Kysely<unknown>, dialect: StoreDialect) {
    this.#db = db as Db;
    this.#dialect = dialect;
  }

  /** Every stored key and the store's clock. */
  async readAvailability(): Promise<{ now: number; records: SharedAvailabilityRecord[] }> {
    const rows = await this.#db.selectFrom('availability').selectAll().execute();
    const clock = await sql<{ now: number }>`select ${nowMs(this.#dialect)} as now`.execute(
      this.#db,
    );
    return { now: Number(clock.rows[0]?.now ?? Date.now()), records: rows.map(recordOf) };
  }

  /** Unavailable until the later of the stored deadline and now + `cooldownMs`. */
  async markUnavailable(input: SharedUnavailableInput): Promise<SharedAvailabilityRecord> {
    checkKey(input.key);
    if (!Number.isSafeInteger(input.cooldownMs) || input.cooldownMs < 0) {
      throw new InvalidStoreInputError('availability', [
        { path: 'cooldownMs', message: `must be a whole number of ms, got ${input.cooldownMs}` },
      ]);
    }
    const now = nowMs(this.#dialect);
    const row = await this.#db
      .insertInto('availability')
      .values({
        key: input.key,
        state: 'unavailable',
        until_ms: sql<number>`${now} + ${input.cooldownMs}`,
        probe_owner: null,
        probe_started_ms: 0,
        cooldown_ms: input.cooldownMs,
        last_error: input.lastError,
        updated_ms: now,
      })
      .onConflict((c) =>
        c.column('key').doUpdateSet({
          // credentials refused stay refused: a failure says nothing about them
          state: sql<string>`case when availability.state = 'not_configured' then availability.state else 'unavailable' end`,
          // the later deadline wins, so a repeated failure never shortens a cooldown
          until_ms: sql<number>`case when availability.until_ms > excluded.until_ms then availability.until_ms else excluded.until_ms end`,
          probe_owner: null,
          probe_started_ms: 0,
          cooldown_ms: sql<number>`case when availability.cooldown_ms > excluded.cooldown_ms then availability.cooldown_ms else excluded.cooldown_ms end`,
          last_error: sql<string | null>`excluded.last_error`,
          updated_ms: sql<number>`excluded.updated_ms`,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return recordOf(row);
  }

  /** One conditional update: true for the single instance that now probes the key. */
  async claimProbe(key: string, owner: string, probeTimeoutMs: number): Promise<boolean> {
    checkKey(key);
    const now = nowMs(this.#dialect);
    const result = await this.#db
      .updateTable('availability')
      .set({ state: 'probing', probe_owner: owner, probe_started_ms: now, updated_ms: now })
      .where('key', '=', key)
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'unavailable'), eb('until_ms', '<=', now)]),
          eb.and([
            eb('state', '=', 'probing'),
            eb('probe_started_ms', '<=', sql<number>`${now} - ${probeTimeoutMs}`),
          ]),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** The probe said nothing about health: unavailable again, deadline passed, next claim wins. */
  async releaseProbe(key: string, owner: string): Promise<void> {
    const now = nowMs(this.#dialect);
    await this.#db
      .updateTable('availability')
      .set({ state: 'unavailable', probe_owner: null, probe_started_ms: 0, updated_ms: now })
      .where('key', '=', key)
      .where('state', '=', 'probing')
      .where('probe_owner', '=', owner)
      .execute();
  }

  /** The probe of `owner` succeeded: available again, first cooldown next time. */
  async probeSucceeded(key: string, owner: string): Promise<void> {
    const now = nowMs(this.#dialect);
    await this.#db
      .updateTable('availability')
      .set({
        state: 'available',
        until_ms: 0,
        probe_owner: null,
        probe_started_ms: 0,
        cooldown_ms: 0,
        updated_ms: now,
      })
      .where('key', '=', key)
      .where('state', '=', 'probing')
      .where('probe_owner', '=', owner)
      .execute();
  }

  /** Credentials refused: not configured until cleared. */
  async markNotConfigured(key: string): Promise<void> {
    checkKey(key);
    const now = nowMs(this.#dialect);
    await this.#db
      .insertInto('availability')
      .values({
        key,
        state: 'not_configured',
        until_ms: 0,
        probe_owner: null,
        probe_started_ms: 0,
        cooldown_ms: 0,
        last_error: 'auth',
        updated_ms: now,
      })
      .onConflict((c) =>
        c.column('key').doUpdateSet({
          state: 'not_configured',
          probe_owner: null,
          last_error: 'auth',
          updated_ms: sql<number>`excluded.updated_ms`,
        }),
      )
      .execute();
  }

  /** Forgets a key. */
  async clearAvailability(key: string): Promise<void> {
    await this.#db.deleteFrom('availability').where('key', '=', key).execute();
  }
}

/** @throws InvalidStoreInputError for a key that is not `provider:…` or `model:…`. */
function checkKey(key: string): void {
  if (typeof key !== 'string' || !/^(provider|model):./.test(key)) {
    throw new InvalidStoreInputError('availability', [
      { path: 'key', message: `must be "provider:<name>" or "model:<id>", got ${String(key)}` },
    ]);
  }
}

function recordOf(row: AvailabilityTable): SharedAvailabilityRecord {
  const state = STATES.has(row.state) ? (row.state as SharedAvailabilityState) : 'available';
  return {
    key: row.key,
    state,
    until: Number(row.until_ms),
    probeOwner: row.probe_owner,
    probeStarted: Number(row.probe_started_ms),
    cooldownMs: Number(row.cooldown_ms),
    lastError: row.last_error,
  };
}
