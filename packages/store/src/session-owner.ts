import type { CreateSessionInput } from '@yourtool/core';
import { checkTextColumn } from './checks.js';
import type { StoreInputIssue } from './errors.js';

/** The columns a session's owner fields go to (decision 0182). */
export interface OwnerColumns {
  user_id?: string;
  tenant_id?: string;
  tags_json?: string;
}

const MAX_TAGS = 64;

/**
 * Checks a new session's `user`, `tenant` and `tags` (each optional; tags non-empty strings,
 * at most 64, duplicates dropped) and returns their columns; problems go to `issues`.
 */
export function checkOwner(input: CreateSessionInput, issues: StoreInputIssue[]): OwnerColumns {
  const columns: OwnerColumns = {};
  for (const field of ['user', 'tenant'] as const) {
    const value: unknown = input[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '') {
      issues.push({ path: field, message: 'must be a non-empty string' });
      continue;
    }
    checkTextColumn(value, field, issues);
    columns[field === 'user' ? 'user_id' : 'tenant_id'] = value;
  }
  const tags: unknown = input.tags;
  if (tags === undefined) return columns;
  if (!Array.isArray(tags) || tags.length > MAX_TAGS) {
    issues.push({ path: 'tags', message: `must be an array of at most ${MAX_TAGS} strings` });
    return columns;
  }
  tags.forEach((tag: unknown, i) => {
    if (typeof tag !== 'string' || tag === '') {
      issues.push({ path: `tags[${i}]`, message: 'must be a non-empty string' });
    } else checkTextColumn(tag, `tags[${i}]`, issues);
  });
  if (tags.length > 0) columns.tags_json = JSON.stringify([...new Set(tags as string[])]);
  return columns;
}
