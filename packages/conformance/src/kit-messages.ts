import { createMessage, parseModelId } from '@yourtool/core';
import type { ScenarioKit } from './kit.js';

/** The message builders of the kit: messages of a scenario's session, as a session stores them. */
export function messageBuilders(
  model: string,
): Pick<ScenarioKit, 'user' | 'system' | 'assistant' | 'toolResult'> {
  return {
    user: (s, content) =>
      createMessage({
        session_id: s.session_id,
        role: 'user',
        content: typeof content === 'string' ? [{ type: 'text', text: content }] : content,
      }),
    system: (s, text) =>
      createMessage({
        session_id: s.session_id,
        role: 'system',
        content: [{ type: 'text', text }],
      }),
    assistant: (s, content, from = model, metadata = {}) =>
      createMessage({
        session_id: s.session_id,
        role: 'assistant',
        content,
        metadata: {
          model: from,
          provider: parseModelId(from).provider,
          routing: {
            mode: 'default',
            chosen_model: from,
            reason: 'conformance',
            alternatives_considered: [],
          },
          usage: {
            input_tokens: 1,
            output_tokens: 1,
            cached_input_tokens: 0,
            cache_creation_input_tokens: 0,
            cost_usd: '0',
            pricing_version: 'conformance',
            latency_ms: 1,
          },
          ...metadata,
        },
      }),
    toolResult: (s, tool_use_id, content, is_error = false) =>
      createMessage({
        session_id: s.session_id,
        role: 'tool',
        content: [{ type: 'tool_result', tool_use_id, content: content as never, is_error }],
        metadata: { parent_tool_use_id: tool_use_id },
      }),
  };
}
