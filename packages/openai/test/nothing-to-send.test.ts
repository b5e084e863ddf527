import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import {
  type AdapterError,
  createMemoryLogger,
  InvalidRequestError,
  type Message,
  newRequestId,
} from '@yourtool/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenAIAdapter } from '../src/index.js';
import { assistant, text, user } from './helpers.js';

/**
 * A history that leaves nothing to send once what the Responses API cannot take is removed is
 * refused before anything is sent, with the error core's `prepareHistory` raises when a history
 * is empty from the start (issue 24, item 3).
 */

const GPT = 'openai:gpt-5';
let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

/** The body of the last request the loopback server recorded. */
function lastBody(): unknown {
  const recorded = server.requests.at(-1);
  if (!recorded) throw new Error('no request reached the server');
  return recorded.body;
}
beforeEach(() => server.reset());

const refusal = async (messages: Message[]) => {
  const logger = createMemoryLogger();
  const adapter = new OpenAIAdapter(
    { api_key: 'sk-test-0000000000000000', base_url: server.url, options: { api: 'responses' } },
    { logger },
  );
  const error = await adapter
    .complete({ request_id: newRequestId(), model: GPT, max_output_tokens: 256, messages })
    .then(
      () => null,
      (e: unknown) => e as AdapterError,
    );
  await adapter.close();
  return { error, logger };
};

describe('Responses API: a history with nothing left to send', () => {
  it('a blank user message and unsigned reasoning is refused like an empty history, with nothing sent', async () => {
    const { error, logger } = await refusal([
      user(text('   ')),
      assistant([{ type: 'thinking', text: 'Reasoning with no encrypted content.' }], GPT),
    ]);
    const { error: empty } = await refusal([user(text('  '))]);

    expect(server.requests, 'input: [] must never reach the API').toHaveLength(0);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(empty).toBeInstanceOf(InvalidRequestError);
    expect(error?.message).toMatch(/^nothing to send to openai:gpt-5: /);
    expect(empty?.message).toMatch(/^nothing to send to openai:gpt-5: /);
    expect(error?.message).toContain('thinking');
    expect({ class: error?.error_class, retryable: error?.retryable }).toEqual({
      class: empty?.error_class,
      retryable: empty?.retryable,
    });
    // the reasoning was dropped with its WARN before the refusal
    expect(
      logger
        .warnings()
        .filter((w) => w.obj.event === 'block_dropped')
        .map((w) => w.obj.block_type),
    ).toEqual(['thinking']);
  });

  it('still sends a history where something is left', async () => {
    server.enqueue({
      type: 'json',
      body: {
        id: 'resp_left',
        object: 'response',
        created_at: 1763800000,
        status: 'completed',
        model: 'gpt-5-2025-08-07',
        output: [
          {
            id: 'msg_left',
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'Hi.', annotations: [] }],
          },
        ],
        usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
      },
    });
    const { error } = await refusal([
      user(text('   ')),
      assistant([{ type: 'thinking', text: 'Unsigned.' }], GPT),
      user(text('Hello?')),
    ]);
    expect(error).toBeNull();
    expect((lastBody() as { input: unknown[] }).input).toEqual([
      { role: 'user', content: 'Hello?' },
    ]);
  });
});
