import type { Generated } from 'kysely';
/**
 * The database shape of canonical-format §10, typed for kysely: one interface per table, so a
 * renamed column is a compile error. Times are integers of microseconds since the Unix epoch
 * (`INTEGER` in SQLite, `BIGINT` in PostgreSQL); JSON columns hold the snake_case JSON of the
 * data contract as text.
 */

/** Table `sessions`. */
export interface SessionsTable {
  id: string;
  workspace_path: string;
  active_model: string | null;
  routing_policy_json: string | null;
  schema_version: number;
  /** Epoch microseconds. */
  created_at: number;
  /** Epoch microseconds; bumped by every write to the session or its messages. */
  updated_at: number;
  /**
   * Raised by one with every write to the session's messages (append, update, usage update):
   * readers that keep the history in memory compare it to know when to read it again.
   */
  revision: Generated<number>;
  /** Who the session belongs to (decision 0182): user id, tenant id, tags as a JSON array. */
  user_id: string | null;
  /** The session's tenant (decision 0182). */
  tenant_id: string | null;
  /** The session's tags as a JSON array of strings (decision 0182). */
  tags_json: string | null;
  /** The turn holding the session's turn lease, or null (docs/decisions/0156). */
  turn_lease_id: Generated<string | null>;
  /** When that lease expires unless renewed: epoch microseconds on the store's clock. */
  turn_lease_expires_at: Generated<number | null>;
}

/** Table `messages`. */
export interface MessagesTable {
  id: string;
  session_id: string;
  role: string;
  /** `Message.content` as JSON. */
  content_json: string;
  /** `Message.metadata` as JSON (unknown fields preserved). */
  metadata_json: string;
  /** `Message.created_at` in epoch microseconds: messages load ordered by it, then by id. */
  created_at: number;
  schema_version: number;
}

/** Table `tool_calls`: one row per tool use block of an assistant message. */
export interface ToolCallsTable {
  /** The canonical tool use id. */
  id: string;
  session_id: string;
  /** The assistant message holding the tool use. */
  message_id: string;
  /** The tool message answering it. */
  result_message_id: string | null;
  name: string;
  /** `pending` | `succeeded` | `failed` | `cancelled`. */
  status: string;
  /** The provider's id for the call, from the session's ToolIdMap. */
  provider_id: string | null;
  provider: string | null;
  /** Epoch microseconds. */
  created_at: number;
  /** Epoch microseconds. */
  completed_at: number | null;
}

/** The whole database, for `Kysely<StoreDatabase>`. */
export interface StoreDatabase {
  sessions: SessionsTable;
  messages: MessagesTable;
  tool_calls: ToolCallsTable;
}

/** The SQL dialects a store runs on. */
export type StoreDialect = 'sqlite' | 'postgres';
