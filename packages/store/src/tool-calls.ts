import {
  type AppendMessageOptions,
  CorruptRowError,
  type Logger,
  type Message,
  nowEpochMicros,
  type ToolCallRecord,
  ToolIdConflictError,
  ToolIdMap,
} from '@yourtool/core';
import type { Kysely } from 'kysely';
import { checkKey, textColumnProblem } from './checks.js';
import { reportCorrupt, requireSessions, type StoreContext } from './context.js';
import type { StoreDatabase, ToolCallsTable } from './database.js';
import { DuplicateToolCallError, InvalidStoreInputError } from './errors.js';
import {
  type CheckedMessage,
  chunks,
  ROWS_PER_STATEMENT,
  uniqueViolationTable,
} from './message-input.js';
import { selectProviderIdsPostgres } from './postgres-reads.js';
import { rowToToolCall } from './rows.js';
import { selectProviderIds } from './sqlite-direct-reads.js';
import { toolCallStatusOf } from './tool-call-status.js';

// The tool call operations of SqlSessionStore (reads), and the rows message writes keep in
// `tool_calls`: one per tool use, answered by the tool message naming it.

/** A session's tool calls in creation order, `pending` ones only with `pendingOnly`. */
async function sessionToolCalls(
  ctx: StoreContext,
  sessionId: string,
  pendingOnly: boolean,
): Promise<ToolCallRecord[]> {
  checkKey(sessionId, 'sessionId');
  await requireSessions(ctx.db, [sessionId]);
  const rows = await ctx.db
    .selectFrom('tool_calls')
    .selectAll()
    .where('session_id', '=', sessionId)
    .$if(pendingOnly, (q) => q.where('status', '=', 'pending'))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const out: ToolCallRecord[] = [];
  for (const row of rows) {
    try {
      out.push(rowToToolCall(row));
    } catch (error) {
      if (!(error instanceof CorruptRowError)) throw error;
      reportCorrupt(ctx.logger, error);
    }
  }
  return out;
}

export function listToolCalls(ctx: StoreContext, sessionId: string): Promise<ToolCallRecord[]> {
  return sessionToolCalls(ctx, sessionId, false);
}

export function findUnansweredToolCalls(
  ctx: StoreContext,
  sessionId: string,
): Promise<ToolCallRecord[]> {
  return sessionToolCalls(ctx, sessionId, true);
}

export async function countFailedToolCalls(ctx: StoreContext, sessionId: string): Promise<number> {
  checkKey(sessionId, 'sessionId');
  await requireSessions(ctx.db, [sessionId]);
  const row = await ctx.db
    .selectFrom('tool_calls')
    .select((eb) => eb.fn.countAll<number>().as('failed'))
    .where('session_id', '=', sessionId)
    .where('status', '=', 'failed')
    .executeTakeFirst();
  return Number(row?.failed ?? 0);
}

/** The rows of {@link loadToolIdMap} through kysely. @throws SessionNotFoundError. */
async function providerIdRows(ctx: StoreContext, sessionId: string) {
  await requireSessions(ctx.db, [sessionId]);
  return ctx.db
    .selectFrom('tool_calls')
    .select(['id', 'provider', 'provider_id'])
    .where('session_id', '=', sessionId)
    .where('provider_id', 'is not', null)
    .where('provider', 'is not', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function loadToolIdMap(ctx: StoreContext, sessionId: string): Promise<ToolIdMap> {
  checkKey(sessionId, 'sessionId');
  const rows = ctx.direct
    ? await ctx.direct.read((sqlite) => selectProviderIds(sqlite, sessionId))
    : ctx.postgresAppend
      ? await selectProviderIdsPostgres(ctx.db, sessionId)
      : await providerIdRows(ctx, sessionId);
  const map = new ToolIdMap();
  for (const row of rows) {
    try {
      map.set({
        canonical_id: row.id,
        provider: row.provider ?? '',
        provider_id: row.provider_id ?? '',
      });
    } catch (error) {
      if (!(error instanceof ToolIdConflictError)) throw error;
      ctx.logger.warn(
        { event: 'tool_id_conflict', session_id: sessionId, tool_use_id: row.id },
        error.message,
      );
    }
  }
  return map;
}

// ------------------------------------------------------------------------ written with messages

/** The `tool_calls` rows of an assistant message's tool uses (none for other roles). */
export function toolCallRows(
  checked: CheckedMessage,
  options: AppendMessageOptions,
): ToolCallsTable[] {
  const { message } = checked;
  if (message.role !== 'assistant') return [];
  const provider = message.metadata.provider ?? null;
  const status = toolCallStatusOf(message);
  const rows: ToolCallsTable[] = [];
  for (const block of message.content) {
    if (block.type !== 'tool_use') continue;
    const providerId =
      provider !== null ? (options.toolIdMap?.getProviderId(provider, block.id) ?? null) : null;
    const problem = providerId === null ? undefined : textColumnProblem(providerId);
    if (problem !== undefined) {
      throw new InvalidStoreInputError(`message ${message.id}`, [
        { path: `toolIdMap (provider id of ${block.id})`, message: problem },
      ]);
    }
    rows.push({
      id: block.id,
      session_id: message.session_id,
      message_id: message.id,
      result_message_id: null,
      name: block.name,
      status,
      provider_id: providerId,
      provider,
      created_at: checked.createdAt,
      completed_at: status === 'cancelled' ? nowEpochMicros() : null,
    });
  }
  return rows;
}

/** Inserts tool call rows. @throws DuplicateToolCallError when an id is already stored. */
export async function insertToolCalls(
  trx: Kysely<StoreDatabase>,
  rows: ToolCallsTable[],
): Promise<void> {
  if (rows.length === 0) return;
  const ids = new Map<string, string>();
  for (const row of rows) {
    if (ids.has(row.id)) throw new DuplicateToolCallError(row.id, row.message_id);
    ids.set(row.id, row.message_id);
  }
  // After the message rows: a taken id fails the transaction, which rolls them back too.
  for (const batch of chunks([...ids.keys()], 1000)) {
    const taken = await trx
      .selectFrom('tool_calls')
      .select('id')
      .where('id', 'in', batch)
      .executeTakeFirst();
    if (taken) throw new DuplicateToolCallError(taken.id, ids.get(taken.id) ?? '');
  }
  for (const batch of chunks(rows, ROWS_PER_STATEMENT)) {
    try {
      await trx.insertInto('tool_calls').values(batch).execute();
    } catch (error) {
      if (uniqueViolationTable(error) === 'tool_calls') {
        throw new DuplicateToolCallError(batch[0]?.id ?? '', batch[0]?.message_id ?? '');
      }
      throw error;
    }
  }
}

/** A tool message answers the calls its tool results name; an unmatched result is a WARN. */
export async function recordAnswers(
  trx: Kysely<StoreDatabase>,
  checked: CheckedMessage,
  logger: Logger,
): Promise<void> {
  const { message } = checked;
  if (message.role !== 'tool') return;
  for (const block of message.content) {
    if (block.type !== 'tool_result') continue;
    const result = await trx
      .updateTable('tool_calls')
      .set({
        result_message_id: message.id,
        status: block.is_error ? 'failed' : 'succeeded',
        completed_at: checked.createdAt,
      })
      .where('id', '=', block.tool_use_id)
      .where('session_id', '=', message.session_id)
      .where('result_message_id', 'is', null)
      .execute();
    if (Number(result[0]?.numUpdatedRows ?? 0) === 0) {
      logger.warn(
        {
          event: 'tool_result_unmatched',
          session_id: message.session_id,
          message_id: message.id,
          tool_use_id: block.tool_use_id,
        },
        `tool result ${message.id} answers ${block.tool_use_id}, which is not an unanswered tool call of session ${message.session_id}`,
      );
    }
  }
}
