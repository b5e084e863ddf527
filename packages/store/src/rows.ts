import {
  CorruptRowError,
  epochMicrosToTimestamp,
  type Logger,
  type Message,
  MessageParseError,
  parseMessage,
  type SessionRecord,
  type ToolCallRecord,
  type ToolCallStatus,
  type TurnLeaseState,
} from '@yourtool/core';
import type { MessagesTable, SessionsTable, ToolCallsTable } from './database.js';

function parseJsonColumn(
  table: CorruptRowError['table'],
  rowId: string,
  column: string,
  text: string | null,
): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new CorruptRowError(
      table,
      rowId,
      `${column} is not valid JSON (${(cause as Error).message})`,
      { cause },
    );
  }
}

function timestamp(table: CorruptRowError['table'], rowId: string, column: string, micros: number) {
  try {
    return epochMicrosToTimestamp(micros);
  } catch (cause) {
    throw new CorruptRowError(table, rowId, `${column} is not a microsecond time (${micros})`, {
      cause,
    });
  }
}

/**
 * Reads a message row through core's tolerant `parseMessage` (unknown block types skipped,
 * unknown metadata preserved, each with a WARN on `logger`). The row itself is never changed.
 *
 * @throws CorruptRowError naming the row when a JSON column is unreadable or the message
 * fails the schemas.
 */
export function rowToMessage(row: MessagesTable, logger: Logger): Message {
  const candidate = {
    id: row.id,
    session_id: row.session_id,
    role: row.role,
    content: parseJsonColumn('messages', row.id, 'content_json', row.content_json),
    metadata: parseJsonColumn('messages', row.id, 'metadata_json', row.metadata_json),
    created_at: timestamp('messages', row.id, 'created_at', Number(row.created_at)),
    schema_version: Number(row.schema_version),
  };
  try {
    return parseMessage(candidate, { logger, reuse: true });
  } catch (error) {
    if (error instanceof MessageParseError) {
      const detail = error.issues.map((i) => `${i.path}: ${i.message}`).join('; ');
      throw new CorruptRowError('messages', row.id, detail, { cause: error });
    }
    throw error;
  }
}

/** A `sessions` row as a driver reads it. */
export type SessionRowInput = Omit<
  SessionsTable,
  'revision' | 'turn_lease_id' | 'turn_lease_expires_at' | 'user_id' | 'tenant_id' | 'tags_json'
> & {
  user_id?: string | null;
  tenant_id?: string | null;
  tags_json?: string | null;
  revision?: number | string | bigint;
  turn_lease_id?: string | null;
  turn_lease_expires_at?: number | string | bigint | null;
};

/**
 * Reads a session row; with `now` (epoch microseconds on the store's clock), its turn lease too
 * (`turn_lease`, decision 0156). @throws CorruptRowError when `routing_policy_json` is unreadable.
 */
export function rowToSession(row: SessionRowInput, now?: number): SessionRecord {
  const policy = parseJsonColumn(
    'sessions',
    row.id,
    'routing_policy_json',
    row.routing_policy_json,
  );
  if (policy !== null && (typeof policy !== 'object' || Array.isArray(policy))) {
    throw new CorruptRowError('sessions', row.id, 'routing_policy_json is not a JSON object');
  }
  return {
    id: row.id,
    workspace_path: row.workspace_path,
    active_model: row.active_model,
    routing_policy: policy as Record<string, unknown> | null,
    schema_version: Number(row.schema_version),
    created_at: timestamp('sessions', row.id, 'created_at', Number(row.created_at)),
    updated_at: timestamp('sessions', row.id, 'updated_at', Number(row.updated_at)),
    revision: Number(row.revision ?? 0),
    ...(now === undefined || !row.turn_lease_id ? {} : { turn_lease: leaseOf(row, now) }),
    ...ownerOf(row),
  };
}

/** The session's user, tenant and tags (decision 0182), only those set. */
function ownerOf(row: SessionRowInput): Pick<SessionRecord, 'user' | 'tenant' | 'tags'> {
  const owner: Pick<SessionRecord, 'user' | 'tenant' | 'tags'> = {};
  if (row.user_id) owner.user = row.user_id;
  if (row.tenant_id) owner.tenant = row.tenant_id;
  if (row.tags_json) {
    const tags = parseJsonColumn('sessions', row.id, 'tags_json', row.tags_json);
    if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string')) {
      throw new CorruptRowError('sessions', row.id, 'tags_json is not a JSON array of strings');
    }
    owner.tags = tags;
  }
  return owner;
}

/** The lease a session row holds, as seen at `now`. */
function leaseOf(row: SessionRowInput, now: number): TurnLeaseState {
  const until = Number(row.turn_lease_expires_at ?? 0);
  return { id: row.turn_lease_id as string, expires_in_ms: (until - now) / 1000 };
}

const TOOL_CALL_STATUSES: readonly string[] = ['pending', 'succeeded', 'failed', 'cancelled'];

/** Reads a tool call row. @throws CorruptRowError on an unknown status. */
export function rowToToolCall(row: ToolCallsTable): ToolCallRecord {
  if (!TOOL_CALL_STATUSES.includes(row.status)) {
    throw new CorruptRowError('tool_calls', row.id, `unknown status "${row.status}"`);
  }
  return {
    id: row.id,
    session_id: row.session_id,
    message_id: row.message_id,
    result_message_id: row.result_message_id,
    name: row.name,
    status: row.status as ToolCallStatus,
    provider_id: row.provider_id,
    provider: row.provider,
    created_at: timestamp('tool_calls', row.id, 'created_at', Number(row.created_at)),
    completed_at:
      row.completed_at === null
        ? null
        : timestamp('tool_calls', row.id, 'completed_at', Number(row.completed_at)),
  };
}
