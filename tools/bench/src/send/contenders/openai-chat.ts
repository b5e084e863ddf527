import { OpenAIAdapter } from '@yourtool/openai';
import OpenAI from 'openai';
import type { SendContender } from '../contender.js';

/** OpenAI Chat Completions: `OpenAIAdapter` against `client.chat.completions.create`. */
export const openAIChatContender: SendContender = {
  provider: 'openai-chat',
  model: 'openai:gpt-5',
  reply: {
    path: '/chat/completions',
    body: JSON.stringify({
      id: 'chatcmpl-send-bench',
      object: 'chat.completion',
      created: 0,
      model: 'gpt-5',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Done.' }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 120_000, completion_tokens: 2, total_tokens: 120_002 },
    }),
  },
  open(url) {
    const adapter = new OpenAIAdapter({ api_key: 'bench-key', base_url: `${url}/v1` });
    const client = new OpenAI({ apiKey: 'bench-key', baseURL: `${url}/v1`, maxRetries: 0 });
    return {
      ours: async (request, toolIdMap) => {
        const reply = await adapter.complete(request, { toolIdMap });
        return reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      },
      baseline: (body) => {
        const params = JSON.parse(body) as OpenAI.ChatCompletionCreateParamsNonStreaming;
        return async () => {
          const reply = await client.chat.completions.create(params);
          return reply.choices[0]?.message.content ?? '';
        };
      },
      entries: (body) => (JSON.parse(body) as { messages: unknown[] }).messages.length,
    };
  },
};
