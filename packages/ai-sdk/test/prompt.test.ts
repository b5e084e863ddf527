import { InvalidRequestError, newRequestId, newSessionId } from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import { finishReasonOf, promptToCanonical, usageToAiSdk } from '../src/model/index.js';

const context = () => ({
  session_id: newSessionId(),
  model: 'anthropic:claude-sonnet-4-6',
  request_id: newRequestId(),
});

describe('an AI SDK prompt as canonical messages', () => {
  it('joins system messages, keeps reasoning signatures and splits tool results one a message', () => {
    const prompt = promptToCanonical(
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'system', content: 'Answer in English.' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        {
          role: 'assistant',
          content: [
            {
              type: 'reasoning',
              text: 'think',
              providerOptions: { yourtool: { signature: 's1' } },
            },
            {
              type: 'reasoning',
              text: '',
              providerOptions: { yourtool: { redactedData: 'opaque' } },
            },
            { type: 'tool-call', toolCallId: 'tu_1', toolName: 'a', input: { x: 1 } },
            { type: 'tool-call', toolCallId: 'tu_2', toolName: 'b', input: {} },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'tu_1',
              toolName: 'a',
              output: { type: 'json', value: { ok: true } },
            },
            {
              type: 'tool-result',
              toolCallId: 'tu_2',
              toolName: 'b',
              output: { type: 'execution-denied' },
            },
          ],
        },
      ],
      context(),
    );
    expect(prompt.system_prompt).toBe('Be brief.\n\nAnswer in English.');
    expect(prompt.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
    ]);
    expect(prompt.messages[1]?.metadata.model).toBe('anthropic:claude-sonnet-4-6');
    expect(prompt.messages[1]?.content.slice(0, 2)).toEqual([
      { type: 'thinking', text: 'think', signature: 's1' },
      { type: 'redacted_thinking', data: 'opaque' },
    ]);
    expect(prompt.messages[2]?.content[0]).toMatchObject({
      tool_use_id: 'tu_1',
      is_error: false,
      content: [{ type: 'text', text: '{"ok":true}' }],
    });
    expect(prompt.messages[3]?.content[0]).toMatchObject({ tool_use_id: 'tu_2', is_error: true });
  });

  it('refuses a file that is not an image, naming the part', () => {
    const call = () =>
      promptToCanonical(
        [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'read' },
              { type: 'file', mediaType: 'application/pdf', data: { type: 'data', data: 'JVBER' } },
            ],
          },
        ],
        context(),
      );
    expect(call).toThrow(InvalidRequestError);
    expect(call).toThrow(
      /prompt\[0\]\.content\[1\]: only images are accepted as files, got application\/pdf/,
    );
  });
});

describe('usage and finish reasons for the AI SDK', () => {
  it('adds the cache counts to the input total and splits reasoning from text', () => {
    expect(
      usageToAiSdk({
        input_tokens: 10,
        output_tokens: 7,
        cached_input_tokens: 5,
        cache_creation_input_tokens: 2,
        reasoning_tokens: 3,
      }),
    ).toEqual({
      inputTokens: { total: 17, noCache: 10, cacheRead: 5, cacheWrite: 2 },
      outputTokens: { total: 7, text: 4, reasoning: 3 },
    });
    expect(finishReasonOf('max_tokens')).toEqual({ unified: 'length', raw: 'max_tokens' });
    expect(finishReasonOf('refusal').unified).toBe('content-filter');
  });
});
