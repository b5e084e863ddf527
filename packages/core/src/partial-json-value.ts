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

/** The string or number being read, when it has a value to show yet. */
export interface Leaf {
  present: boolean;
  value: unknown;
}

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
 * The partial value of `stack` (outermost first, at least one container) with `leaf` put in
 * the innermost: each open container copied, its open child replaced by the child's copy.
 */
export function buildPartial(stack: readonly Container[], leaf: Leaf): unknown {
  let child: unknown;
  const last = stack.length - 1;
  for (let depth = last; depth >= 0; depth--) {
    const frame = stack[depth] as Container;
    const inner: Leaf = depth === last ? leaf : { present: true, value: child };
    const innermost = depth === last;
    child =
      frame.kind === 'array'
        ? copyArray(frame, innermost, inner)
        : copyObject(frame, innermost, inner);
  }
  return child;
}

function copyArray(frame: { items: unknown[] }, innermost: boolean, inner: Leaf): unknown[] {
  const copy = frame.items.slice();
  // the open child container is the last item, and its copy replaces it
  if (!innermost) copy[copy.length - 1] = inner.value;
  else if (inner.present) copy.push(inner.value);
  return copy;
}

function copyObject(frame: ObjectFrame, innermost: boolean, inner: Leaf): Record<string, unknown> {
  const copy = { ...frame.fields };
  // the open child container is the member attached last, and its copy replaces it
  if (!innermost) setField(copy, frame.lastKey, inner.value);
  else if (inner.present && frame.key !== undefined) setField(copy, frame.key, inner.value);
  return copy;
}
