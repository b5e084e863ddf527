import type { Message } from '@yourtool/core';

/** The adapter name, which is also the provider key of Gemini models (`google:gemini-2.5-flash`). */
export const GOOGLE = 'google';

/**
 * The `thoughtSignature` Google documents for a function call the model did not produce itself
 * (history from another provider or model, or built by hand): it tells Gemini 3 to skip
 * signature validation for that call instead of refusing the request with a 400.
 */
export const SKIP_THOUGHT_SIGNATURE_VALIDATOR = 'skip_thought_signature_validator';

/**
 * Where a reply's thought signatures are kept, in `metadata.provider_raw.google`. Canonical
 * text and tool use blocks have no field for them, so they live beside the blocks they
 * arrived on: tool use signatures by canonical tool use id, text signatures by the text
 * block's position among the message's text blocks (0 for the first). Thinking blocks carry
 * theirs in `signature`. They go back to the model that produced them only.
 */
export interface GeminiThoughtSignatures {
  /** Signature of the text block at this position among the message's text blocks. */
  text?: Record<string, string>;
  /** Signature of the function call whose canonical tool use id is the key. */
  tool_use?: Record<string, string>;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function strings(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(record(value) ?? {})) {
    if (typeof item === 'string' && item !== '') out[key] = item;
  }
  return out;
}

/** The thought signatures a message's `provider_raw` holds (tolerant of anything else there). */
export function readThoughtSignatures(message: Message): Required<GeminiThoughtSignatures> {
  const raw = record(record(message.metadata.provider_raw)?.[GOOGLE]);
  const signatures = record(raw?.thought_signatures);
  return { text: strings(signatures?.text), tool_use: strings(signatures?.tool_use) };
}

/** How many signatures a message carries outside its thinking blocks. */
export function countThoughtSignatures(message: Message): number {
  const { text, tool_use } = readThoughtSignatures(message);
  return Object.keys(text).length + Object.keys(tool_use).length;
}
