import {
  checkStreamInvariants,
  createMemoryLogger,
  type StreamEvent,
  ToolIdMap,
} from '@yourtool/core';
import { StreamBuilder } from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import {
  createOpenAIStreamMapper,
  decodeOpenAIContent,
  decodeOpenAIMessage,
  fromOpenAIChatCompletion,
  mapOpenAIUsage,
  type OPENAI_STREAM_END,
} from '../src/codec.js';

// Codec-level checks of issue 23's Chat Completions cases; the same cases go through the SDK on
// the loopback server in fidelity-adapter.test.ts and the conformance fixtures.

type Complete = Extract<StreamEvent, { type: 'message.complete' }>;

const chunk = (
  delta: Record<string, unknown> | null,
  extra: { finish_reason?: string; model?: string; usage?: OpenAI.CompletionUsage } = {},
): OpenAI.ChatCompletionChunk =>
  ({
    id: 'chatcmpl-f',
    object: 'chat.completion.chunk',
    created: 1,
    model: extra.model ?? 'gpt-5-2025-08-07',
    choices:
      delta === null
        ? []
        : [{ index: 0, delta, finish_reason: extra.finish_reason ?? null, logprobs: null }],
    ...(extra.usage ? { usage: extra.usage } : {}),
  }) as OpenAI.ChatCompletionChunk;

const usage = { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 };

/** Runs chunks through the mapper on a builder configured as the chat adapter configures it. */
function run(
  items: Array<OpenAI.ChatCompletionChunk | typeof OPENAI_STREAM_END>,
  options: Partial<Parameters<typeof createOpenAIStreamMapper>[0]> = {},
) {
  const builder = new StreamBuilder({
    request_id: 'req_f',
    model: 'openai:gpt-5',
    provider: 'openai',
    toolCallsEndAtFinish: true,
  });
  const map = createOpenAIStreamMapper({ toolIdMap: new ToolIdMap(), ...options });
  const events: StreamEvent[] = [builder.start()];
  for (const item of items) if (!builder.finished) events.push(...map(item, builder));
  checkStreamInvariants(events);
  return { events, done: events.at(-1) as Complete };
}

const call = (index: number, fn: Record<string, string>, id?: string) => ({
  tool_calls: [{ index, ...(id ? { id, type: 'function' } : {}), function: fn }],
});

describe('interleaved tool fragments (Chat Completions stream)', () => {
  it('folds a fragment that arrives after the next call began into its own call', () => {
    const { events, done } = run([
      chunk(call(0, { name: 'read_file', arguments: '{"path":"REA' }, 'call_a')),
      chunk(call(1, { name: 'read_file', arguments: '' }, 'call_b')),
      chunk(call(1, { arguments: '{"path":"LICENSE"}' })),
      chunk(call(0, { arguments: 'DME.md"}' })),
      chunk({}, { finish_reason: 'tool_calls' }),
      chunk(null, { usage }),
    ]);
    const ends = events.filter((e) => e.type === 'tool.use_end');
    expect(ends.map((e) => [e.content_block_index, e.final_input])).toEqual([
      [0, { path: 'README.md' }],
      [1, { path: 'LICENSE' }],
    ]);
    expect(done.stop_reason).toBe('tool_use');
    expect(done.final_content.map((b) => b.type === 'tool_use' && b.input)).toEqual([
      { path: 'README.md' },
      { path: 'LICENSE' },
    ]);
  });

  it('ends every call once, at the finish, even when a later index opened first', () => {
    const { events } = run([
      chunk(call(1, { name: 'read_file', arguments: '{"path":"B"}' }, 'call_b')),
      chunk(call(0, { name: 'read_file', arguments: '{"path":"A"}' }, 'call_a')),
      chunk({}, { finish_reason: 'tool_calls', usage }),
    ]);
    const ends = events.filter((e) => e.type === 'tool.use_end');
    expect(ends).toHaveLength(2);
    expect(ends.map((e) => e.content_block_index)).toEqual([0, 1]);
    expect(ends.map((e) => e.final_input)).toEqual([{ path: 'B' }, { path: 'A' }]);
  });
});

describe('typed content parts', () => {
  it('reads text and thinking parts (thinking as a string or text parts), never "[object Object]"', () => {
    const logger = createMemoryLogger();
    const blocks = decodeOpenAIContent(
      [
        {
          type: 'thinking',
          thinking: [
            { type: 'text', text: 'Two plus ' },
            { type: 'text', text: 'two.' },
          ],
        },
        { type: 'text', text: '2 + 2' },
        { type: 'text', text: ' = 4' },
        { type: 'thinking', thinking: 'Checked.' },
        { type: 'reference', reference_ids: [1] },
      ],
      logger,
      'mistral',
    );
    expect(blocks).toEqual([
      { type: 'thinking', text: 'Two plus two.' },
      { type: 'text', text: '2 + 2 = 4' },
      { type: 'thinking', text: 'Checked.' },
    ]);
    expect(JSON.stringify(blocks)).not.toContain('[object Object]');
    expect(logger.warnings().map((w) => w.obj)).toEqual([
      {
        event: 'block_dropped',
        adapter: 'mistral',
        block_type: 'reference',
        reason: 'no canonical block for this content part type',
      },
    ]);
  });

  it('streams thinking parts as thinking.delta and text parts as text.delta, dropping others once with a WARN', () => {
    const logger = createMemoryLogger();
    const image = { type: 'image_url', image_url: { url: 'https://x.test/a.png' } };
    const { events, done } = run(
      [
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'Two plus' }] }] }),
        chunk({ content: [{ type: 'thinking', thinking: ' two.' }, image] }),
        chunk({ content: [{ type: 'text', text: '2 + 2' }, image] }),
        chunk({ content: ' = 4' }, { finish_reason: 'stop', usage }),
      ],
      { logger },
    );
    expect(events.filter((e) => e.type === 'thinking.delta').map((e) => e.text)).toEqual([
      'Two plus',
      ' two.',
    ]);
    expect(done.final_content).toEqual([
      { type: 'thinking', text: 'Two plus two.' },
      { type: 'text', text: '2 + 2 = 4' },
    ]);
    expect(logger.warnings().map((w) => w.obj.block_type)).toEqual(['image_url']);
  });
});

describe('tool calls without "type"', () => {
  it('accepts a non-streamed call with a function object and no type, as the stream does', () => {
    const map = new ToolIdMap();
    const logger = createMemoryLogger();
    const decoded = decodeOpenAIMessage(
      {
        content: '',
        refusal: null,
        tool_calls: [
          { id: 'Fq7Lr2XbN', function: { name: 'read_file', arguments: '{"path":"a"}' } },
        ] as unknown as OpenAI.ChatCompletionMessageToolCall[],
      },
      map,
      { provider: 'mistral', logger },
    );
    expect(decoded.content).toEqual([
      {
        type: 'tool_use',
        id: map.getCanonicalId('mistral', 'Fq7Lr2XbN'),
        name: 'read_file',
        input: { path: 'a' },
      },
    ]);
    expect(logger.warnings()).toEqual([]);
  });

  it('still drops a custom tool call (and one with neither type nor function) with a WARN', () => {
    const logger = createMemoryLogger();
    const decoded = decodeOpenAIMessage(
      {
        content: null,
        refusal: null,
        tool_calls: [
          { id: 'c1', type: 'custom', custom: { name: 'grammar', input: 'x' } },
          { id: 'c2' },
        ] as unknown as OpenAI.ChatCompletionMessageToolCall[],
      },
      new ToolIdMap(),
      { logger },
    );
    expect(decoded.content).toEqual([]);
    expect(logger.warnings().map((w) => w.obj.block_type)).toEqual([
      'custom_tool_call',
      'untyped_tool_call',
    ]);
  });
});

describe('refusals, served model and reasoning tokens', () => {
  const completion = (message: Record<string, unknown>, finish: string) =>
    ({
      id: 'chatcmpl-r',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-5-2025-08-07',
      choices: [
        {
          index: 0,
          finish_reason: finish,
          logprobs: null,
          message: { role: 'assistant', content: null, refusal: null, ...message },
        },
      ],
    }) as unknown as OpenAI.ChatCompletion;

  it('a refusal is text, refusal and stop reason refusal; the reply names its served model', () => {
    const decoded = fromOpenAIChatCompletion(
      completion({ refusal: "I can't help with that." }, 'stop'),
      new ToolIdMap(),
      { provider: 'azure', modelProvider: 'azure' },
    );
    expect(decoded.content).toEqual([{ type: 'text', text: "I can't help with that." }]);
    expect(decoded.refusal).toBe("I can't help with that.");
    expect(decoded.stop_reason).toBe('refusal');
    expect(decoded.served_model).toBe('azure:gpt-5-2025-08-07');
  });

  it('a content_filter finish is a refusal-like stop', () => {
    const decoded = fromOpenAIChatCompletion(
      completion({ content: 'Partial' }, 'content_filter'),
      new ToolIdMap(),
    );
    expect(decoded.stop_reason).toBe('refusal');
    expect(decoded.refusal).toBeUndefined();
  });

  it('streams delta.refusal as text, collected on message.complete, stop refusal', () => {
    const { events, done } = run(
      [
        chunk({ role: 'assistant', content: '', refusal: null }, { model: '' }),
        chunk({ refusal: "I can't" }),
        chunk({ refusal: ' help with that.' }),
        chunk({}, { finish_reason: 'stop', usage }),
      ],
      { provider: 'azure', modelProvider: 'azure' },
    );
    expect(events.filter((e) => e.type === 'text.delta')).toHaveLength(2);
    expect(done.refusal).toBe("I can't help with that.");
    expect(done.final_content).toEqual([{ type: 'text', text: "I can't help with that." }]);
    expect(done.stop_reason).toBe('refusal');
    // Azure's first chunk names no model: the first one that does is the served model
    expect(done.served_model).toBe('azure:gpt-5-2025-08-07');
  });

  it('reports reasoning_tokens only when the server does', () => {
    expect(
      mapOpenAIUsage({
        prompt_tokens: 40,
        completion_tokens: 256,
        completion_tokens_details: { reasoning_tokens: 256 },
      }),
    ).toEqual({
      input_tokens: 40,
      output_tokens: 256,
      cached_input_tokens: 0,
      cache_creation_input_tokens: 0,
      reasoning_tokens: 256,
    });
    expect(mapOpenAIUsage({ prompt_tokens: 4, completion_tokens: 2 })).not.toHaveProperty(
      'reasoning_tokens',
    );
  });
});
