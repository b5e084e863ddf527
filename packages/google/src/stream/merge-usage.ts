/** A `usageMetadata` object as sent (counts, per-modality details). */
export type UsageRecord = Record<string, unknown>;

function isPlainObject(value: unknown): value is UsageRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === null || proto === Object.prototype;
}

/** `promptTokensDetails`, `candidatesTokensDetails`, ...: lists of `{ modality, tokenCount }`. */
function isModalityList(field: string, list: unknown[]): boolean {
  if (field.endsWith('TokensDetails')) return true;
  const first = list[0];
  return typeof first === 'object' && first !== null && 'modality' in first;
}

/** Two per-modality lists as one: counts of the same modality added, in first-seen order. */
function mergeModalityCounts(previous: unknown[], current: unknown[]): unknown[] {
  const counts = new Map<unknown, number>();
  for (const item of [...previous, ...current]) {
    const { modality, tokenCount } = item as { modality?: unknown; tokenCount?: number };
    counts.set(modality, (counts.get(modality) ?? 0) + (tokenCount ?? 0));
  }
  return [...counts].map(([modality, tokenCount]) => ({ modality, tokenCount }));
}

/**
 * The usage of two continuation hops as one, as `@google/genai` merges it (its
 * `mergeUsageMetadata`): every count is the sum of both hops (each hop is a request of its own,
 * billed on its own), per-modality details are added up by modality, other lists are joined,
 * nested objects are merged the same way, and a field only one hop has is kept as it is.
 */
export function mergeGeminiUsage(previous: UsageRecord, current: UsageRecord): UsageRecord {
  const merged: UsageRecord = {};
  for (const field of new Set([...Object.keys(previous), ...Object.keys(current)])) {
    const before = previous[field];
    const now = current[field];
    if (now === undefined || now === null) {
      if (before !== undefined) merged[field] = before;
    } else if (before === undefined || before === null) merged[field] = now;
    else if (typeof before === 'number' && typeof now === 'number') merged[field] = before + now;
    else if (Array.isArray(before) && Array.isArray(now)) {
      merged[field] =
        isModalityList(field, before) || isModalityList(field, now)
          ? mergeModalityCounts(before, now)
          : [...before, ...now];
    } else if (isPlainObject(before) && isPlainObject(now)) {
      merged[field] = mergeGeminiUsage(before, now);
    } else merged[field] = now;
  }
  return merged;
}
