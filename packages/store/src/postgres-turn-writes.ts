import { type Logger, nowEpochMicros, type TurnLeaseWrite } from '@yourtool/core';
import { CompiledQuery, type Kysely } from 'kysely';
import type { StoreDatabase } from './database.js';
import { DuplicateMessageError } from './errors.js';
import { type CheckedMessage, messageRow, uniqueViolationTable } from './message-input.js';
import { leaseParts, TOUCH, type TouchKind } from './postgres-append.js';
import { toolCallStatusOf } from './tool-call-status.js';

// Two more of a turn's writes on PostgreSQL in one statement each (issue 50), like the plain
// append of `postgres-append.ts`: the tool message answering its calls, and the update that
// finishes a streamed reply. The kysely path takes five and six round trips, each holding one
// of the pool's connections for the whole transaction; with a hundred sessions finishing their
// tools at once, their next requests queued behind them. When the statement writes nothing
// (no such session or message, another turn's lease, a mismatched row) the caller goes the
// kysely way, which names the error or takes an expired lease over.

/** The touch of the session, its lease applied, as the first CTE of a statement. */
function touchCte(kind: TouchKind, condition: string): string {
  const { set, where } = TOUCH[kind];
  return `"touched" as (update "sessions" set "updated_at" = $2::bigint, "revision" = "revision" + 1${set} where "id" = $1${where}${condition} returning "revision")`;
}

// $3 and $4 named in every text, so that their types are known where the touch does not use them
const LEASE_COLUMNS = '$3::text as "lease_id", $4::bigint as "lease_ttl"';

function answerStatement(kind: TouchKind): string {
  return (
    `with ${touchCte(kind, '')}, ` +
    `"added" as (insert into "messages" ("id", "session_id", "role", "content_json", "metadata_json", "created_at", "schema_version") ` +
    `select $5, $1, $6, $7, $8, $9::bigint, $10::integer from "touched" returning "id"), ` +
    `"answered" as (update "tool_calls" as "c" set "result_message_id" = $5, "status" = "a"."status", "completed_at" = $9::bigint ` +
    `from unnest($11::text[], $12::text[]) as "a"("id", "status") ` +
    `where "c"."id" = "a"."id" and "c"."session_id" = $1 and "c"."result_message_id" is null and exists (select 1 from "added") returning "c"."id") ` +
    `select (select "revision" from "touched") as "revision", (select count(*) from "added")::integer as "added", ` +
    `array(select "id" from "answered") as "answered", ${LEASE_COLUMNS}`
  );
}

function updateStatement(kind: TouchKind): string {
  return (
    `with "target" as (select "created_at" from "messages" where "id" = $5 and "session_id" = $1 and "role" = $6), ` +
    `${touchCte(kind, ' and exists (select 1 from "target")')}, ` +
    `"changed" as (update "messages" set "content_json" = $7, "metadata_json" = $8, "schema_version" = $9::integer ` +
    `where "id" = $5 and exists (select 1 from "touched") returning "created_at") ` +
    `select (select "revision" from "touched") as "revision", (select "created_at" from "changed") as "created_at", ${LEASE_COLUMNS}`
  );
}

const KINDS: readonly TouchKind[] = ['none', 'take', 'hold', 'release'];
// built once: the server and pg see the same texts every time
/** The texts of the tool message's append, by lease kind. */
export const ANSWER = Object.fromEntries(KINDS.map((k) => [k, answerStatement(k)])) as Record<
  TouchKind,
  string
>;
/** The texts of the plain update, by lease kind. */
export const UPDATE = Object.fromEntries(KINDS.map((k) => [k, updateStatement(k)])) as Record<
  TouchKind,
  string
>;

/** The results a tool message records, when {@link appendToolMessagePostgres} can write it. */
export function answersOf(checked: CheckedMessage): Array<{ id: string; failed: boolean }> | null {
  const { message } = checked;
  if (message.role !== 'tool') return null;
  const answers: Array<{ id: string; failed: boolean }> = [];
  for (const block of message.content) {
    if (block.type === 'tool_result')
      answers.push({ id: block.tool_use_id, failed: !!block.is_error });
  }
  // a call answered twice in one message: the kysely path records the first and warns of the rest
  if (new Set(answers.map((a) => a.id)).size !== answers.length) return null;
  return answers;
}

/** The parameters every statement here starts with: session, clock, lease, message id. */
function leadingParameters(checked: CheckedMessage, lease: TurnLeaseWrite | undefined) {
  const { held } = leaseParts(lease);
  return [
    checked.message.session_id,
    nowEpochMicros(),
    held?.id ?? null,
    held ? held.ttlMs * 1000 : null,
    checked.message.id,
  ];
}

/**
 * Appends a tool message and records its answers in one statement, as `appendMessages` does;
 * an unmatched result is a WARN. Resolves to the session's new revision, or null when nothing
 * was written (the kysely path then says why). @throws DuplicateMessageError.
 */
export async function appendToolMessagePostgres(
  db: Kysely<StoreDatabase>,
  write: { checked: CheckedMessage; lease: TurnLeaseWrite | undefined; logger: Logger },
  answers: ReadonlyArray<{ id: string; failed: boolean }>,
): Promise<number | null> {
  const { checked, lease, logger } = write;
  const row = messageRow(checked);
  const parameters = [
    ...leadingParameters(checked, lease),
    row.role,
    row.content_json,
    row.metadata_json,
    row.created_at,
    row.schema_version,
    answers.map((a) => a.id),
    answers.map((a) => (a.failed ? 'failed' : 'succeeded')),
  ];
  let result: { rows: unknown[] };
  try {
    result = await db.executeQuery(CompiledQuery.raw(ANSWER[leaseParts(lease).kind], parameters));
  } catch (error) {
    if (uniqueViolationTable(error) === 'messages') throw new DuplicateMessageError(row.id);
    throw error;
  }
  const [first] = result.rows as Array<{
    revision: number | null;
    added: number;
    answered: string[];
  }>;
  if (!first || first.revision === null || first.added !== 1) return null;
  const answered = new Set(first.answered);
  const { message } = checked;
  for (const { id } of answers) {
    if (answered.has(id)) continue;
    logger.warn(
      {
        event: 'tool_result_unmatched',
        session_id: message.session_id,
        message_id: message.id,
        tool_use_id: id,
      },
      `tool result ${message.id} answers ${id}, which is not an unanswered tool call of session ${message.session_id}`,
    );
  }
  return Number(first.revision);
}

/** Whether {@link updatePlainMessagePostgres} can write `checked`: no tool call rows to touch. */
export function isPlainUpdate(checked: CheckedMessage): boolean {
  const { message } = checked;
  if (message.role === 'tool' || toolCallStatusOf(message) === 'cancelled') return false;
  return message.role !== 'assistant' || !message.content.some((b) => b.type === 'tool_use');
}

/**
 * Replaces a stored message without tool call rows to change, in one statement, as
 * `updateMessage` does. Resolves to the session's new revision and the row's stored position,
 * or null when nothing was written (no such row, another session or role, the lease not the
 * turn's): the kysely path then names the error.
 */
export async function updatePlainMessagePostgres(
  db: Kysely<StoreDatabase>,
  checked: CheckedMessage,
  lease: TurnLeaseWrite | undefined,
): Promise<{ revision: number; createdAt: number } | null> {
  const { message } = checked;
  const parameters = [
    ...leadingParameters(checked, lease),
    message.role,
    checked.contentJson,
    checked.metadataJson,
    message.schema_version,
  ];
  const result = await db.executeQuery(
    CompiledQuery.raw(UPDATE[leaseParts(lease).kind], parameters),
  );
  const [first] = result.rows as Array<{ revision: number | null; created_at: number | null }>;
  if (!first || first.revision === null || first.created_at === null) return null;
  return { revision: Number(first.revision), createdAt: Number(first.created_at) };
}
