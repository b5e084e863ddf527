import {
  CorruptRowError,
  type LoadedMessages,
  type Logger,
  type Message,
  type MessagePage,
} from '@yourtool/core';
import { checkKey } from './checks.js';
import { checkLimit, reportCorrupt, requireSessions, type StoreContext } from './context.js';
import { decodeCursor, encodeCursor, type Position } from './cursor.js';
import type { MessagesTable } from './database.js';
import { selectSessionMessagesPostgres } from './postgres-reads.js';
import { rowToMessage } from './rows.js';
import { selectSessionMessages } from './sqlite-direct-reads.js';

// The message reads of SqlSessionStore. Every row goes through core's tolerant `parseMessage`;
// an unreadable one is reported (a WARN and a CorruptRowError) while the rest loads.

/** Options of {@link SqlSessionStore.iterateMessages}. */
export interface IterateMessagesOptions {
  sessionId?: string;
  role?: Message['role'];
  /** Rows read per query (default 500). */
  batchSize?: number;
  signal?: AbortSignal;
  onError?: (error: CorruptRowError) => void;
}

/** Options of {@link SqlSessionStore.pageMessages}. */
interface PageMessagesOptions {
  after?: string | null;
  limit: number;
}

/** Which messages a scan reads. */
interface MessageFilter {
  sessionId?: string | undefined;
  role?: Message['role'] | undefined;
}

const MAX_PAGE = 10_000;
const DEFAULT_BATCH = 500;

export async function getMessage(ctx: StoreContext, id: string): Promise<Message | null> {
  checkKey(id, 'id');
  const row = await ctx.db
    .selectFrom('messages')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? rowToMessage(row, ctx.logger) : null;
}

export async function loadMessages(ctx: StoreContext, sessionId: string): Promise<LoadedMessages> {
  checkKey(sessionId, 'sessionId');
  if (ctx.direct) {
    // a session's first turn reads its history: prepared statements, one synchronous section
    const rows = await ctx.direct.read((sqlite) => selectSessionMessages(sqlite, sessionId));
    return readRows(rows, ctx.logger);
  }
  if (ctx.postgresAppend) {
    // PostgreSQL without plugins: one round trip, the session's check joined in
    return readRows(await selectSessionMessagesPostgres(ctx.db, sessionId), ctx.logger);
  }
  await requireSessions(ctx.db, [sessionId]);
  const rows = await ctx.db
    .selectFrom('messages')
    .selectAll()
    .where('session_id', '=', sessionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return readRows(rows, ctx.logger);
}

export async function pageMessages(
  ctx: StoreContext,
  sessionId: string,
  options: PageMessagesOptions,
): Promise<MessagePage> {
  checkKey(sessionId, 'sessionId');
  const limit = checkLimit(options.limit, 100, MAX_PAGE, 'limit');
  const after = options.after ? decodeCursor(options.after) : undefined;
  await requireSessions(ctx.db, [sessionId]);
  const rows = await messagesAfter(ctx, { sessionId }, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    ...readRows(page, ctx.logger),
    next_cursor:
      rows.length > limit && last
        ? encodeCursor({ at: Number(last.created_at), id: last.id })
        : null,
  };
}

/**
 * Every message matching `options`, in order, read in batches; each batch's query runs
 * through `query` (the store's guard). Unreadable rows are skipped and passed to `onError`.
 */
export async function* iterateMessages(
  ctx: StoreContext,
  options: IterateMessagesOptions,
  query: (read: () => Promise<MessagesTable[]>) => Promise<MessagesTable[]>,
): AsyncGenerator<Message> {
  const batch = checkLimit(options.batchSize, DEFAULT_BATCH, MAX_PAGE, 'batchSize');
  if (options.sessionId !== undefined) checkKey(options.sessionId, 'sessionId');
  let after: Position | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    const at = after;
    const rows = await query(() => messagesAfter(ctx, options, at, batch));
    for (const row of rows) {
      options.signal?.throwIfAborted();
      try {
        yield rowToMessage(row, ctx.logger);
      } catch (error) {
        if (!(error instanceof CorruptRowError)) throw error;
        reportCorrupt(ctx.logger, error);
        options.onError?.(error);
      }
    }
    const last = rows.at(-1);
    if (rows.length < batch || !last) return;
    after = { at: Number(last.created_at), id: last.id };
  }
}

/** Up to `limit` rows matching `filter` after `after`, in load order. */
function messagesAfter(
  ctx: StoreContext,
  filter: MessageFilter,
  after: Position | undefined,
  limit: number,
): Promise<MessagesTable[]> {
  return ctx.db
    .selectFrom('messages')
    .selectAll()
    .$if(filter.sessionId !== undefined, (q) => q.where('session_id', '=', filter.sessionId ?? ''))
    .$if(filter.role !== undefined, (q) => q.where('role', '=', filter.role ?? ''))
    .$if(after !== undefined, (q) =>
      q.where((eb) =>
        eb.or([
          eb('created_at', '>', after?.at ?? 0),
          eb.and([eb('created_at', '=', after?.at ?? 0), eb('id', '>', after?.id ?? '')]),
        ]),
      ),
    )
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Reads rows into messages, reporting and collecting the unreadable ones. */
function readRows(rows: readonly MessagesTable[], logger: Logger): LoadedMessages {
  const loaded: LoadedMessages = { messages: [], errors: [] };
  for (const row of rows) {
    try {
      loaded.messages.push(rowToMessage(row, logger));
    } catch (error) {
      if (!(error instanceof CorruptRowError)) throw error;
      reportCorrupt(logger, error);
      loaded.errors.push(error);
    }
  }
  return loaded;
}
