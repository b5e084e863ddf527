/**
 * The containers a {@link PartialJsonParser} keeps open while it reads, and the partial value
 * built from them: the open containers copied along the path to the token being read, the
 * finished members shared.
 */

/** An open array or object. */
export type Container = { kind: 'array'; items: unknown[] } | ObjectFrame;

/** An open object. */
export interface ObjectFrame {
  kind: 'object';
  fields: Record<string, unknown>;
  /** The key whose value is being read, once its colon has been read. */
  key: string | undefined;
  /** The key of the member attached last, which holds the open child container if any. */
  lastKey: string;
}

/** Stands for the string or number being read when it has no value to show yet. */
export const NO_LEAF: unique symbol = Symbol('no leaf');

/** Sets a field the way `JSON.parse` does: an own property, even one named `__proto__`. */
export function setField(fields: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(fields, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    fields[key] = value;
  }
}

/**
 * The partial value of `stack` (outermost first, at least one container) with `leaf` (or
 * nothing, {@link NO_LEAF}) put in the innermost: each open container copied, its open child
 * replaced by the child's copy.
 */
export function buildPartial(stack: readonly Container[], leaf: unknown): unknown {
  const last = stack.length - 1;
  const innermost = stack[last] as Container;
  let child: unknown =
    innermost.kind === 'array' ? withItem(innermost, leaf) : withField(innermost, leaf);
  for (let depth = last - 1; depth >= 0; depth--) {
    const frame = stack[depth] as Container;
    // the open child container is the member attached last, and its copy replaces it
    if (frame.kind === 'array') {
      const copy = frame.items.slice();
      copy[copy.length - 1] = child;
      child = copy;
    } else {
      const copy = { ...frame.fields };
      setField(copy, frame.lastKey, child);
      child = copy;
    }
  }
  return child;
}

function withItem(frame: { items: unknown[] }, leaf: unknown): unknown[] {
  const copy = frame.items.slice();
  if (leaf !== NO_LEAF) copy.push(leaf);
  return copy;
}

function withField(frame: ObjectFrame, leaf: unknown): Record<string, unknown> {
  const copy = { ...frame.fields };
  if (leaf !== NO_LEAF && frame.key !== undefined) setField(copy, frame.key, leaf);
  return copy;
}
