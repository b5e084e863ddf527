import { AnthropicAdapter } from '@yourtool/anthropic';
import type { ScriptedResponse } from '@yourtool/conformance';
import { OutputSchemaError, OutputValidationError } from '@yourtool/core';
import { MemorySessionStore } from '@yourtool/core/memory-store';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { InvalidSendOptionError, type SessionEvent, SessionManager } from '../src/index.js';
import { collect, loopbackForFile } from './helpers.js';

// Issue 45 at the session: a zod schema types the result's object; a refusal is reported as
// one and never repaired; options that cannot work are refused before anything is stored.

const loopback = loopbackForFile();

/** A Messages API stream of `deltas` as one text block, ending with `stop`. */
function textStream(deltas: string[], stop = 'end_turn'): ScriptedResponse {
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const usage = { input_tokens: 40, output_tokens: 12 };
  const details =
    stop === 'refusal' ? { type: 'refusal', category: 'cyber', explanation: 'Not that.' } : null;
  return {
    type: 'stream',
    contentType: 'text/event-stream',
    chunks: [
      event('message_start', {
        message: {
          id: 'msg_01StructuredSession0001',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-6',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage,
        },
      }),
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      ...deltas.map((text) =>
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
      ),
      event('content_block_stop', { index: 0 }),
      event('message_delta', {
        delta: { stop_reason: stop, stop_sequence: null, stop_details: details },
        usage: { output_tokens: 12 },
      }),
      event('message_stop', {}),
    ],
  };
}

function manager(): { manager: SessionManager; store: MemorySessionStore } {
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-structured-test-0000, base_url: ${loopback.server.url}, max_retries: 0 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`,
    { factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) } },
  );
  const store = new MemorySessionStore();
  const router = new Router({ registry, config: parseRoutingConfig('global_default: sonnet') });
  return { manager: new SessionManager({ store, router, pricing: defaultPriceTable() }), store };
}

const Person = z.object({ name: z.string(), age: z.number().int().min(0) });

describe('SessionManager with output', () => {
  it('types the object from a zod schema and streams partials whose last equals it', async () => {
    const { manager: sessions } = manager();
    const session = await sessions.createSession({ workspace_path: '/w' });
    loopback.server.enqueue(textStream(['{"na', 'me": "Ada', ' L."', ', "age": 3', '6}']));
    const events: SessionEvent[] = [];
    for await (const event of sessions.send(session.id, 'Who?', { output: Person })) {
      events.push(event);
    }
    const partials = events.flatMap((e) => (e.type === 'object.partial' ? [e.value] : []));
    expect(partials).toEqual([
      {},
      { name: 'Ada' },
      { name: 'Ada L.' },
      { name: 'Ada L.', age: 3 },
      { name: 'Ada L.', age: 36 },
    ]);
    // the JSON deltas became the partials: no text.delta reached the consumer
    expect(events.some((e) => e.type === 'text.delta')).toBe(false);
    // natively: the schema went out as Claude's structured-output parameter
    expect(JSON.stringify(loopback.server.requests[0]?.body)).toContain('"age"');

    loopback.server.enqueue(textStream(['{"name": "Grace", "age": 85}']));
    const typed = await sessions.sendAndWait(session.id, 'And?', { output: Person });
    expectTypeOf(typed.object).toEqualTypeOf<{ name: string; age: number } | undefined>();
    expect(typed.object).toEqual({ name: 'Grace', age: 85 });
  });

  it('reports a refusal as a refusal, and does not repair it', async () => {
    const { manager: sessions, store } = manager();
    const session = await sessions.createSession({ workspace_path: '/w' });
    loopback.server.enqueue(textStream(["I can't help with that."], 'refusal'));
    const { events, error } = await collect(
      sessions.send(session.id, 'Who?', { output: Person, outputRepair: { maxAttempts: 3 } }),
    );
    expect(error).toBeInstanceOf(OutputValidationError);
    expect(error).toMatchObject({ code: 'output_refused', stop_reason: 'refusal' });
    expect((error as OutputValidationError).refusal).toBeTruthy();
    expect(events.find((e) => e.type === 'object.invalid')).toMatchObject({ will_repair: false });
    expect(loopback.server.requests).toHaveLength(1);
    const stored = (await store.loadMessages(session.id)).messages.at(-1);
    expect(stored?.metadata.structured_output).toMatchObject({ valid: false, refused: true });
  });

  it('refuses options that cannot work before anything is stored', async () => {
    const { manager: sessions, store } = manager();
    const session = await sessions.createSession({ workspace_path: '/w' });
    const tries: Array<[Parameters<SessionManager['sendAndWait']>[2], unknown, RegExp]> = [
      [{ output: Person, outputRepair: { maxAttempts: 4 } }, InvalidSendOptionError, /1 to 3/],
      [{ outputRepair: { maxAttempts: 2 } }, InvalidSendOptionError, /needs `output`/],
      [{ output: Person, output_schema: { type: 'object' } }, InvalidSendOptionError, /not both/],
      [{ output: { type: 'nonsense-type' } }, OutputSchemaError, /not a valid JSON Schema/],
    ];
    for (const [options, kind, message] of tries) {
      const thrown = await sessions.sendAndWait(session.id, 'Hi', options).catch((e: unknown) => e);
      expect(thrown).toBeInstanceOf(kind);
      expect((thrown as Error).message).toMatch(message);
    }
    expect((await store.loadMessages(session.id)).messages).toEqual([]);
    expect(loopback.server.requests).toHaveLength(0);
  });
});
