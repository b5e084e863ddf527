import { OpenAIResponsesAdapter } from '@yourtool/openai';
import OpenAI from 'openai';
import type { SendContender } from '../contender.js';

/** OpenAI Responses: `OpenAIResponsesAdapter` against `client.responses.create`. */
export const openAIResponsesContender: SendContender = {
  provider: 'openai-responses',
  model: 'openai:gpt-5',
  reply: {
    path: '/responses',
    body: JSON.stringify({
      id: 'resp_send_bench',
      object: 'response',
      created_at: 0,
      status: 'completed',
      model: 'gpt-5',
      output: [
        {
          id: 'msg_send_bench',
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Done.', annotations: [] }],
        },
      ],
      usage: { input_tokens: 120_000, output_tokens: 2, total_tokens: 120_002 },
    }),
  },
  open(url) {
    const adapter = new OpenAIResponsesAdapter({ api_key: 'bench-key', base_url: `${url}/v1` });
    const client = new OpenAI({ apiKey: 'bench-key', baseURL: `${url}/v1`, maxRetries: 0 });
    return {
      ours: async (request, toolIdMap) => {
        const reply = await adapter.complete(request, { toolIdMap });
        return reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      },
      baseline: (body) => {
        const params = JSON.parse(body) as OpenAI.Responses.ResponseCreateParamsNonStreaming;
        return async () => {
          const reply = await client.responses.create(params);
          return reply.output_text;
        };
      },
      entries: (body) => (JSON.parse(body) as { input: unknown[] }).input.length,
    };
  },
};
