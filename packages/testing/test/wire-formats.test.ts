import { type AdapterError, assertStreamInvariants, type ProviderAdapter } from '@yourtool/core';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  chunkDelay,
  contextOverflow,
  httpError,
  overloaded,
  redactedThinking,
  reset,
  type ScriptedProvider,
  stall,
  startScriptedProvider,
  stopReason,
  text,
  thinking,
  toolCall,
  usage,
} from '../src/index.js';
import { ADAPTERS, collect, completion, READ_FILE, request, STALL_DEADLINES } from './adapters.js';

let provider: ScriptedProvider;
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterAll(() => provider.close());
afterEach(() => provider.clear());

describe.each(ADAPTERS)('through the real $name adapter', (adapterCase) => {
  const { model } = adapterCase;
  let adapter: ProviderAdapter;
  beforeAll(() => {
    adapter = adapterCase.create(provider.url);
  });
  afterAll(() => adapter.close());

  it('text: streamed in the scripted chunks, whole when not streamed, with its usage', async () => {
    const counts = usage({ input_tokens: 12, output_tokens: 4, cached_input_tokens: 30 });
    provider.reply(text('Hello there, friend!', { chunks: 3 }), counts);
    const { events, error } = await collect(adapter, request(model, 'Say hello.'));
    expect(error).toBeUndefined();
    assertStreamInvariants(events);
    const deltas = events.flatMap((e) => (e.type === 'text.delta' ? [e.text] : []));
    expect(deltas).toEqual(['Hello t', 'here, f', 'riend!']);
    const done = completion(events);
    expect(done.final_content).toEqual([{ type: 'text', text: 'Hello there, friend!' }]);
    expect(done.stop_reason).toBe('end_turn');
    expect(done.usage).toMatchObject(
      adapterCase.reportsCachedTokens
        ? { input_tokens: 12, output_tokens: 4, cached_input_tokens: 30 }
        : { input_tokens: 42, output_tokens: 4, cached_input_tokens: 0 },
    );

    provider.reply(text('Whole.'));
    const whole = await adapter.complete(request(model, 'Again.'));
    expect(whole.content).toEqual([{ type: 'text', text: 'Whole.' }]);
    const [streamed, complete] = provider.requests;
    expect([streamed?.format, streamed?.stream, complete?.stream]).toEqual([
      adapterCase.format,
      true,
      false,
    ]);
    expect(complete?.lastUserText).toBe('Again.');
  });

  it('tool call: name and input arrive, fragments where the wire streams them', async () => {
    const input = { path: 'README.md', options: { lines: [1, 2], deep: { ok: true, n: null } } };
    provider.reply(text("I'll read it."), toolCall('read_file', input, { chunks: 3 }));
    const { events, error } = await collect(
      adapter,
      request(model, 'Read the README.', { tools: [READ_FILE] }),
    );
    expect(error).toBeUndefined();
    assertStreamInvariants(events);
    const done = completion(events);
    expect(done.stop_reason).toBe('tool_use');
    expect(done.final_content).toMatchObject([
      { type: 'text', text: "I'll read it." },
      { type: 'tool_use', name: 'read_file', input },
    ]);
    const fragments = events.filter((e) => e.type === 'tool.use_input_delta');
    if (adapterCase.toolFragments) expect(fragments).toHaveLength(3);
    else expect(fragments.length).toBeLessThanOrEqual(1);
    expect(provider.requests[0]?.tools).toEqual(['read_file']);
  });

  if (adapterCase.noThinking) {
    // printed while collecting (not inside a test), so the skip is visible in the run's output
    console.info(`[testing] ${adapterCase.name}: skipping thinking: ${adapterCase.noThinking}`);
  }
  it.skipIf(adapterCase.noThinking !== undefined)(
    `thinking: reasoning text${adapterCase.noThinking ? ` (skipped: ${adapterCase.noThinking})` : ''}`,
    async () => {
      provider.reply(
        thinking('The user wants a greeting.', { chunks: 2, signature: 'sig-Testing-0001' }),
        ...(adapterCase.redactedThinking ? [redactedThinking('opaque-Testing-0001')] : []),
        text('Hi!'),
      );
      const { events, error } = await collect(adapter, request(model, 'Greet me.'));
      expect(error).toBeUndefined();
      assertStreamInvariants(events);
      const thoughts = events.flatMap((e) => (e.type === 'thinking.delta' ? [e.text] : []));
      expect(thoughts.join('')).toBe('The user wants a greeting.');
      const content = completion(events).final_content;
      expect(content[0]).toMatchObject({ type: 'thinking', text: 'The user wants a greeting.' });
      const signature = content[0]?.type === 'thinking' ? content[0].signature : undefined;
      if (adapterCase.signedThinking) expect(signature).toBe('sig-Testing-0001');
      else expect(signature ?? null).toBeNull();
      if (adapterCase.redactedThinking) {
        expect(content[1]).toEqual({ type: 'redacted_thinking', data: 'opaque-Testing-0001' });
      }
      expect(content.at(-1)).toEqual({ type: 'text', text: 'Hi!' });
    },
  );

  it('error status: 429 with its retry hint, 401, 500, overload and context overflow', async () => {
    const failure = async () => {
      const caught = await adapter.complete(request(model, 'Hello?')).catch((e: unknown) => e);
      return caught as AdapterError & { retry_after_seconds?: number | null };
    };
    provider.reply(httpError(429, { retryAfterSeconds: 2 }));
    const limited = await failure();
    expect([limited.error_class, limited.provider_status]).toEqual(['rate_limit', 429]);
    expect(limited.retry_after_seconds).toBe(2);

    provider.reply(httpError(401));
    expect((await failure()).error_class).toBe('auth');
    provider.reply(httpError(500));
    expect((await failure()).error_class).toBe('server_error');
    provider.reply(overloaded());
    const busy = await failure();
    expect(busy.retryable).toBe(true);
    expect(busy.provider_status).toBe(adapterCase.format === 'anthropic' ? 529 : 503);
    provider.reply(contextOverflow());
    expect((await failure()).error_class).toBe('context_overflow');
  });

  it('stall: headers then silence ends on the overall deadline; silence mid-stream on the idle one, or by cancelling', async () => {
    // the deadlines are what this test waits for: short ones keep it quick
    const adapter = adapterCase.create(provider.url, STALL_DEADLINES);
    onTestFinished(() => adapter.close());
    provider.reply(stall());
    const silent = await collect(adapter, request(model, 'Hello?'));
    expect(silent.events).toEqual([]);
    expect((silent.error as AdapterError).error_class).toBe('network');

    provider.reply(stall(text('Hel')));
    const idle = await collect(adapter, request(model, 'Hello?'));
    expect((idle.error as AdapterError).error_class).toBe('network');
    expect(completion(idle.events)).toMatchObject({
      stop_reason: 'error',
      final_content: [{ type: 'text', text: 'Hel' }],
    });

    provider.reply(stall(text('Hel')));
    const controller = new AbortController();
    const cancelled = await collect(
      adapter,
      request(model, 'Hello?'),
      { signal: controller.signal },
      (event) => {
        if (event.type === 'text.delta') controller.abort();
      },
    );
    expect(cancelled.error).toBeUndefined();
    expect(completion(cancelled.events)).toMatchObject({
      stop_reason: 'cancelled',
      final_content: [{ type: 'text', text: 'Hel' }],
    });
    await expect.poll(() => provider.requests[2]?.aborted).toBe(true);
  });

  it('stop reason and pacing: a reply cut at max_tokens, its chunks spaced out', async () => {
    provider.reply(text('Cut short', { chunks: 2 }), stopReason('max_tokens'), chunkDelay(20));
    const started = Date.now();
    const { events, error } = await collect(adapter, request(model, 'Go on.'));
    expect(error).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(20);
    expect(completion(events)).toMatchObject({
      stop_reason: 'max_tokens',
      final_content: [{ type: 'text', text: 'Cut short' }],
    });
  });

  it('reset: before any answer, and mid-stream after partial text', async () => {
    provider.reply(reset());
    const before = await collect(adapter, request(model, 'Hello?'));
    expect(before.events).toEqual([]);
    expect((before.error as AdapterError).error_class).toBe('network');

    provider.reply(reset(text('Partial ', { chunks: 1 })));
    const mid = await collect(adapter, request(model, 'Hello?'));
    expect((mid.error as AdapterError).error_class).toBe('network');
    const done = completion(mid.events);
    expect(done.stop_reason).toBe('error');
    expect(done.final_content).toEqual([{ type: 'text', text: 'Partial ' }]);
  });
});
