import type { AdapterError, ProviderAdapter } from '@yourtool/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  httpError,
  message,
  type RecordedRequest,
  type ScriptedProvider,
  startScriptedProvider,
  text,
  toolCall,
  usage,
} from '../src/index.js';
import { ADAPTERS, READ_FILE, request } from './adapters.js';

let provider: ScriptedProvider;
let anthropic: ProviderAdapter;
let gemini: ProviderAdapter;
const adapterNamed = (name: string) => {
  const found = ADAPTERS.find((c) => c.name === name);
  if (!found) throw new Error(`no adapter case ${name}`);
  return found;
};
beforeAll(async () => {
  provider = await startScriptedProvider({ replyTimeoutMs: 200 });
  anthropic = adapterNamed('anthropic').create(provider.url);
  gemini = adapterNamed('google').create(provider.url);
});
afterAll(async () => {
  await anthropic.close();
  await gemini.close();
  await provider.close();
});
afterEach(() => {
  provider.clear();
  provider.whenUnscripted(null);
});

describe('a reply function of the request', () => {
  it('answers from what the request carried, in its wire format', async () => {
    const seen: RecordedRequest[] = [];
    const echo = (req: RecordedRequest) => {
      seen.push(req);
      return text(`You said "${req.lastUserText}" to ${req.model}`);
    };
    provider.reply(echo).reply(echo);
    const one = await anthropic.complete(request('anthropic:claude-sonnet-4-6', 'hi'));
    const two = await gemini.complete(request('google:gemini-2.5-flash', 'hello'));
    expect(one.content).toEqual([{ type: 'text', text: 'You said "hi" to claude-sonnet-4-6' }]);
    expect(two.content).toEqual([{ type: 'text', text: 'You said "hello" to gemini-2.5-flash' }]);
    expect(seen.map((r) => r.format)).toEqual(['anthropic', 'gemini']);
    expect(provider.requests[0]?.reply).toMatchObject({ kind: 'message' });
  });

  it('may be async, and return a list of parts or a whole reply', async () => {
    provider
      .reply(async (req) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        return req.tools.includes('read_file')
          ? [
              text('Reading.'),
              toolCall('read_file', { path: 'x' }),
              usage({ input_tokens: 7, output_tokens: 2 }),
            ]
          : text('no tools');
      })
      .reply(() => httpError(429, { retryAfterSeconds: 1 }))
      .reply(() => message(text('whole')));
    const called = await anthropic.complete(
      request('anthropic:claude-sonnet-4-6', 'read x', { tools: [READ_FILE] }),
    );
    expect(called.content).toMatchObject([
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', name: 'read_file', input: { path: 'x' } },
    ]);
    expect(called.usage).toMatchObject({ input_tokens: 7, output_tokens: 2 });
    const limited = (await anthropic
      .complete(request('anthropic:claude-sonnet-4-6', 'again'))
      .catch((e: unknown) => e)) as AdapterError;
    expect(limited.error_class).toBe('rate_limit');
    const whole = await anthropic.complete(request('anthropic:claude-sonnet-4-6', 'again'));
    expect(whole.content).toEqual([{ type: 'text', text: 'whole' }]);
  });

  it('a function that throws or never settles answers 500 naming the cause', async () => {
    provider
      .reply(() => {
        throw new Error('the test fixture is broken');
      })
      .reply(() => new Promise<never>(() => {}));
    const thrown = (await anthropic
      .complete(request('anthropic:claude-sonnet-4-6', 'x'))
      .catch((e: unknown) => e)) as AdapterError;
    expect(thrown.provider_status).toBe(500);
    expect(thrown.provider_message).toContain('the test fixture is broken');
    const hung = (await anthropic
      .complete(request('anthropic:claude-sonnet-4-6', 'x'))
      .catch((e: unknown) => e)) as AdapterError;
    expect(hung.provider_message).toContain('did not settle within 200 ms');
  });

  it('whenUnscripted answers every request the queue has nothing for', async () => {
    provider.reply(text('scripted'));
    provider.whenUnscripted((req) => text(`default for ${req.lastUserText}`));
    const texts: string[] = [];
    for (const input of ['a', 'b', 'c']) {
      const reply = await anthropic.complete(request('anthropic:claude-sonnet-4-6', input));
      texts.push(reply.content[0]?.type === 'text' ? reply.content[0].text : '');
    }
    expect(texts).toEqual(['scripted', 'default for b', 'default for c']);
    expect(provider.requests.every((r) => !r.unscripted)).toBe(true);
  });

  it('reply() refuses a mix of parts and whole replies', () => {
    expect(() =>
      provider.reply(text('a'), httpError(500) as unknown as ReturnType<typeof text>),
    ).toThrow(/either the parts of one message/);
    expect(() => text('a', { chunks: 0 })).toThrow(/chunks must be a positive integer/);
    expect(() => httpError(200)).toThrow(/400-599/);
  });
});
