import type { SessionRecord } from '@yourtool/core';

// A `sessions` row checked where it enters the listing, without core's schemas: a row of the
// shapes the store writes is read here; any other row (a string where a number belongs, JSON
// that is not an object, a time outside years 0000–9999) is left to the store's own reader,
// `rowToSession`, so that every row gives what `SqlSessionStore.listSessions` gives.

/** A `sessions` row as better-sqlite3 reads it (`select *`). */
export type SessionsRow = Readonly<Record<string, unknown>>;

/** The last millisecond of year 9999: ISO times up to it have the `YYYY-MM-DD` form. */
const MAX_ISO_MS = 253_402_300_799_999;

/** Epoch microseconds as core's `epochMicrosToTimestamp` writes them, or undefined. */
function timestampOf(micros: unknown): string | undefined {
  if (typeof micros !== 'number' || !Number.isSafeInteger(micros)) return undefined;
  const ms = Math.floor(micros / 1000);
  if (ms < 0 || ms > MAX_ISO_MS) return undefined;
  const rest = micros - ms * 1000;
  return `${new Date(ms).toISOString().slice(0, 23)}${String(rest).padStart(3, '0')}Z`;
}

/** `routing_policy_json` read: `null`, an object, or undefined when the store's reader decides. */
function policyOf(text: unknown): Record<string, unknown> | null | undefined {
  if (text === null) return null;
  if (typeof text !== 'string') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null) return null;
  return typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** An owner column: absent (`null`, `''`), a string, or undefined when odd. */
function ownerText(value: unknown): string | null | undefined {
  if (value === null || value === undefined || value === '') return null;
  return typeof value === 'string' ? value : undefined;
}

/** The session's user, tenant and tags, only those set; undefined when a column is odd. */
function ownerOf(row: SessionsRow): Pick<SessionRecord, 'user' | 'tenant' | 'tags'> | undefined {
  const user = ownerText(row.user_id);
  const tenant = ownerText(row.tenant_id);
  const tagsText = ownerText(row.tags_json);
  if (user === undefined || tenant === undefined || tagsText === undefined) return undefined;
  const owner: Pick<SessionRecord, 'user' | 'tenant' | 'tags'> = {};
  if (user !== null) owner.user = user;
  if (tenant !== null) owner.tenant = tenant;
  if (tagsText !== null) {
    let tags: unknown;
    try {
      tags = JSON.parse(tagsText);
    } catch {
      return undefined;
    }
    if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string')) return undefined;
    owner.tags = tags;
  }
  return owner;
}

/**
 * The session of a row the store wrote, with the same fields in the same order as the store's
 * `rowToSession` gives (no turn lease: a listing does not read the clock); undefined for a row
 * of any other shape, which the caller hands to `rowToSession`.
 */
export function readSessionRow(row: SessionsRow): SessionRecord | undefined {
  const { id, workspace_path: workspace, active_model: model } = row;
  if (typeof id !== 'string' || typeof workspace !== 'string') return undefined;
  if (model !== null && typeof model !== 'string') return undefined;
  const version = row.schema_version;
  const revision = row.revision ?? 0;
  if (typeof version !== 'number' || typeof revision !== 'number') return undefined;
  const created = timestampOf(row.created_at);
  const updated = timestampOf(row.updated_at);
  const policy = policyOf(row.routing_policy_json);
  const owner = ownerOf(row);
  if (!created || !updated || policy === undefined || !owner) return undefined;
  return {
    id,
    workspace_path: workspace,
    active_model: model,
    routing_policy: policy,
    schema_version: version,
    created_at: created,
    updated_at: updated,
    revision,
    ...owner,
  };
}
