import {
  type AppendMessageOptions,
  CorruptRowError,
  epochMicrosToTimestamp,
  issuesFromZod,
  type Message,
  nowEpochMicros,
  type TurnLeaseWrite,
  type Usage,
  UsageSchema,
  validateMessage,
} from '@yourtool/core';
import type { Kysely } from 'kysely';
import { checkKey, toJsonText } from './checks.js';
import { type StoreContext, touchSessions } from './context.js';
import type { MessagesTable, StoreDatabase } from './database.js';
import {
  DuplicateMessageError,
  InvalidMessageError,
  InvalidStoreInputError,
  MessageNotFoundError,
  type StoreInputIssue,
} from './errors.js';
import { fastAppend, fastUpdate } from './fast-writes.js';
import { checkLeaseWrite, touchWithLease } from './lease.js';
import {
  type CheckedMessage,
  checkMessage,
  chunks,
  isPlainObject,
  messageRow,
  ROWS_PER_STATEMENT,
  storedMessage,
  uniqueViolationTable,
} from './message-input.js';
import { toolCallStatusOf } from './tool-call-status.js';
import { insertToolCalls, recordAnswers, toolCallRows } from './tool-calls.js';

// The message writes of SqlSessionStore: append (one or many), update, reprice. Each is one
// transaction that keeps the message rows, their tool calls and their sessions consistent.

/** Appends one message; resolves to it as stored, sealed. */
export async function appendMessage(
  ctx: StoreContext,
  message: Message,
  options: AppendMessageOptions,
): Promise<Message> {
  const [checked] = await appendMessages(ctx, [message], options);
  return storedMessage(checked as CheckedMessage);
}

/**
 * Checks and writes `messages` in one transaction; resolves to what was checked. When they all
 * belong to one session, `options.onRevision` hears the revision the write left it at, once
 * committed.
 */
export async function appendMessages(
  ctx: StoreContext,
  messages: readonly Message[],
  options: AppendMessageOptions,
): Promise<CheckedMessage[]> {
  if (messages.length === 0) return [];
  const checked = messages.map(checkMessage);
  const seen = new Set<string>();
  for (const { message } of checked) {
    if (seen.has(message.id)) throw new DuplicateMessageError(message.id);
    seen.add(message.id);
  }
  const toolCalls = checked.flatMap((c) => toolCallRows(c, options));
  const sessionIds = [...new Set(checked.map((c) => c.message.session_id))];
  const lease = leaseOf(options, sessionIds);
  const [only] = checked;
  if (only && checked.length === 1) {
    // a turn's message: SQLite's prepared statements or PostgreSQL's one statement, when it can
    const revision = await fastAppend(ctx, only, options, lease);
    if (revision !== null) {
      reportRevision(options, sessionIds, new Map([[only.message.session_id, revision]]));
      return checked;
    }
  }
  const revisions = await ctx.write(async (trx) => {
    // Bumping updated_at first also proves the sessions exist (and applies the turn lease):
    // one statement, not two.
    const only = sessionIds[0] as string;
    const touched = lease
      ? new Map([[only, await touchWithLease(trx, ctx.dialect, only, lease)]])
      : await touchSessions(trx, sessionIds, true);
    await insertMessages(trx, [...seen], checked);
    await insertToolCalls(trx, toolCalls);
    for (const c of checked) await recordAnswers(trx, c, ctx.logger);
    return touched;
  });
  reportRevision(options, sessionIds, revisions);
  return checked;
}

/**
 * The lease a write takes, holds or releases, checked; undefined without one.
 * @throws InvalidStoreInputError for a malformed lease, or a lease on a batch of several sessions.
 */
function leaseOf(
  options: AppendMessageOptions,
  sessionIds: readonly string[],
): TurnLeaseWrite | undefined {
  const lease = checkLeaseWrite(options.lease);
  if (lease && sessionIds.length !== 1) {
    throw new InvalidStoreInputError('turn lease', [
      { path: 'lease', message: 'a lease goes with writes to one session' },
    ]);
  }
  return lease;
}

/** Tells `options.onRevision` the revision a committed write left its one session at. */
function reportRevision(
  options: AppendMessageOptions,
  sessionIds: readonly string[],
  revisions: ReadonlyMap<string, number>,
): void {
  const [only] = sessionIds;
  const revision = only === undefined ? undefined : revisions.get(only);
  if (options.onRevision && sessionIds.length === 1 && revision !== undefined) {
    options.onRevision(revision);
  }
}

/** Inserts the message rows. @throws DuplicateMessageError when an id is already stored. */
async function insertMessages(
  trx: Kysely<StoreDatabase>,
  ids: readonly string[],
  checked: readonly CheckedMessage[],
): Promise<void> {
  // One row: the insert's unique violation names it (below), so no look-up first. A batch
  // looks its ids up first, to name the one already stored.
  for (const batch of ids.length > 1 ? chunks(ids, 1000) : []) {
    const taken = await trx
      .selectFrom('messages')
      .select('id')
      .where('id', 'in', batch)
      .executeTakeFirst();
    if (taken) throw new DuplicateMessageError(taken.id);
  }
  for (const batch of chunks(checked, ROWS_PER_STATEMENT)) {
    try {
      await trx.insertInto('messages').values(batch.map(messageRow)).execute();
    } catch (error) {
      if (uniqueViolationTable(error) === 'messages') {
        throw new DuplicateMessageError(batch[0]?.message.id ?? '');
      }
      throw error;
    }
  }
}

export async function updateMessage(
  ctx: StoreContext,
  message: Message,
  options: AppendMessageOptions,
): Promise<Message> {
  const checked = checkMessage(message);
  const next = checked.message;
  const lease = leaseOf(options, [next.session_id]);
  // SQLite's prepared statements or PostgreSQL's one statement, when it can
  const direct = await fastUpdate(ctx, checked, options, lease);
  if (direct) {
    if (direct.revision !== undefined) {
      reportRevision(options, [next.session_id], new Map([[next.session_id, direct.revision]]));
    }
    return storedMessage(checked, direct.createdAt);
  }
  const written = await ctx.write(async (trx) => {
    // the turn lease first (PostgreSQL locks the session row before the message rows, as an
    // append does); the touch then comes with it
    const leased = lease
      ? await touchWithLease(trx, ctx.dialect, next.session_id, lease)
      : undefined;
    const stored = await trx
      .selectFrom('messages')
      .select(['id', 'session_id', 'role', 'created_at'])
      .where('id', '=', next.id)
      .executeTakeFirst();
    if (!stored) throw new MessageNotFoundError(next.id);
    const issues: StoreInputIssue[] = [];
    if (stored.session_id !== next.session_id) {
      issues.push({ path: 'session_id', message: `is "${stored.session_id}" in the store` });
    }
    if (stored.role !== next.role) {
      issues.push({ path: 'role', message: `is "${stored.role}" in the store` });
    }
    if (issues.length > 0) throw new InvalidStoreInputError(`update of message ${next.id}`, issues);
    await trx
      .updateTable('messages')
      .set({
        content_json: checked.contentJson,
        metadata_json: checked.metadataJson,
        schema_version: next.schema_version,
      })
      .where('id', '=', next.id)
      .execute();
    const placed = { ...checked, createdAt: Number(stored.created_at) };
    await updateToolCalls(trx, placed, options);
    await recordAnswers(trx, placed, ctx.logger);
    const revisions =
      leased === undefined
        ? await touchSessions(trx, [next.session_id])
        : new Map([[next.session_id, leased]]);
    return { createdAt: placed.createdAt, revisions };
  });
  reportRevision(options, [next.session_id], written.revisions);
  return storedMessage(checked, written.createdAt);
}

/**
 * Brings the tool calls of an updated message up to date: rows for its new tool uses, provider
 * ids newly known, and its pending calls `cancelled` when the message now is.
 */
async function updateToolCalls(
  trx: Kysely<StoreDatabase>,
  checked: CheckedMessage,
  options: AppendMessageOptions,
): Promise<void> {
  const id = checked.message.id;
  const existing = await trx
    .selectFrom('tool_calls')
    .select(['id', 'provider_id'])
    .where('message_id', '=', id)
    .execute();
  const known = new Map(existing.map((r) => [r.id, r.provider_id]));
  const rows = toolCallRows(checked, options);
  await insertToolCalls(
    trx,
    rows.filter((r) => !known.has(r.id)),
  );
  for (const r of rows) {
    if (known.has(r.id) && known.get(r.id) === null && r.provider_id !== null) {
      await trx
        .updateTable('tool_calls')
        .set({ provider_id: r.provider_id, provider: r.provider })
        .where('id', '=', r.id)
        .execute();
    }
  }
  if (toolCallStatusOf(checked.message) === 'cancelled') {
    await trx
      .updateTable('tool_calls')
      .set({ status: 'cancelled', completed_at: nowEpochMicros() })
      .where('message_id', '=', id)
      .where('status', '=', 'pending')
      .execute();
  }
}

export async function updateMessageUsage(
  ctx: StoreContext,
  messageId: string,
  usage: Usage,
): Promise<void> {
  checkKey(messageId, 'messageId');
  const parsed = UsageSchema.safeParse(usage);
  if (!parsed.success) {
    throw new InvalidStoreInputError('usage', issuesFromZod(parsed.error, 'usage'));
  }
  await ctx.write(async (trx) => {
    const row = await trx
      .selectFrom('messages')
      .selectAll()
      .where('id', '=', messageId)
      .$if(ctx.dialect === 'postgres', (q) => q.forUpdate())
      .executeTakeFirst();
    if (!row) throw new MessageNotFoundError(messageId);
    const metadata = storedMetadata(row);
    const stored = { ...metadata };
    metadata.usage = parsed.data;
    checkRepricing(row, stored, metadata);
    await trx
      .updateTable('messages')
      .set({ metadata_json: toJsonText(metadata, `message ${messageId}`, 'metadata') })
      .where('id', '=', messageId)
      .execute();
    // a repriced row is a change readers holding the history must see, or it would price the session from its old figure;
    // updated_at stays: repricing does not make a session recent
    await trx
      .updateTable('sessions')
      .set((eb) => ({ revision: eb('revision', '+', 1) }))
      .where('id', '=', row.session_id)
      .execute();
  });
}

/** A row's metadata as an object. @throws CorruptRowError when it is unreadable. */
function storedMetadata(row: MessagesTable): Record<string, unknown> {
  let metadata: unknown;
  try {
    metadata = JSON.parse(row.metadata_json);
  } catch (cause) {
    throw new CorruptRowError('messages', row.id, 'metadata_json is not valid JSON', { cause });
  }
  if (!isPlainObject(metadata)) {
    throw new CorruptRowError('messages', row.id, 'metadata_json is not a JSON object');
  }
  return metadata;
}

/** A violation's identity, to tell the violations a change introduces from older ones. */
function violationKey(violation: { rule: string; path: string }): string {
  return `${violation.rule} ${violation.path}`;
}

/**
 * A repricing of a complete message must not make it break an invariant (a cost without a
 * `pricing_version`). Only the violations the new usage introduces count: a row stored before
 * the store checked invariants (or by another implementation) can still be repriced. See
 * docs/decisions/0060.
 * @throws InvalidMessageError naming the rules the new metadata breaks.
 */
function checkRepricing(
  row: MessagesTable,
  stored: Record<string, unknown>,
  next: Record<string, unknown>,
): void {
  if ((next.status ?? 'complete') !== 'complete') return;
  let content: unknown = [];
  try {
    content = JSON.parse(row.content_json);
  } catch {
    // An unreadable content is a violation before and after alike: it does not count.
  }
  let createdAt: unknown = row.created_at;
  try {
    createdAt = epochMicrosToTimestamp(Number(row.created_at));
  } catch {
    // idem
  }
  const candidate = {
    id: row.id,
    session_id: row.session_id,
    role: row.role,
    content,
    created_at: createdAt,
    schema_version: Number(row.schema_version),
  };
  const before = new Set(
    validateMessage({ ...candidate, metadata: stored }).violations.map(violationKey),
  );
  const introduced = validateMessage({ ...candidate, metadata: next }).violations.filter(
    (v) => !before.has(violationKey(v)),
  );
  if (introduced.length > 0) throw new InvalidMessageError(row.id, introduced);
}
