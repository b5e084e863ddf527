import { type ContentBlock, MessageSchema } from '@yourtool/core';

/**
 * Core's schema of one content block (the element of `MessageSchema`'s content list), so a
 * block is checked by exactly the rules the store applies to it. A block whose `type` is
 * `text` or `image` is parsed by that type's schema.
 */
const contentBlockSchema = MessageSchema.shape.content.element;

/** A block parsed by core's schema, or the first problem found, with its path in the block. */
export function parseBlock(
  block: unknown,
): { ok: true; block: ContentBlock } | { ok: false; path: string; message: string } {
  const parsed = contentBlockSchema.safeParse(block);
  if (parsed.success) return { ok: true, block: parsed.data };
  const issue = parsed.error.issues[0];
  const path = (issue?.path ?? [])
    .map((key, i) =>
      typeof key === 'number' ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`,
    )
    .join('');
  return { ok: false, path, message: issue?.message ?? 'invalid block' };
}
