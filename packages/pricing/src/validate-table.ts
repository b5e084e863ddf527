import { InvalidModelIdError, parseModelId } from '@yourtool/core';
import { z } from 'zod';
import { deepFreeze } from './deep-freeze.js';
import { PriceTableError, type PriceTableIssue } from './errors.js';
import { ModelEntrySchema, normalizeModelEntry, type RawModelEntry } from './model-entry.js';
import type { ModelPrice, PriceOverrides, PriceTable } from './table.js';

// A price table or override layer given as a plain object, checked whole: every offending path is
// named in one PriceTableError, and what passes is frozen.

const VersionSchema = z
  .string({ message: 'required: a non-empty string such as "2026-11-22"' })
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .refine((v) => v.trim() === v, 'must not start or end with spaces');

const DateSchema = z.iso.date('must be a date written YYYY-MM-DD');

const TableSchema = z.strictObject({
  pricing_version: VersionSchema,
  effective_date: DateSchema,
  source: z.string({ message: 'required: where these prices come from' }).min(1),
  notes: z.string().optional(),
  models: z.record(z.string(), ModelEntrySchema, { message: 'required: a map of model prices' }),
});

const OverridesSchema = z.strictObject({
  pricing_version: VersionSchema,
  effective_date: DateSchema.optional(),
  source: z.string().min(1).optional(),
  notes: z.string().optional(),
  models: z.record(z.string(), ModelEntrySchema.nullable(), {
    message: 'required: a map of model prices (null removes a model)',
  }),
});

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Formats a path as `models["openai:gpt-5"].long_context[0].input_per_mtok_usd`. */
export function formatTablePath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else {
      const name = String(key);
      if (IDENTIFIER.test(name)) out += out === '' ? name : `.${name}`;
      else out += `[${JSON.stringify(name)}]`;
    }
  }
  return out === '' ? '$' : out;
}

function modelPath(key: string): string {
  return `models[${JSON.stringify(key)}]`;
}

/**
 * Checks a `models` key: a canonical model id (`provider:name`) or a pattern ending in `*`
 * (`ollama:*`, `openai:gpt-5*`) that matches every id starting with the text before it.
 * Returns a problem description, or `undefined` when the key is valid.
 */
export function checkModelKey(key: string): string | undefined {
  const star = key.indexOf('*');
  if (star >= 0 && star !== key.length - 1) {
    return 'a pattern may only have one "*", at the end (e.g. "ollama:*")';
  }
  const stem = star >= 0 ? key.slice(0, -1) : key;
  try {
    parseModelId(star >= 0 ? `${stem}x` : stem);
    if (star >= 0 && !stem.includes(':')) return 'a pattern must name its provider ("ollama:*")';
    return undefined;
  } catch (error) {
    if (error instanceof InvalidModelIdError) {
      return `not a canonical model id or pattern: ${error.message.replace(/^invalid model id "[^"]*": /, '')}`;
    }
    throw error;
  }
}

function normalizeModels(
  models: Record<string, RawModelEntry | null>,
  issues: PriceTableIssue[],
): Record<string, ModelPrice | null> {
  const out: Record<string, ModelPrice | null> = {};
  for (const [key, entry] of Object.entries(models)) {
    const problem = checkModelKey(key);
    if (problem) issues.push({ path: modelPath(key), message: problem });
    out[key] = entry === null ? null : normalizeModelEntry(entry, modelPath(key), issues);
  }
  return out;
}

function zodIssues(error: z.ZodError): PriceTableIssue[] {
  return error.issues.map((issue) => ({
    path: formatTablePath(issue.path),
    message: issue.message,
  }));
}

/** Options of the functions that read price tables. */
export interface PriceTableSourceOptions {
  /** Named in errors: a file path, `"default table"`, ... */
  origin?: string;
}

/**
 * Validates a price table given as a plain object (e.g. parsed JSON, or written in code).
 * Throws {@link PriceTableError} naming every offending path. The returned table is frozen.
 */
export function validatePriceTable(
  value: unknown,
  options: PriceTableSourceOptions = {},
): PriceTable {
  const parsed = TableSchema.safeParse(value);
  if (!parsed.success) throw new PriceTableError(zodIssues(parsed.error), options.origin);
  const issues: PriceTableIssue[] = [];
  const models = normalizeModels(parsed.data.models, issues) as Record<string, ModelPrice>;
  if (issues.length > 0) throw new PriceTableError(issues, options.origin);
  const table: PriceTable = {
    pricing_version: parsed.data.pricing_version,
    effective_date: parsed.data.effective_date,
    source: parsed.data.source,
    models,
  };
  if (parsed.data.notes !== undefined) table.notes = parsed.data.notes;
  return deepFreeze(table);
}

/** Validates an override layer given as a plain object. */
export function validatePriceOverrides(
  value: unknown,
  options: PriceTableSourceOptions = {},
): PriceOverrides {
  const parsed = OverridesSchema.safeParse(value);
  if (!parsed.success) throw new PriceTableError(zodIssues(parsed.error), options.origin);
  const issues: PriceTableIssue[] = [];
  const models = normalizeModels(parsed.data.models, issues);
  if (issues.length > 0) throw new PriceTableError(issues, options.origin);
  const overrides: PriceOverrides = { pricing_version: parsed.data.pricing_version, models };
  if (parsed.data.effective_date !== undefined) {
    overrides.effective_date = parsed.data.effective_date;
  }
  if (parsed.data.source !== undefined) overrides.source = parsed.data.source;
  else if (options.origin !== undefined) overrides.source = options.origin;
  if (parsed.data.notes !== undefined) overrides.notes = parsed.data.notes;
  return deepFreeze(overrides);
}
