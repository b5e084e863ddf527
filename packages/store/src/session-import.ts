import {
  type CreateSessionInput,
  CURRENT_SCHEMA_VERSION,
  type Message,
  type SessionRecord,
  timestampToEpochMicros,
} from '@yourtool/core';
import type { Kysely } from 'kysely';
import { checkTextColumn } from './checks.js';
import type { SessionsTable, StoreDatabase, ToolCallsTable } from './database.js';
import {
  DuplicateMessageError,
  DuplicateSessionError,
  DuplicateToolCallError,
  InvalidStoreInputError,
  type StoreInputIssue,
} from './errors.js';
import {
  type CheckedMessage,
  checkJsonObject,
  checkMessage,
  checkModel,
  chunks,
  isPlainObject,
  KEYS_PER_QUERY,
  messageRow,
  ROWS_PER_STATEMENT,
  uniqueViolationTable,
} from './message-input.js';
import { rowToSession } from './rows.js';
import { checkOwner, type OwnerColumns } from './session-owner.js';
import type { SessionExport } from './transfer.js';

// A session export going into the store: every field checked before anything is written, then
// every row written as exported (ids, times, tool call states) in one transaction.

const TOOL_CALL_STATUSES: readonly string[] = ['pending', 'succeeded', 'failed', 'cancelled'];

/** A session import, checked and turned into rows, ready to write. */
export interface CheckedImport {
  // the owner columns (decision 0182) travel in the session record, set only when exported
  session: Omit<
    SessionsTable,
    'revision' | 'turn_lease_id' | 'turn_lease_expires_at' | 'user_id' | 'tenant_id' | 'tags_json'
  > &
    OwnerColumns & {
      revision: number;
    };
  messages: CheckedMessage[];
  toolCalls: ToolCallsTable[];
}

function micros(value: unknown, path: string, issues: StoreInputIssue[]): number {
  if (typeof value !== 'string') {
    issues.push({ path, message: 'must be an ISO-8601 timestamp' });
    return 0;
  }
  try {
    return timestampToEpochMicros(value);
  } catch (error) {
    issues.push({ path, message: (error as Error).message });
    return 0;
  }
}

function requiredText(value: unknown, path: string, issues: StoreInputIssue[]): string {
  if (typeof value !== 'string' || value === '') {
    issues.push({ path, message: 'must be a non-empty string' });
    return '';
  }
  checkTextColumn(value, path, issues);
  return value;
}

function optionalText(value: unknown, path: string, issues: StoreInputIssue[]): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') {
    issues.push({ path, message: 'must be a string or null' });
    return null;
  }
  checkTextColumn(value, path, issues);
  return value;
}

function checkSessionRow(input: unknown, issues: StoreInputIssue[]): CheckedImport['session'] {
  const session = isPlainObject(input) ? input : {};
  if (!isPlainObject(input)) issues.push({ path: 'session', message: 'must be an object' });
  const version = session.schema_version;
  if (
    typeof version !== 'number' ||
    !Number.isSafeInteger(version) ||
    version < 1 ||
    version > CURRENT_SCHEMA_VERSION
  ) {
    issues.push({
      path: 'session.schema_version',
      message: `must be an integer from 1 to ${CURRENT_SCHEMA_VERSION}`,
    });
  }
  const ownerIssues: StoreInputIssue[] = [];
  const owner = checkOwner(session as unknown as CreateSessionInput, ownerIssues);
  for (const issue of ownerIssues) issues.push({ ...issue, path: `session.${issue.path}` });
  const activeModel = checkModel(session.active_model, 'session.active_model', issues);
  checkTextColumn(activeModel, 'session.active_model', issues);
  return {
    id: requiredText(session.id, 'session.id', issues),
    workspace_path: requiredText(session.workspace_path, 'session.workspace_path', issues),
    active_model: activeModel ?? null,
    routing_policy_json:
      checkJsonObject(session.routing_policy, 'session.routing_policy', issues, 'session') ?? null,
    schema_version: typeof version === 'number' ? version : CURRENT_SCHEMA_VERSION,
    created_at: micros(session.created_at, 'session.created_at', issues),
    updated_at: micros(session.updated_at, 'session.updated_at', issues),
    // the import is one write to the session's messages
    revision: 1,
    ...owner,
  };
}

/** What a tool call of an import is checked against, and where its problems go. */
interface ToolCallCheck {
  sessionId: string;
  messages: ReadonlyMap<string, Message>;
  issues: StoreInputIssue[];
}

function checkToolCallRow(
  input: unknown,
  path: string,
  { sessionId, messages, issues }: ToolCallCheck,
): ToolCallsTable {
  const call = isPlainObject(input) ? input : {};
  if (!isPlainObject(input)) issues.push({ path, message: 'must be an object' });
  const row: ToolCallsTable = {
    id: requiredText(call.id, `${path}.id`, issues),
    session_id: requiredText(call.session_id, `${path}.session_id`, issues),
    message_id: requiredText(call.message_id, `${path}.message_id`, issues),
    result_message_id: optionalText(call.result_message_id, `${path}.result_message_id`, issues),
    name: requiredText(call.name, `${path}.name`, issues),
    status: typeof call.status === 'string' ? call.status : '',
    provider_id: optionalText(call.provider_id, `${path}.provider_id`, issues),
    provider: optionalText(call.provider, `${path}.provider`, issues),
    created_at: micros(call.created_at, `${path}.created_at`, issues),
    completed_at:
      call.completed_at === null || call.completed_at === undefined
        ? null
        : micros(call.completed_at, `${path}.completed_at`, issues),
  };
  if (!TOOL_CALL_STATUSES.includes(row.status)) {
    issues.push({
      path: `${path}.status`,
      message: `must be one of ${TOOL_CALL_STATUSES.join(', ')}`,
    });
  }
  if (row.session_id !== sessionId) {
    issues.push({ path: `${path}.session_id`, message: `must be the session's id "${sessionId}"` });
  }
  const owner = messages.get(row.message_id);
  const block = owner?.content.find((b) => b.type === 'tool_use' && b.id === row.id);
  if (owner?.role !== 'assistant' || block?.type !== 'tool_use') {
    issues.push({
      path: `${path}.message_id`,
      message: `must name an assistant message of the import holding tool use "${row.id}"`,
    });
  } else if (block.name !== row.name) {
    issues.push({ path: `${path}.name`, message: `is "${block.name}" in message ${owner.id}` });
  }
  const answer = row.result_message_id === null ? null : messages.get(row.result_message_id);
  if (row.result_message_id !== null && answer?.role !== 'tool') {
    issues.push({
      path: `${path}.result_message_id`,
      message: 'must name a tool message of the import, or be null',
    });
  }
  return row;
}

/**
 * Checks a session export before anything is written: the session's fields, every message as
 * `appendMessage` checks it (schemas, text columns, depth, and the invariants of a complete
 * message), and every tool call against the messages (its assistant message holds the tool
 * use; its answer is a tool message of the import). Every tool use has its tool call.
 * @throws InvalidStoreInputError listing every problem of the session and its tool calls (a
 * refused message throws its own error); DuplicateMessageError, DuplicateToolCallError for an id
 * given twice.
 */
export function checkSessionImport(data: SessionExport): CheckedImport {
  const issues: StoreInputIssue[] = [];
  const input: Record<string, unknown> = isPlainObject(data) ? data : {};
  const session = checkSessionRow(input.session, issues);
  const subject = `session import ${session.id || '(no id)'}`;
  if (!Array.isArray(input.messages) || !Array.isArray(input.tool_calls)) {
    issues.push({ path: '$', message: 'messages and tool_calls must be arrays' });
    throw new InvalidStoreInputError(subject, issues);
  }
  const messages = (input.messages as Message[]).map(checkMessage);
  const byId = new Map<string, Message>();
  messages.forEach(({ message }, i) => {
    if (byId.has(message.id)) throw new DuplicateMessageError(message.id);
    byId.set(message.id, message);
    if (message.session_id !== session.id) {
      issues.push({ path: `messages[${i}].session_id`, message: "must be the session's id" });
    }
  });
  const toolCalls = (input.tool_calls as unknown[]).map((call, i) =>
    checkToolCallRow(call, `tool_calls[${i}]`, { sessionId: session.id, messages: byId, issues }),
  );
  const callIds = new Set<string>();
  for (const call of toolCalls) {
    if (callIds.has(call.id)) throw new DuplicateToolCallError(call.id, call.message_id);
    callIds.add(call.id);
  }
  for (const { message } of messages) {
    if (message.role !== 'assistant') continue;
    for (const block of message.content) {
      if (block.type === 'tool_use' && !callIds.has(block.id)) {
        issues.push({
          path: `messages (${message.id})`,
          message: `tool use "${block.id}" has no entry in tool_calls`,
        });
      }
    }
  }
  if (issues.length > 0) throw new InvalidStoreInputError(subject, issues);
  return { session, messages, toolCalls };
}

/** Fails when any of `ids` is a key of `table` already. */
async function firstTaken(
  trx: Kysely<StoreDatabase>,
  table: 'messages' | 'tool_calls',
  ids: readonly string[],
): Promise<string | undefined> {
  for (const batch of chunks(ids, KEYS_PER_QUERY)) {
    const taken = await trx
      .selectFrom(table)
      .select('id')
      .where('id', 'in', batch)
      .executeTakeFirst();
    if (taken) return taken.id;
  }
  return undefined;
}

/**
 * Writes a checked import inside the caller's transaction: the session row (times as
 * exported), the message rows, and the tool call rows exactly as exported (status, provider
 * ids, answers, times).
 * @throws DuplicateSessionError, DuplicateMessageError, DuplicateToolCallError when an id is
 * taken; the transaction then writes nothing.
 */
export async function writeSessionImport(
  trx: Kysely<StoreDatabase>,
  checked: CheckedImport,
): Promise<void> {
  const { session, messages, toolCalls } = checked;
  const existing = await trx
    .selectFrom('sessions')
    .select('id')
    .where('id', '=', session.id)
    .executeTakeFirst();
  if (existing) throw new DuplicateSessionError(session.id);
  const takenMessage = await firstTaken(
    trx,
    'messages',
    messages.map((m) => m.message.id),
  );
  if (takenMessage !== undefined) throw new DuplicateMessageError(takenMessage);
  const takenCall = await firstTaken(
    trx,
    'tool_calls',
    toolCalls.map((c) => c.id),
  );
  if (takenCall !== undefined) {
    const call = toolCalls.find((c) => c.id === takenCall);
    throw new DuplicateToolCallError(takenCall, call?.message_id ?? '');
  }
  try {
    await trx.insertInto('sessions').values(session).execute();
    for (const batch of chunks(messages, ROWS_PER_STATEMENT)) {
      await trx.insertInto('messages').values(batch.map(messageRow)).execute();
    }
    for (const batch of chunks(toolCalls, ROWS_PER_STATEMENT)) {
      await trx.insertInto('tool_calls').values(batch).execute();
    }
  } catch (error) {
    // another writer took an id between the checks and the insert
    const table = uniqueViolationTable(error);
    if (table === 'sessions') throw new DuplicateSessionError(session.id);
    if (table === 'messages') throw new DuplicateMessageError(messages[0]?.message.id ?? '');
    if (table === 'tool_calls') {
      throw new DuplicateToolCallError(toolCalls[0]?.id ?? '', toolCalls[0]?.message_id ?? '');
    }
    throw error;
  }
}

/** The stored session an import created, as `getSession` reads it. */
export function importedSession(checked: CheckedImport): SessionRecord {
  return rowToSession(checked.session);
}
