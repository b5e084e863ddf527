import { nowEpochMicros, type TurnLeaseWrite } from '@yourtool/core';
import { CompiledQuery, type Kysely } from 'kysely';
import type { StoreDatabase } from './database.js';
import { DuplicateMessageError } from './errors.js';
import { type CheckedMessage, messageRow, uniqueViolationTable } from './message-input.js';

// A turn's plain message on PostgreSQL in one statement, one round trip (issue 50): the
// session's touch with its turn lease applied, and the row inserted only when the touch
// happened, as data-modifying CTEs of one statement, which PostgreSQL runs as one transaction.
// The kysely path takes `begin`, a locked read of the lease, the update, the insert and
// `commit`: five round trips one after another before a turn's request could leave. When the
// touch finds nothing to touch (no such session, another turn's lease, expired or not), the
// statement wrote nothing and the caller goes the kysely way, which names the error or takes
// over the expired lease (finishing the dead turn's rows, decision 0156).

const STORE_NOW = '(extract(epoch from clock_timestamp()) * 1000000)::bigint';

/** The `set` and `where` of the touch, by the kind of lease the write carries. */
export const TOUCH = {
  none: { set: '', where: '' },
  take: {
    set: `, "turn_lease_id" = $3, "turn_lease_expires_at" = ${STORE_NOW} + $4::bigint`,
    where: ' and ("turn_lease_id" is null or "turn_lease_id" = $3)',
  },
  hold: {
    set: `, "turn_lease_expires_at" = ${STORE_NOW} + $4::bigint`,
    where: ' and "turn_lease_id" = $3',
  },
  release: {
    set: ', "turn_lease_id" = null, "turn_lease_expires_at" = null',
    where: ' and "turn_lease_id" = $3',
  },
} as const;

/** The kind of lease a write carries. */
export type TouchKind = keyof typeof TOUCH;

/** The kind of `lease` and the lease it names (none without one). */
export function leaseParts(lease: TurnLeaseWrite | undefined): {
  kind: TouchKind;
  held: { id: string; ttlMs: number } | null;
} {
  if (!lease) return { kind: 'none', held: null };
  if ('take' in lease) return { kind: 'take', held: lease.take };
  if ('hold' in lease) return { kind: 'hold', held: lease.hold };
  return { kind: 'release', held: lease.release };
}

function statementOf(kind: TouchKind): string {
  const { set, where } = TOUCH[kind];
  return (
    `with "touched" as (update "sessions" set "updated_at" = $2::bigint, "revision" = "revision" + 1${set} ` +
    `where "id" = $1${where} returning "revision"), ` +
    `"added" as (insert into "messages" ("id", "session_id", "role", "content_json", "metadata_json", "created_at", "schema_version") ` +
    `select $5, $1, $6, $7, $8, $9::bigint, $10::integer from "touched" returning "id") ` +
    // $3 and $4 named in every text, so that their types are known where the touch does not use them
    `select (select "revision" from "touched") as "revision", (select count(*) from "added")::integer as "added", ` +
    `$3::text as "lease_id", $4::bigint as "lease_ttl"`
  );
}

// built once: four texts, so the server and pg see the same ones every time
/** The texts of the plain append, by lease kind. */
export const STATEMENTS: Record<TouchKind, string> = {
  none: statementOf('none'),
  take: statementOf('take'),
  hold: statementOf('hold'),
  release: statementOf('release'),
};

/**
 * Appends one plain message (no tool call rows, no answers to record) in one statement.
 * Resolves to the session's new revision, or null when nothing was written because the touch
 * found no session it could touch (the kysely path then says why, or takes an expired lease).
 * @throws DuplicateMessageError when the message id is stored already (nothing is written).
 */
export async function appendPlainMessagePostgres(
  db: Kysely<StoreDatabase>,
  checked: CheckedMessage,
  lease: TurnLeaseWrite | undefined,
): Promise<number | null> {
  const row = messageRow(checked);
  const { kind, held } = leaseParts(lease);
  const parameters = [
    row.session_id,
    nowEpochMicros(),
    held?.id ?? null,
    held ? held.ttlMs * 1000 : null,
    row.id,
    row.role,
    row.content_json,
    row.metadata_json,
    row.created_at,
    row.schema_version,
  ];
  let result: { rows: unknown[] };
  try {
    result = await db.executeQuery(CompiledQuery.raw(STATEMENTS[kind], parameters));
  } catch (error) {
    if (uniqueViolationTable(error) === 'messages') throw new DuplicateMessageError(row.id);
    throw error;
  }
  const [first] = result.rows as Array<{ revision: number | null; added: number }>;
  if (!first || first.revision === null || first.added !== 1) return null;
  return Number(first.revision);
}
