/**
 * The OpenAI-compatible codec: the `@yourtool/openai` Chat Completions codec plus reasoning
 * fields, configurable tool id rules and dropped parameters, as pure functions usable without
 * HTTP.
 *
 * @packageDocumentation
 */
import { type ContentBlock, createMessage, type ToolIdMap, type ToolIdRules } from '@yourtool/core';
import { decodeOpenAIMessage, encodeOpenAIMessages } from '@yourtool/openai/codec';
import type OpenAI from 'openai';

export * from './codec/index.js';

/**
 * Encodes assistant content as it goes on the wire (tool ids under `rules`), then decodes that
 * wire message as a reply: the codec's round trip, for the conformance property test.
 */
export function roundTripCompatibleContent(
  content: ContentBlock[],
  toolIdMap: ToolIdMap,
  provider: string,
  rules?: ToolIdRules,
): ContentBlock[] {
  const message = createMessage({ session_id: 'sess_roundtrip', role: 'assistant', content });
  const [wire] = encodeOpenAIMessages(null, [message], {
    provider,
    toolIdMap,
    logger: { warn() {} },
    encodeReasoning: undefined,
    dropped: [],
    ...(rules ? { toolIdRules: rules } : {}),
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
