/**
 * The OpenAI Chat Completions codec: pure functions between the canonical format and the Chat
 * Completions wire format, usable without HTTP (and reused by `@yourtool/openrouter`).
 *
 * @packageDocumentation
 */
import { type ContentBlock, createMessage, type ToolIdMap } from '@yourtool/core';
import type OpenAI from 'openai';
import { encodeOpenAIMessages } from './codec/chat-history.js';
import { decodeOpenAIMessage } from './codec/message.js';

export * from './codec/index.js';

/**
 * Encodes assistant content as it goes on the wire, then decodes that wire message as a reply:
 * the codec's round trip, used by the conformance property test.
 */
export function roundTripOpenAIContent(
  content: ContentBlock[],
  toolIdMap: ToolIdMap,
  provider = 'openai',
): ContentBlock[] {
  const message = createMessage({ session_id: 'sess_roundtrip', role: 'assistant', content });
  const [wire] = encodeOpenAIMessages(null, [message], {
    provider,
    toolIdMap,
    logger: { warn() {} },
    encodeReasoning: undefined,
    dropped: [],
  });
  const sent = JSON.parse(JSON.stringify(wire ?? {})) as OpenAI.ChatCompletionAssistantMessageParam;
  return decodeOpenAIMessage(
    {
      content: typeof sent.content === 'string' ? sent.content : null,
      refusal: null,
      tool_calls: (sent.tool_calls ?? []) as OpenAI.ChatCompletionMessageToolCall[],
    },
    toolIdMap,
    { provider },
  ).content;
}
