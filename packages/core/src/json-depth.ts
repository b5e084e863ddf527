/**
 * How deeply nested a JSON value may be before code that stores or sends it refuses it: 100
 * levels of objects and arrays. Real tool inputs and provider payloads stay far below 20;
 * the limit exists because recursive serializers overflow the call stack on deep values
 * (`JSON.stringify` throws a `RangeError` a few thousand levels down, less on a deep call
 * stack) and because other readers of stored JSON have limits of their own (Rust's
 * `serde_json` refuses more than 127 levels by default). See docs/decisions/0061.
 */
export const DEFAULT_MAX_JSON_DEPTH = 100;

/** Options of {@link checkJsonDepth}. */
export interface JsonDepthOptions {
  /** The most levels of objects and arrays allowed, a positive integer. Default {@link DEFAULT_MAX_JSON_DEPTH}. */
  maxDepth?: number;
}

/** A value within the limit. */
export interface JsonDepthWithin {
  ok: true;
  /** Levels of objects and arrays of the deepest branch (0 for a scalar, 1 for `{}` or `[]`). */
  depth: number;
}

/** A value nested deeper than the limit: where the first object or array past it sits. */
export interface JsonDepthExceeded {
  ok: false;
  /** The limit that was exceeded. */
  maxDepth: number;
  /**
   * The path from the value's root to the first object or array past the limit, for people:
   * `content[0].input.a.b`, keys that are not identifiers in brackets (`["a b"]`), very long
   * keys shortened and the middle of very long paths elided with `…`.
   */
  path: string;
  /** The same path in full: object keys and array indexes, root first. */
  segments: ReadonlyArray<string | number>;
}

/** Outcome of {@link checkJsonDepth}. */
export type JsonDepthResult = JsonDepthWithin | JsonDepthExceeded;

interface Frame {
  value: object;
  depth: number;
  parent: Frame | undefined;
  key: string | number | undefined;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_KEY_SHOWN = 32;
const PATH_ENDS_SHOWN = 8;

function formatSegment(segment: string | number, first: boolean): string {
  if (typeof segment === 'number') return `[${segment}]`;
  const key = segment.length > MAX_KEY_SHOWN ? `${segment.slice(0, MAX_KEY_SHOWN)}…` : segment;
  if (IDENTIFIER.test(segment)) return first ? key : `.${key}`;
  return `[${JSON.stringify(key)}]`;
}

function formatPath(segments: ReadonlyArray<string | number>): string {
  const shown = (list: ReadonlyArray<string | number>, offset: number) =>
    list.map((s, i) => formatSegment(s, offset + i === 0)).join('');
  if (segments.length <= 2 * PATH_ENDS_SHOWN) return shown(segments, 0);
  const tailStart = segments.length - PATH_ENDS_SHOWN;
  return `${shown(segments.slice(0, PATH_ENDS_SHOWN), 0)}…${shown(segments.slice(tailStart), tailStart)}`;
}

function segmentsOf(frame: Frame): Array<string | number> {
  const out: Array<string | number> = [];
  for (let at: Frame | undefined = frame; at?.key !== undefined; at = at.parent) out.push(at.key);
  return out.reverse();
}

/**
 * Measures how deeply a JSON value nests objects and arrays, without recursion: any depth is
 * safe to check, including values `JSON.stringify` cannot serialize. Stops at the first
 * object or array past `maxDepth` (in document order) and says where it is. Objects that are
 * not plain (class instances) are walked through their own enumerable keys; a cycle is
 * reported as exceeding the limit; a subtree shared by several parents is walked once per
 * distinct depth, so the time stays linear in the number of distinct objects. Never throws
 * for any value; throws a `RangeError` when `maxDepth` is not a positive integer.
 *
 * @example
 * const result = checkJsonDepth(block.input);
 * if (!result.ok) throw new Error(`tool input nests deeper than ${result.maxDepth} levels at ${result.path}`);
 */
export function checkJsonDepth(value: unknown, options: JsonDepthOptions = {}): JsonDepthResult {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 1) {
    throw new RangeError(`maxDepth must be a positive integer, got ${maxDepth}`);
  }
  if (typeof value !== 'object' || value === null) return { ok: true, depth: 0 };
  // The deepest level at which each object was walked: reaching it again no deeper can find
  // nothing new, which keeps shared subtrees linear and makes cycles terminate.
  const walked = new Map<object, number>();
  const stack: Frame[] = [{ value, depth: 1, parent: undefined, key: undefined }];
  let deepest = 0;
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if (frame.depth > maxDepth) {
      const segments = segmentsOf(frame);
      return { ok: false, maxDepth, path: formatPath(segments), segments };
    }
    const before = walked.get(frame.value);
    if (before !== undefined && before >= frame.depth) continue;
    walked.set(frame.value, frame.depth);
    if (frame.depth > deepest) deepest = frame.depth;
    const depth = frame.depth + 1;
    // Children pushed last to first, so they are walked in document order.
    if (Array.isArray(frame.value)) {
      const list: readonly unknown[] = frame.value;
      for (let i = list.length - 1; i >= 0; i--) {
        const child = list[i];
        if (typeof child === 'object' && child !== null) {
          stack.push({ value: child, depth, parent: frame, key: i });
        }
      }
    } else {
      const record = frame.value as Record<string, unknown>;
      const keys = Object.keys(record);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        const child = record[key];
        if (typeof child === 'object' && child !== null) {
          stack.push({ value: child, depth, parent: frame, key });
        }
      }
    }
  }
  return { ok: true, depth: deepest };
}
