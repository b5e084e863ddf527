import type { StopReason } from '@yourtool/core';

/**
 * Finish reasons that mean Gemini's filters withheld (part of) the reply: safety, blocklists,
 * prohibited content, personal data, recitation, language, and their image variants.
 */
export const GEMINI_BLOCKED_FINISH_REASONS: ReadonlySet<string> = new Set([
  'SAFETY',
  'RECITATION',
  'LANGUAGE',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/**
 * The blocked finish reasons that are a refusal: Google declined to hand over the reply on
 * policy grounds (safety, prohibited content, blocklisted terms, personal data, recitation of
 * protected text, and the image variants). `LANGUAGE` is not among them: an unsupported language
 * is a request the model cannot serve, not one it declines.
 */
export const GEMINI_REFUSAL_FINISH_REASONS: ReadonlySet<string> = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/**
 * Maps Gemini's finish reason to the canonical stop reason. Gemini answers `STOP` for a natural
 * end, for a stop-sequence hit and for a reply holding function calls alike: `MAX_TOKENS` is
 * `max_tokens`; a refusal finish ({@link GEMINI_REFUSAL_FINISH_REASONS}) is `refusal`, even
 * after function calls, since the filter ended the reply; a reply with function calls is
 * `tool_use`; a `STOP` when the request carried stop sequences is `stop_sequence` (as for
 * OpenAI: the provider does not say which stop ended the reply); everything else is `end_turn`, with the raw value in
 * `provider_raw.google.finish_reason`.
 */
export function mapGeminiFinishReason(
  reason: string | null | undefined,
  hasFunctionCalls: boolean,
  stopSequencesSent = false,
): StopReason {
  if (reason === 'MAX_TOKENS') return 'max_tokens';
  if (reason && GEMINI_REFUSAL_FINISH_REASONS.has(reason)) return 'refusal';
  if (hasFunctionCalls) return 'tool_use';
  if (reason === 'STOP' && stopSequencesSent) return 'stop_sequence';
  return 'end_turn';
}
