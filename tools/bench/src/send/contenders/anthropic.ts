import Anthropic from '@anthropic-ai/sdk';
import { AnthropicAdapter } from '@yourtool/anthropic';
import type { SendContender } from '../contender.js';

/** Anthropic: `AnthropicAdapter` against the SDK's `client.messages.create`. */
export const anthropicContender: SendContender = {
  provider: 'anthropic',
  model: 'anthropic:claude-sonnet-4-6',
  reply: {
    path: '/v1/messages',
    body: JSON.stringify({
      id: 'msg_send_bench',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [{ type: 'text', text: 'Done.' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 120_000, output_tokens: 2 },
    }),
  },
  open(url) {
    const adapter = new AnthropicAdapter({ api_key: 'bench-key', base_url: url, max_retries: 0 });
    const client = new Anthropic({ apiKey: 'bench-key', baseURL: url, maxRetries: 0 });
    return {
      ours: async (request, toolIdMap) => {
        const reply = await adapter.complete(request, { toolIdMap });
        return reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      },
      baseline: (body) => {
        const params = JSON.parse(body) as Anthropic.MessageCreateParamsNonStreaming;
        return async () => {
          const reply = await client.messages.create(params);
          return reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
        };
      },
      // a turn merges same-role messages: each tool result stands for its tool message
      entries: (body) =>
        (JSON.parse(body) as { messages: Array<{ content: unknown }> }).messages.reduce(
          (n, turn) =>
            n +
            Math.max(
              1,
              Array.isArray(turn.content)
                ? turn.content.filter((b: { type?: string }) => b.type === 'tool_result').length
                : 0,
            ),
          0,
        ),
    };
  },
};
