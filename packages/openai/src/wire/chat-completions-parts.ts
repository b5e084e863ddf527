import type { AdapterContext, WireModels, WireParts } from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import type { OpenAIStreamItem } from '../codec/stream.js';
import { ChatCompletionsCodec } from './chat-completions-codec.js';
import type { ChatCompletionsEncoding, ChatCompletionsRules } from './chat-completions-rules.js';
import { ChatCompletionsTransport } from './chat-completions-transport.js';

/** A Chat Completions adapter's parts: the request, reply and chunk types of that wire. */
export type ChatCompletionsParts = WireParts<
  ChatCompletionsEncoding,
  OpenAI.ChatCompletion,
  OpenAIStreamItem
>;

/**
 * The parts of a Chat Completions adapter: the shared codec and transport, configured by the
 * provider's rules, and the provider's models. OpenAI, OpenRouter and every OpenAI-compatible
 * server are this with their own rules.
 */
export function chatCompletionsParts(
  context: AdapterContext,
  rules: ChatCompletionsRules,
  models: WireModels,
): ChatCompletionsParts {
  return {
    codec: new ChatCompletionsCodec(rules),
    transport: new ChatCompletionsTransport(context, rules),
    models,
  };
}
