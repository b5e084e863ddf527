import type { ToolResultContentBlock } from '@yourtool/core';
import { DEFAULT_MAX_JSON_DEPTH } from '@yourtool/core/adapter';
import { parseBlock } from './block-schema.js';

/** A tool's output as a result's content, or why it cannot be stored and where. */
export type ToolOutputContent =
  | { ok: true; content: string | ToolResultContentBlock[] }
  | { ok: false; reason: string; path: string };

/** A value refused while walking the output: why, and the path from `$`. */
class Unstorable {
  constructor(
    readonly reason: string,
    readonly path: string,
  ) {}
}

/** Deeper than core's JSON limit (decision 0061), an output is refused rather than walked. */
const MAX_DEPTH = DEFAULT_MAX_JSON_DEPTH;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `path` extended by one key: `.name`, `["a b"]` or `[3]`. */
function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** Whether an array is meant as result blocks: every item an object typed `text` or `image`. */
function looksLikeBlocks(value: readonly unknown[]): boolean {
  return (
    value.length > 0 &&
    value.every(
      (item) =>
        typeof item === 'object' &&
        item !== null &&
        ((item as { type?: unknown }).type === 'text' ||
          (item as { type?: unknown }).type === 'image'),
    )
  );
}

/** Why a value of this kind has no JSON form, or null when it has one. */
function kindProblem(value: unknown): string | null {
  switch (typeof value) {
    case 'bigint':
      return `a BigInt (${String(value)}n); JSON has no form for it, return it as a string or a number`;
    case 'function':
      return 'a function';
    case 'symbol':
      return `a symbol (${String(value)})`;
    case 'undefined':
      return 'undefined; JSON would drop it silently, use null or leave the property out';
    case 'number':
      return Number.isFinite(value)
        ? null
        : `the number ${String(value)}; JSON would silently turn it into null`;
    default:
      break;
  }
  if (value instanceof Map) return 'a Map; JSON would turn it into {}, use Object.fromEntries';
  if (value instanceof Set) return 'a Set; JSON would turn it into {}, use an array';
  if (value instanceof WeakMap || value instanceof WeakSet) return 'a WeakMap or WeakSet';
  if (value instanceof Promise) return 'a Promise; was it awaited?';
  return null;
}

/** An object on the path being walked, and its path. */
interface Ancestor {
  value: object;
  path: string;
}

/**
 * Walks `value` as `JSON.stringify` would (calling `toJSON` first), and throws
 * {@link Unstorable} at the first value JSON cannot hold or would change silently (a hole in an
 * array counts as `undefined`). `ancestors` are the objects on the path, for circular
 * references; a value shared by two branches is fine.
 */
function walk(value: unknown, path: string, ancestors: Ancestor[]): void {
  let current = value;
  if (typeof current === 'object' && current !== null) {
    const toJSON = (current as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') current = toJSON.call(current, '');
  }
  const problem = kindProblem(current);
  if (problem !== null) throw new Unstorable(problem, path);
  if (typeof current !== 'object' || current === null) return;
  const back = ancestors.find((a) => a.value === current);
  if (back) throw new Unstorable(`a circular reference (back to ${back.path})`, path);
  if (ancestors.length >= MAX_DEPTH)
    throw new Unstorable(`nesting deeper than ${MAX_DEPTH} levels`, path);
  ancestors.push({ value: current, path });
  try {
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index++)
        walk(current[index], child(path, index), ancestors);
    } else {
      const record = current as Record<string, unknown>;
      for (const key of Object.keys(record)) walk(record[key], child(path, key), ancestors);
    }
  } finally {
    ancestors.pop();
  }
}

/** Result blocks checked against core's schema; a bad block is refused with its path. */
function blocksContent(value: readonly unknown[]): ToolOutputContent {
  const blocks: ToolResultContentBlock[] = [];
  for (const [index, item] of value.entries()) {
    const parsed = parseBlock(item);
    if (!parsed.ok) {
      const type = (item as { type: string }).type;
      const inner = parsed.path === '' ? '' : `.${parsed.path}`;
      return {
        ok: false,
        reason: `not a valid ${type} block (${parsed.message})`,
        path: `$[${index}]${inner}`,
      };
    }
    // looksLikeBlocks admitted only text and image items, which parse as themselves
    if (parsed.block.type === 'text' || parsed.block.type === 'image') blocks.push(parsed.block);
  }
  return { ok: true, content: blocks };
}

/**
 * The content of a tool's result, from what its handler returned: a string as it is, an array
 * of text and image blocks as blocks (checked against core's schema), `undefined` as an empty
 * result, and any other JSON value as its JSON text (`JSON.stringify`, compact). A value JSON
 * cannot hold, or would change without saying so, is refused with the reason and its path
 * (`$.items[3].size`).
 */
export function toolOutputContent(output: unknown): ToolOutputContent {
  if (typeof output === 'string') return { ok: true, content: output };
  if (output === undefined) return { ok: true, content: '' };
  if (Array.isArray(output) && looksLikeBlocks(output)) return blocksContent(output);
  try {
    walk(output, '$', []);
    return { ok: true, content: JSON.stringify(output) };
  } catch (error) {
    if (error instanceof Unstorable) return { ok: false, reason: error.reason, path: error.path };
    throw error;
  }
}
