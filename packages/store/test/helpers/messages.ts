import {
  createMessage,
  type Message,
  newToolUseId,
  toolResultBlock,
  type Usage,
} from '@yourtool/core';

export const MODEL = 'anthropic:claude-sonnet-4-6';

export function usage(overrides: Partial<Usage> = {}): Usage {
  return {
    input_tokens: 812,
    output_tokens: 64,
    cached_input_tokens: 0,
    cache_creation_input_tokens: 0,
    cost_usd: '0.003396',
    pricing_version: '2026-11-22',
    latency_ms: 940,
    ...overrides,
  };
}

export function userText(session_id: string, text: string): Message {
  return createMessage({ session_id, role: 'user', content: [{ type: 'text', text }] });
}

/** A complete assistant message calling the named tools (one tool use each). */
export function assistantWithTools(
  session_id: string,
  tools: Array<{ id?: string; name: string; input?: Record<string, unknown> }>,
  metadata: Partial<Message['metadata']> = {},
): Message {
  return createMessage({
    session_id,
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me check.' },
      ...tools.map((t) => ({
        type: 'tool_use' as const,
        id: t.id ?? newToolUseId(),
        name: t.name,
        input: t.input ?? {},
      })),
    ],
    metadata: {
      model: MODEL,
      provider: 'anthropic',
      routing: {
        mode: 'default',
        chosen_model: MODEL,
        reason: 'default',
        alternatives_considered: [],
      },
      usage: usage(),
      ...metadata,
    },
  });
}

/** The tool message answering `toolUseId`. */
export function toolAnswer(
  session_id: string,
  toolUseId: string,
  text: string,
  isError = false,
): Message {
  return createMessage({
    session_id,
    role: 'tool',
    content: [toolResultBlock(toolUseId, text, isError)],
    metadata: { parent_tool_use_id: toolUseId },
  });
}

/** The tool use ids of a message. */
export function toolUseIds(message: Message): string[] {
  return message.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
}
