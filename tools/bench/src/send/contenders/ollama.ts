import { OllamaAdapter } from '@yourtool/ollama';
import { type ChatRequest, Ollama } from 'ollama/browser';
import type { SendContender } from '../contender.js';

/** The model's capabilities as `/api/show` would report them: tools and images, a long window. */
const CAPABILITIES = {
  supports_tools: true,
  supports_images: true,
  max_context_tokens: 2_000_000,
} as const;

/** Ollama: `OllamaAdapter` against the `ollama` client's `chat` (`stream: false`). */
export const ollamaContender: SendContender = {
  provider: 'ollama',
  model: 'ollama:qwen3:8b',
  reply: {
    path: '/api/chat',
    body: JSON.stringify({
      model: 'qwen3:8b',
      created_at: '2026-11-27T00:00:00Z',
      message: { role: 'assistant', content: 'Done.' },
      done: true,
      done_reason: 'stop',
      prompt_eval_count: 120_000,
      eval_count: 2,
    }),
  },
  open(url) {
    const adapter = new OllamaAdapter(
      { base_url: url, max_retries: 0, options: { detect_capabilities: false } },
      { capabilityOverrides: { 'ollama:qwen3:8b': CAPABILITIES } },
    );
    const client = new Ollama({ host: url });
    return {
      ours: async (request, toolIdMap) => {
        const reply = await adapter.complete(request, { toolIdMap });
        return reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      },
      baseline: (body) => {
        const params = JSON.parse(body) as ChatRequest & { stream: false };
        return async () => {
          const reply = await client.chat({ ...params, stream: false });
          return reply.message.content;
        };
      },
      entries: (body) => (JSON.parse(body) as { messages: unknown[] }).messages.length,
    };
  },
};
