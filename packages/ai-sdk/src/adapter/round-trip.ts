import type { SharedV4ProviderMetadata } from '@ai-sdk/provider';
import type { ContentBlock, Message } from '@yourtool/core';

/** The `provider_raw` key under which this bridge keeps an AI SDK model's round-trip data. */
export const RAW_KEY = 'ai_sdk';

/**
 * What is kept on a reply for replay to the same model: the model that made it, and each
 * content block's provider metadata (signatures, encrypted reasoning, item ids) by its index.
 */
export interface RoundTrip {
  provider: string;
  model: string;
  blocks: Record<string, SharedV4ProviderMetadata>;
  response?: SharedV4ProviderMetadata;
}

/** The round-trip data stored on a message, when it came from the given model. */
export function roundTripOf(message: Message, provider: string, model: string): RoundTrip | null {
  const raw = message.metadata.provider_raw?.[RAW_KEY] as RoundTrip | undefined;
  if (!raw || raw.provider !== provider || raw.model !== model) return null;
  return raw;
}

/** Where a prepared block sat in its stored message (the history pass may drop blocks). */
export function storedIndex(
  stored: Message | undefined,
  block: ContentBlock,
  fallback: number,
): number {
  if (!stored) return fallback;
  const same = stored.content.indexOf(block);
  if (same >= 0) return same;
  const text = JSON.stringify(block);
  const equal = stored.content.findIndex((candidate) => JSON.stringify(candidate) === text);
  return equal >= 0 ? equal : fallback;
}

/** A signature among a part's provider metadata (Anthropic's and Bedrock's `signature`). */
export function signatureIn(metadata: SharedV4ProviderMetadata | undefined): string | undefined {
  for (const value of Object.values(metadata ?? {})) {
    const signature = (value as Record<string, unknown>)?.signature;
    if (typeof signature === 'string') return signature;
  }
  return undefined;
}

/** Redacted reasoning data among a part's provider metadata (Anthropic's `redactedData`). */
export function redactedIn(metadata: SharedV4ProviderMetadata | undefined): string | undefined {
  for (const value of Object.values(metadata ?? {})) {
    const data = (value as Record<string, unknown>)?.redactedData;
    if (typeof data === 'string' && data !== '') return data;
  }
  return undefined;
}
