import { createAnthropic as createAnthropicV4 } from '@ai-sdk/anthropic';
import { createMessage, newRequestId, newSessionId, type StreamEvent } from '@yourtool/core';
import {
  httpError,
  startScriptedProvider,
  text,
  thinking,
  toolCall,
  usage,
} from '@yourtool/testing';
import { createAnthropic as createAnthropicV3 } from 'anthropic6';
import { describe, expect, it, onTestFinished } from 'vitest';
import { AI_SDK_RAW_KEY, AiSdkAdapter, type RoundTrip } from '../src/index.js';

const MODELS = [
  {
    spec: 'v4',
    create: (url: string) =>
      createAnthropicV4({ apiKey: 'test-key', baseURL: `${url}/v1` })('claude-sonnet-4-6'),
  },
  {
    spec: 'v3',
    create: (url: string) =>
      createAnthropicV3({ apiKey: 'test-key', baseURL: `${url}/v1` })('claude-sonnet-4-6'),
  },
];

const ask = (question: string) => ({
  request_id: newRequestId(),
  model: 'aisdk:claude-sonnet-4-6',
  max_output_tokens: 512,
  messages: [
    createMessage({
      session_id: newSessionId(),
      role: 'user',
      content: [{ type: 'text', text: question }],
    }),
  ],
});

describe.each(MODELS)(
  'the real @ai-sdk/anthropic model of specification $spec as our adapter',
  ({ spec, create }) => {
    it('streams thinking, text and a tool call, with exact usage and the round-trip data stored', async () => {
      const provider = await startScriptedProvider();
      onTestFinished(() => provider.close());
      const model = create(provider.url);
      expect(model.specificationVersion).toBe(spec);
      const adapter = new AiSdkAdapter(model, { config: { api_key: 'test-key', max_retries: 0 } });
      provider.reply(
        thinking('Hmm.', { signature: 'sig-v' }),
        text('Let me check.'),
        toolCall('lookup', { word: 'hi' }, { chunks: 2 }),
        usage({
          input_tokens: 50,
          output_tokens: 9,
          cached_input_tokens: 20,
          cache_creation_input_tokens: 4,
        }),
      );
      const events: StreamEvent[] = [];
      const request = {
        ...ask('hi?'),
        tools: [
          {
            name: 'lookup',
            description: 'Looks up.',
            input_schema: { type: 'object' },
            side_effects: 'read' as const,
          },
        ],
        stream: true,
      };
      for await (const event of adapter.stream(request)) events.push(event);
      const done = events.at(-1);
      if (done?.type !== 'message.complete') throw new Error('no message.complete');
      expect(done.stop_reason).toBe('tool_use');
      expect(done.final_content.map((block) => block.type)).toEqual([
        'thinking',
        'text',
        'tool_use',
      ]);
      expect(done.final_content[0]).toMatchObject({ text: 'Hmm.', signature: 'sig-v' });
      expect(done.usage).toMatchObject({
        input_tokens: 50,
        output_tokens: 9,
        cached_input_tokens: 20,
        cache_creation_input_tokens: 4,
      });
      const raw = done.provider_raw?.[AI_SDK_RAW_KEY] as RoundTrip;
      expect(raw.model).toBe('claude-sonnet-4-6');
      expect(raw.blocks['0']).toEqual({ anthropic: { signature: 'sig-v' } });
      await adapter.close();
    });

    it('maps a rate limit with its retry hint, and never quotes the key', async () => {
      const provider = await startScriptedProvider();
      onTestFinished(() => provider.close());
      const adapter = new AiSdkAdapter(create(provider.url), {
        config: { api_key: 'test-key', max_retries: 0 },
      });
      provider.reply(httpError(429, { retryAfterSeconds: 3 }));
      const error = (await adapter.complete(ask('again')).catch((caught: unknown) => caught)) as {
        error_class: string;
        retry_after_seconds: number | null;
        message: string;
      };
      expect(error.error_class).toBe('rate_limit');
      expect(error.retry_after_seconds).toBe(3);
      expect(error.message).not.toContain('test-key');
      expect(provider.requests).toHaveLength(1);
    });
  },
);
