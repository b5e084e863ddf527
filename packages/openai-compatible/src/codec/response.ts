import type { Logger, ToolIdMap } from '@yourtool/core';
import { fromOpenAIChatCompletion, type OpenAIResponseDecoding } from '@yourtool/openai/codec';
import type OpenAI from 'openai';
import type { ReasoningField } from '../options.js';
import { decodeReasoning } from './reasoning.js';

/** Options of {@link fromCompatibleChatCompletion}. */
export interface FromCompatibleOptions {
  provider: string;
  reasoningField: ReasoningField;
  logger?: Logger;
  stopSequencesSent?: boolean;
  emulatedStopSequences?: readonly string[];
}

/**
 * Decodes a Chat Completions reply of a compatible server: its reasoning (`reasoning` /
 * `reasoning_content`) first, as one unsigned thinking block, then text and tool calls through
 * the openai codec, with usage and `provider_raw` under the provider key.
 */
export function fromCompatibleChatCompletion(
  completion: OpenAI.ChatCompletion,
  toolIdMap: ToolIdMap,
  options: FromCompatibleOptions,
): OpenAIResponseDecoding {
  const decoded = fromOpenAIChatCompletion(completion, toolIdMap, {
    provider: options.provider,
    ...(options.logger ? { logger: options.logger } : {}),
    stopSequencesSent: options.stopSequencesSent ?? false,
    ...(options.emulatedStopSequences
      ? { emulatedStopSequences: options.emulatedStopSequences }
      : {}),
  });
  const message = completion.choices[0]?.message as unknown as Record<string, unknown> | undefined;
  const thinking = message ? decodeReasoning(message, options.reasoningField) : [];
  return { ...decoded, content: [...thinking, ...decoded.content] };
}
