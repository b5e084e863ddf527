import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  ContextOverflowError,
  createMessage,
  NetworkError,
  newRequestId,
  RateLimitError,
  ServerError,
  type StreamEvent,
} from '@yourtool/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BedrockAdapter } from '../src/index.js';
import { type AwsSandbox, awsSandbox } from './aws-env.js';

/**
 * The named wire cases (test/fixtures/wire, written from the documented wire format
 * and each parsed by the SDK in fixtures-parse.test.ts) played through the whole adapter and the
 * real SDK: what each one becomes in canonical terms.
 */

const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures/wire', import.meta.url)));
const MODEL = 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0';

let server: LoopbackServer;
let sandbox: AwsSandbox;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  sandbox = awsSandbox();
});
afterEach(() => sandbox.dispose());

/** An adapter on the loopback server (HTTP/1.1, which it speaks), the fixture queued. */
function play(name: string): BedrockAdapter {
  const fixture = fixtures[name];
  if (!fixture) throw new Error(`no wire fixture "${name}"`);
  server.enqueue(...fixture);
  return new BedrockAdapter({
    api_key: 'ABSKQmVkcm9ja0FQSUtleS13aXJlLWZpeHR1cmVzLTAwMDA',
    base_url: server.url,
    max_retries: 0,
    options: { region: 'us-east-1', http_version: '1.1' },
  });
}

const ask = (stream = false) => ({
  request_id: newRequestId(),
  model: MODEL,
  max_output_tokens: 256,
  stream,
  messages: [
    createMessage({
      session_id: 'sess_wire',
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
    }),
  ],
});

async function drain(events: AsyncIterable<StreamEvent>) {
  const seen: StreamEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
    return { seen, error: undefined as unknown };
  } catch (error) {
    return { seen, error };
  }
}

const completeOf = (seen: StreamEvent[]) => {
  const last = seen.at(-1);
  if (last?.type !== 'message.complete')
    throw new Error('the stream did not end with message.complete');
  return last;
};

const SIGNATURE = 'EqQBCkYIBxgCKkCqZ3uRBedrockWireSignature';

describe('reasoning', () => {
  it('signed reasoning, whole and streamed, comes back with its signature', async () => {
    const reply = await play('reasoning-signed').complete(ask());
    expect(reply.content[0]).toEqual({
      type: 'thinking',
      text: 'The user wants a greeting.',
      signature: SIGNATURE,
    });
    const { seen, error } = await drain(play('reasoning-signed-stream').stream(ask(true)));
    expect(error).toBeUndefined();
    expect(completeOf(seen).final_content).toEqual([
      { type: 'thinking', text: 'The user wants a greeting.', signature: SIGNATURE },
      { type: 'text', text: 'Hi!' },
    ]);
  });

  it('redacted reasoning becomes redacted_thinking holding its bytes as base64', async () => {
    const { seen } = await drain(play('reasoning-redacted-stream').stream(ask(true)));
    const redacted = completeOf(seen).final_content.find((b) => b.type === 'redacted_thinking');
    expect(redacted).toEqual({
      type: 'redacted_thinking',
      data: 'cmVkYWN0ZWQtcmVhc29uaW5nLWJ5dGVzLTAwMDE=',
    });
    const whole = await play('reasoning-redacted').complete(ask());
    expect(whole.content.some((b) => b.type === 'redacted_thinking')).toBe(true);
  });
});

describe('stops', () => {
  it.each(['guardrail-stop', 'content-filtered'])(
    '%s → refusal (whole and streamed)',
    async (name) => {
      expect((await play(name).complete(ask())).stop_reason).toBe('refusal');
      const { seen } = await drain(play(`${name}-stream`).stream(ask(true)));
      expect(completeOf(seen).stop_reason).toBe('refusal');
    },
  );

  it('model_context_window_exceeded ends the reply as max_tokens, its text kept', async () => {
    const { seen, error } = await drain(play('context-window-exceeded-stream').stream(ask(true)));
    expect(error).toBeUndefined();
    const complete = completeOf(seen);
    expect(complete.stop_reason).toBe('max_tokens');
    expect(complete.final_content).toEqual([{ type: 'text', text: 'The answer is' }]);
  });
});

describe('failures', () => {
  it('throttling over HTTP → RateLimitError', async () => {
    await expect(play('throttling').complete(ask())).rejects.toBeInstanceOf(RateLimitError);
  });

  it('context overflow (ValidationException text) → ContextOverflowError', async () => {
    await expect(play('context-overflow').complete(ask())).rejects.toBeInstanceOf(
      ContextOverflowError,
    );
  });

  it('throttling in the first frame fails the stream before any event', async () => {
    const { seen, error } = await drain(play('exception-first-frame').stream(ask(true)));
    expect(seen).toEqual([]);
    expect(error).toBeInstanceOf(RateLimitError);
  });

  it.each([
    ['throttling-in-stream', RateLimitError],
    ['model-stream-error-in-stream', ServerError],
    ['truncated-frame', NetworkError],
    ['stream-without-metadata', NetworkError],
  ] as const)(
    '%s: message.complete (error, partial text) first, then the error',
    async (name, type) => {
      const { seen, error } = await drain(play(name).stream(ask(true)));
      const complete = completeOf(seen);
      expect(complete.stop_reason).toBe('error');
      expect(complete.final_content).toEqual([
        { type: 'text', text: 'Hello! How can I help you today?' },
      ]);
      expect(error).toBeInstanceOf(type);
    },
  );
});

describe('stream details', () => {
  it('padding and an unknown event are ignored', async () => {
    const { seen, error } = await drain(play('padding-and-unknown-event-stream').stream(ask(true)));
    expect(error).toBeUndefined();
    expect(completeOf(seen).final_content).toEqual([
      { type: 'text', text: 'Hello! How can I help you today?' },
    ]);
  });

  it.each(['tool-call-no-input-stream', 'tool-call-empty-string-input-stream'])(
    '%s: an input-less tool call ends with {}',
    async (name) => {
      const { seen } = await drain(play(name).stream(ask(true)));
      const end = seen.find((e) => e.type === 'tool.use_end');
      expect(end?.type === 'tool.use_end' ? end.final_input : undefined).toEqual({});
      expect(completeOf(seen).stop_reason).toBe('tool_use');
    },
  );

  it('usage after messageStop: cache reads and writes apart from the base input', async () => {
    const { seen } = await drain(play('usage-cached-stream').stream(ask(true)));
    expect(completeOf(seen).usage).toMatchObject({
      input_tokens: 20,
      output_tokens: 4,
      cached_input_tokens: 1800,
      cache_creation_input_tokens: 300,
    });
  });
});
