import type { Message } from './schemas/message.js';
import { isSealedMessage } from './sealed.js';
import type { ToolIdMap, ToolIdRules } from './tool-id-map.js';

/** What an adapter's encoder made of one message, and whether the result may be reused. */
export interface EncodedWireForm<F> {
  /** The message's wire form (read-only once returned: callers copy before changing it). */
  form: F;
  /**
   * Whether encoding the message again under the same context would give the same form. False
   * when the encoder read something that may change between requests (e.g. a provider tool id
   * derived but not recorded in the `ToolIdMap`); such a form is used once and not kept.
   */
  reusable: boolean;
}

/** One remembered form: the context it was made under and the form. */
interface Remembered<F> {
  context: object;
  form: F;
}

/**
 * Remembers each sealed message's wire form for one adapter's encoder (decision 0149), so that
 * a session's next request encodes only its new messages. A sealed message (`sealMessage`)
 * cannot change, so its form depends only on what else the encoder reads: `context`, an object
 * compared by identity (the session's `ToolIdMap`: its links are never changed or removed, so
 * a form that used only recorded links stays right for as long as the map lives). Everything
 * else an encoder depends on (the model, the options, what `prepareHistory` repaired) must act
 * through the message object it is given: a repaired copy is a different object, and copies
 * are not sealed, so they are encoded each time.
 *
 * Forms are held weakly by message: a dropped history takes its forms with it. One form is
 * kept per message; a request under another context encodes again and keeps the new form.
 * Owner and lifetime (decision 0165): the adapter instance holds one per encoder and passes it
 * to its codec (a codec's module holds no state), so the forms live as long as the adapter;
 * never share one between encoders.
 */
export class SealedWireForms<F> {
  readonly #forms = new WeakMap<Message, Remembered<F>>();

  /**
   * The wire form of `message` under `context`: the remembered one when `message` is sealed and
   * was encoded under the same context, else `encode(message, kept)`, kept when `kept` (the
   * message is sealed) and the encoder says it is reusable. An unsealed message costs one
   * `encode` and nothing else: the encoder need not prepare (e.g. freeze) a form not kept.
   */
  get(
    message: Message,
    context: object,
    encode: (message: Message, kept: boolean) => EncodedWireForm<F>,
  ): F {
    if (!isSealedMessage(message)) return encode(message, false).form;
    const known = this.#forms.get(message);
    if (known !== undefined && known.context === context) return known.form;
    const encoded = encode(message, true);
    if (encoded.reusable) this.#forms.set(message, { context, form: encoded.form });
    return encoded.form;
  }

  /** Whether a form of `message` under `context` is remembered. */
  has(message: Message, context: object): boolean {
    return this.#forms.get(message)?.context === context;
  }
}

/**
 * Whether every tool id `message` went out with is the link `toolIdMap` records for `provider`
 * under `rules`, so its wire form stays right on later requests (a form is kept only then).
 */
export function toolIdsRecorded(
  message: Message,
  toolIdMap: ToolIdMap,
  provider: string,
  rules: ToolIdRules | undefined,
): boolean {
  return message.content.every((block) => {
    const id =
      block.type === 'tool_use'
        ? block.id
        : block.type === 'tool_result'
          ? block.tool_use_id
          : null;
    if (id === null) return true;
    // a recorded link that breaks the rules is derived afresh (unrecorded) each time
    const recorded = toolIdMap.getProviderId(provider, id);
    return recorded !== undefined && toolIdMap.toProviderId(provider, id, rules) === recorded;
  });
}

/** Whether `value` and everything in it is frozen (so can never change). */
export function deepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (!Object.isFrozen(value)) return false;
  for (const inner of Object.values(value)) if (!deepFrozen(inner)) return false;
  return true;
}

/** Freezes `value` and everything in it (a remembered wire form is shared by every request). */
export function freezeWireForm(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) freezeWireForm(inner);
}
