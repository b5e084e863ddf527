import { isSealedMessage, type Message, type ToolIdMap, type ToolIdRules } from '@yourtool/core';
import { deepFrozen, type EncodedWireForm, type SealedWireForms } from '@yourtool/core/adapter';

/** A remembered form, and the `ToolIdMap` it was encoded under. */
export interface RememberedForm<F> {
  /** The map the form was encoded under (compared by identity). */
  context: ToolIdMap;
  /** The form. */
  form: F;
}

/**
 * The form of `message` under `toolIdMap`, remembered in `forms` for a sealed message and in
 * `results` for a tool message that `prepareHistory` rebuilt around one tool result of a sealed
 * message: such a copy is never sealed, but its form depends only on that block, which is
 * deep-frozen, so it is remembered by the block (decision 0191). Anything else is encoded for
 * this request only. `forms` and `results` belong to the caller's wire memory (decision 0165).
 */
export function rememberedForm<F>(
  memory: { forms: SealedWireForms<F>; results: WeakMap<object, RememberedForm<F>> },
  message: Message,
  toolIdMap: ToolIdMap,
  encode: (message: Message, kept: boolean) => EncodedWireForm<F>,
): F {
  const [block, more] = message.content;
  if (message.role !== 'tool' || more !== undefined || !block || isSealedMessage(message)) {
    return memory.forms.get(message, toolIdMap, encode);
  }
  // a block remembered was deep-frozen then, so still is: checked only when not remembered
  const known = memory.results.get(block);
  if (known !== undefined && known.context === toolIdMap) return known.form;
  if (!deepFrozen(block)) return encode(message, false).form;
  const encoded = encode(message, true);
  if (encoded.reusable) memory.results.set(block, { context: toolIdMap, form: encoded.form });
  return encoded.form;
}
