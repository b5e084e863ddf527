import type { ContentBlock } from './schemas/content.js';
import type { Message, MessageMetadata } from './schemas/message.js';
import { RoutingDecisionRecordSchema } from './schemas/routing.js';

/**
 * A quick check of a message read from JSON, for `parseMessage` (decision 0104): it accepts a
 * message only when every part passes a test at least as strict as the schema's and the schema
 * would change nothing (no default to fill, no number to turn into a decimal string, no unknown
 * block field to strip), and returns it then, sharing the objects given. Anything else gives
 * null and the zod schema decides, with its error paths. Its tests hold it to the schema: what
 * it accepts, zod accepts and returns equal.
 */

const ROLES = new Set(['user', 'assistant', 'system', 'tool']);
const STATUSES = new Set(['complete', 'partial', 'cancelled', 'error']);
const IMAGE_KINDS = new Set(['base64', 'url', 'file_ref']);
const MEDIA_TYPE = /^[a-z]+\/[a-z0-9.+-]+$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;
/** Only canonical timestamps pass as they are; others are normalized by the schema. */
const CANONICAL_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

const MESSAGE_KEYS = new Set([
  'id',
  'session_id',
  'role',
  'content',
  'metadata',
  'created_at',
  'schema_version',
]);
const USAGE_KEYS = new Set([
  'input_tokens',
  'output_tokens',
  'cached_input_tokens',
  'cache_creation_input_tokens',
  'cost_usd',
  'pricing_version',
  'latency_ms',
  'reasoning_tokens',
  'provider_cost_usd',
  'estimated',
]);
/** `RoutingModeSchema`'s values. */
const ROUTING_MODES = new Set(['override', 'manual', 'rule', 'pattern', 'delegate', 'default']);
const ROUTING_KEYS = new Set([
  'mode',
  'chosen_model',
  'reason',
  'rule_name',
  'confidence',
  'alternatives_considered',
]);
const STOP_REASONS = new Set([
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'refusal',
  'cancelled',
  'error',
]);

type Json = Record<string, unknown>;

/** A plain object as JSON.parse makes them (no arrays, no class instances). */
function isRecord(value: unknown): value is Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && !Object.hasOwn(value, '__proto__');
}

const nonEmpty = (value: unknown): boolean => typeof value === 'string' && value.length > 0;
const stringOrNull = (value: unknown): boolean => value === null || typeof value === 'string';
const count = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

/** Whether `value` has exactly these keys (in any order). */
function keysAre(value: Json, ...keys: string[]): boolean {
  let n = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (!keys.includes(key)) return false;
    n++;
  }
  return n === keys.length;
}

function imageOk(block: Json): boolean {
  if (!keysAre(block, 'type', 'source', 'media_type')) return false;
  const { source, media_type } = block;
  return (
    typeof media_type === 'string' &&
    MEDIA_TYPE.test(media_type) &&
    isRecord(source) &&
    keysAre(source, 'kind', 'data') &&
    IMAGE_KINDS.has(source.kind as string) &&
    nonEmpty(source.data)
  );
}

function blockOk(value: unknown, nested: boolean): boolean {
  if (!isRecord(value)) return false;
  switch (value.type) {
    case 'text':
      return keysAre(value, 'type', 'text') && typeof value.text === 'string';
    case 'image':
      return imageOk(value);
    case 'tool_use':
      return (
        !nested &&
        keysAre(value, 'type', 'id', 'name', 'input') &&
        nonEmpty(value.id) &&
        nonEmpty(value.name) &&
        isRecord(value.input)
      );
    case 'tool_result': {
      if (nested || !keysAre(value, 'type', 'tool_use_id', 'content', 'is_error')) return false;
      if (!nonEmpty(value.tool_use_id) || typeof value.is_error !== 'boolean') return false;
      const inner = value.content;
      if (!Array.isArray(inner)) return false;
      for (const block of inner) if (!blockOk(block, true)) return false;
      return true;
    }
    case 'thinking':
      if (nested || typeof value.text !== 'string') return false;
      return Object.hasOwn(value, 'signature')
        ? keysAre(value, 'type', 'text', 'signature') && stringOrNull(value.signature)
        : keysAre(value, 'type', 'text');
    case 'redacted_thinking':
      return !nested && keysAre(value, 'type', 'data') && nonEmpty(value.data);
    default:
      return false;
  }
}

function usageOk(usage: unknown): boolean {
  if (usage === null) return true;
  if (!isRecord(usage)) return false;
  for (const key in usage) if (!USAGE_KEYS.has(key)) return false;
  const { cost_usd, estimated, reasoning_tokens, provider_cost_usd } = usage;
  return (
    count(usage.input_tokens) &&
    count(usage.output_tokens) &&
    count(usage.cached_input_tokens) &&
    count(usage.cache_creation_input_tokens) &&
    count(usage.latency_ms) &&
    (cost_usd === null || (typeof cost_usd === 'string' && DECIMAL.test(cost_usd))) &&
    stringOrNull(usage.pricing_version) &&
    (estimated === undefined || typeof estimated === 'boolean') &&
    (reasoning_tokens === undefined || count(reasoning_tokens)) &&
    (provider_cost_usd === undefined ||
      provider_cost_usd === null ||
      (typeof provider_cost_usd === 'string' && DECIMAL.test(provider_cost_usd)))
  );
}

/** The metadata as the schema returns it, or null when the schema must decide. */
function metadataOf(metadata: unknown): MessageMetadata | null {
  if (!isRecord(metadata)) return null;
  if (!STATUSES.has(metadata.status as string)) return null;
  for (const key of [
    'model',
    'provider',
    'parent_tool_use_id',
    'user_id',
    'team_id',
    'served_model',
    'refusal',
  ]) {
    if (Object.hasOwn(metadata, key) && !stringOrNull(metadata[key])) return null;
  }
  if (Object.hasOwn(metadata, 'usage') && !usageOk(metadata.usage)) return null;
  if (Object.hasOwn(metadata, 'provider_raw')) {
    const raw = metadata.provider_raw;
    if (raw !== null && !isRecord(raw)) return null;
  }
  if (Object.hasOwn(metadata, 'critical') && typeof metadata.critical !== 'boolean') return null;
  if (
    Object.hasOwn(metadata, 'stop_reason') &&
    metadata.stop_reason !== null &&
    !STOP_REASONS.has(metadata.stop_reason as string)
  )
    return null;
  // a stored error record is rare and nested: the schema decides
  if (Object.hasOwn(metadata, 'error') && metadata.error !== null) return null;
  if (Object.hasOwn(metadata, 'structured_output')) return null;
  if (!Object.hasOwn(metadata, 'routing') || metadata.routing === null) {
    return metadata as MessageMetadata;
  }
  // a routing record the session wrote passes its own quick check; the rest, its schema
  if (routingOk(metadata.routing)) return metadata as MessageMetadata;
  const routing = RoutingDecisionRecordSchema.safeParse(metadata.routing);
  if (!routing.success) return null;
  return { ...metadata, routing: routing.data } as MessageMetadata;
}

/**
 * Whether a routing record is one the schema returns unchanged: the known fields only, each as
 * the schema wants it, `alternatives_considered` given (the schema would fill it in) and no
 * `fallback_from` (nested records: the schema decides).
 */
function routingOk(value: unknown): boolean {
  if (!isRecord(value)) return false;
  for (const key in value) if (!ROUTING_KEYS.has(key)) return false;
  const { mode, chosen_model, reason, alternatives_considered } = value;
  if (!ROUTING_MODES.has(mode as string) || !nonEmpty(chosen_model)) return false;
  if (typeof reason !== 'string' || !Array.isArray(alternatives_considered)) return false;
  for (const name of alternatives_considered) if (typeof name !== 'string') return false;
  if (Object.hasOwn(value, 'rule_name') && !stringOrNull(value.rule_name)) return false;
  const { confidence } = value;
  return !Object.hasOwn(value, 'confidence') || confidence === null || unitInterval(confidence);
}

/** A number from 0 to 1 (not NaN). */
const unitInterval = (value: unknown): boolean =>
  typeof value === 'number' && value >= 0 && value <= 1;

/**
 * The message, when the quick check accepts it (see the module comment); null when the zod
 * schema has to decide. `value` must be the caller's to give away: the result shares it.
 */
export function quickParseMessage(value: Json): Message | null {
  for (const key in value) if (!MESSAGE_KEYS.has(key)) return null;
  const { id, session_id, role, content, created_at, schema_version } = value;
  if (!nonEmpty(id) || !nonEmpty(session_id) || !ROLES.has(role as string)) return null;
  if (!Number.isSafeInteger(schema_version) || (schema_version as number) <= 0) return null;
  if (typeof created_at !== 'string' || !CANONICAL_TIMESTAMP.test(created_at)) return null;
  if (!Array.isArray(content)) return null;
  for (const block of content) if (!blockOk(block, false)) return null;
  const metadata = metadataOf(value.metadata);
  if (metadata === null) return null;
  return {
    id: id as string,
    session_id: session_id as string,
    role: role as Message['role'],
    content: content as ContentBlock[],
    metadata,
    created_at,
    schema_version: schema_version as number,
  };
}

/** {@link quickParseMessage} for any value: null unless it is a plain object the check accepts. */
export function quickParseValue(value: unknown): Message | null {
  return isRecord(value) ? quickParseMessage(value) : null;
}
