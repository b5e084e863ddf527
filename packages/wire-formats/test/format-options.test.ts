import { describe, expect, it } from 'vitest';
import {
  anthropicFormat,
  anthropicRenderer,
  type ErrorReply,
  geminiFormat,
  geminiRenderer,
  type MessageReply,
  ollamaFormat,
  openAIChatFormat,
  openAIChatRenderer,
  openAIResponsesFormat,
  openAIResponsesRenderer,
  type RenderContext,
} from '../src/index.js';

/**
 * The options a test passes to reproduce a recording's bytes (issue 39: the fixture renderers
 * of the google and openai tests render through them); the defaults are pinned by the
 * conformance suite's golden files.
 */

const reply: MessageReply = {
  kind: 'message',
  blocks: [
    { kind: 'thinking', text: 'hmm, ok', signature: 'sig', chunks: 2 },
    { kind: 'text', text: 'Hello', chunks: 2 },
    { kind: 'tool_call', name: 'a', input: { x: 1 }, id: 'call_1', chunks: 2 },
    { kind: 'tool_call', name: 'b', input: {}, id: 'call_2', chunks: 2 },
  ],
  usage: { input_tokens: 10, output_tokens: 9, cached_input_tokens: 4, reasoning_tokens: 6 },
  stopReason: 'tool_use',
  chunkDelayMs: 0,
};
const context: RenderContext = { reply, model: 'm', seq: 1, body: {} };
const events = (chunks: readonly string[]) =>
  chunks.map((chunk) => JSON.parse(chunk.slice(chunk.indexOf('data: ') + 6)));
const rateLimit: ErrorReply = {
  kind: 'error',
  status: 429,
  shape: 'status',
  message: 'slow down',
  retryAfterSeconds: 1.4,
};

describe('geminiFormat', () => {
  it('signs only the first function call with callSignature', () => {
    const body = geminiFormat({ callSignature: 'S' }).reply(context) as {
      candidates: Array<{ content: { parts: Array<Record<string, unknown>> } }>;
    };
    const parts = body.candidates[0]?.content.parts ?? [];
    expect(parts.map((p) => p.thoughtSignature)).toEqual(['sig', undefined, 'S', undefined]);
  });

  it('reports modality details and a running total, with the responseId given', () => {
    const [first, ...rest] = events(
      geminiFormat({ modalityDetails: true, runningTotal: true, responseId: 'r1' }).stream(context)
        .chunks,
    );
    expect(first.usageMetadata).toEqual({
      promptTokenCount: 14,
      totalTokenCount: 14,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 14 }],
    });
    expect(rest.at(-1).usageMetadata).toMatchObject({
      thoughtsTokenCount: 6,
      candidatesTokenCount: 3,
      cacheTokensDetails: [{ modality: 'TEXT', tokenCount: 4 }],
    });
    expect(first.responseId).toBe('r1');
  });

  it('closes in a chunk of its own only after a function call when asked, split as given', () => {
    const textOnly: RenderContext = { ...context, reply: { ...reply, blocks: [reply.blocks[1]!] } };
    const split = (text: string) => [text.slice(0, 1), text.slice(1)];
    const options = { closingChunk: 'after-function-call', split } as const;
    const parts = events(geminiFormat(options).stream(textOnly).chunks).map(
      (e) => e.candidates[0].content.parts[0].text,
    );
    expect(parts).toEqual(['H', 'ello']);
    expect(events(geminiRenderer.stream(textOnly).chunks)).toHaveLength(3);
    expect(events(geminiFormat(options).stream(context).chunks).at(-1).candidates[0]).toEqual({
      content: { role: 'model', parts: [{ text: '' }] },
      finishReason: 'STOP',
      index: 0,
    });
  });

  it('ends events in CRLF when asked', () => {
    const [first] = geminiFormat({ crlf: true }).stream(context).chunks;
    expect(first?.startsWith('data: {')).toBe(true);
    expect(first?.endsWith('}\r\n\r\n')).toBe(true);
    expect(geminiRenderer.stream(context).chunks[0]?.endsWith('}\n\n')).toBe(true);
  });

  it('puts errorDetails before RetryInfo and can leave the retry headers out', () => {
    const detail = { '@type': 'type.googleapis.com/google.rpc.QuotaFailure' };
    const error = geminiFormat({ errorDetails: [detail], retryHeaders: false }).error(rateLimit, 1);
    expect(error.headers).toEqual({ 'content-type': 'application/json; charset=UTF-8' });
    expect(error.body).toEqual({
      error: {
        code: 429,
        message: 'slow down',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          detail,
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1.4s' },
        ],
      },
    });
    expect(geminiRenderer.error(rateLimit, 1).headers).toMatchObject({ 'retry-after': '1.4' });
  });
});

describe('openAIResponsesFormat', () => {
  const live = {
    maxOutputTokens: 1024,
    reasoning: { effort: 'medium', summary: null },
    serviceTier: 'default',
    temperature: 1,
    topP: 1,
    topLogprobs: 0,
    truncation: 'disabled',
    verbosity: 'medium',
    secondsToComplete: 2,
  };

  it('renders the live Response object in the API order, with the ids given', () => {
    const body = openAIResponsesFormat({
      live,
      responseId: 'resp_x',
      itemId: (prefix, i) => `${prefix}_${i}`,
      cacheWriteTokens: true,
    }).reply(context) as Record<string, unknown> & { output: Array<Record<string, unknown>> };
    expect(Object.keys(body)).toEqual([
      'id',
      'object',
      'created_at',
      'status',
      'background',
      'completed_at',
      'error',
      'incomplete_details',
      'instructions',
      'max_output_tokens',
      'max_tool_calls',
      'model',
      'output',
      'parallel_tool_calls',
      'previous_response_id',
      'prompt_cache_key',
      'reasoning',
      'safety_identifier',
      'service_tier',
      'store',
      'temperature',
      'text',
      'tool_choice',
      'tools',
      'top_logprobs',
      'top_p',
      'truncation',
      'usage',
      'user',
      'metadata',
    ]);
    expect(body.id).toBe('resp_x');
    expect(body.output.map((item) => item.id)).toEqual(['rs_0', 'msg_1', 'fc_2', 'fc_3']);
    expect(Object.keys(body.output[1] ?? {})).toEqual(['id', 'type', 'status', 'content', 'role']);
    expect(body.text).toEqual({ format: { type: 'text' }, verbosity: 'medium' });
    expect(body.usage).toMatchObject({
      input_tokens_details: { cached_tokens: 4, cache_write_tokens: 0 },
    });
    const plain = openAIResponsesRenderer.reply(context) as Record<string, unknown>;
    expect(plain).not.toHaveProperty('background');
    expect(plain.usage).toMatchObject({ input_tokens_details: { cached_tokens: 4 } });
  });

  it('pads deltas with obfuscation and splits as given', () => {
    const obfuscation = (kind: string) => kind.slice(0, 1);
    const all = events(
      openAIResponsesFormat({ obfuscation, split: (text) => [text] }).stream(context).chunks,
    );
    const deltas = all.filter((e) => String(e.type).endsWith('.delta'));
    expect(deltas.map((e) => [e.type, e.delta, e.obfuscation])).toEqual([
      ['response.reasoning_summary_text.delta', 'hmm, ok', 'r'],
      ['response.output_text.delta', 'Hello', 't'],
      ['response.function_call_arguments.delta', '{"x":1}', 'a'],
      ['response.function_call_arguments.delta', '{}', 'a'],
    ]);
  });

  it('sends the headers given, and errors with the fields and whole-second retry-after given', () => {
    const headers = { 'x-request-id': 'req_fixed', 'openai-version': '2020-10-01' };
    const format = openAIResponsesFormat({
      headers,
      error: {
        fields: { type: 'tokens', param: null, code: 'rate_limit_exceeded' },
        wholeSecondRetryAfter: true,
      },
    });
    expect(format.headers(1)).toEqual(headers);
    const error = format.error(rateLimit, 1);
    expect(Object.entries(error.headers)).toEqual([
      ['x-request-id', 'req_fixed'],
      ['openai-version', '2020-10-01'],
      ['content-type', 'application/json'],
      ['retry-after-ms', '1400'],
      ['retry-after', '2'],
    ]);
    expect(error.body).toEqual({
      error: { message: 'slow down', type: 'tokens', param: null, code: 'rate_limit_exceeded' },
    });
  });
});

describe('anthropicFormat', () => {
  it('pings, opens tool input empty and can leave the newer fields out', () => {
    const all = events(
      anthropicFormat({
        messageId: 'msg_x',
        ping: true,
        openingJsonDelta: true,
        withoutNewerFields: true,
      }).stream(context).chunks,
    );
    expect(all[0].message.id).toBe('msg_x');
    expect(all[0].message.usage).not.toHaveProperty('service_tier');
    expect(all[1]).toEqual({ type: 'ping' });
    const starts = all.filter((e) => e.type === 'content_block_start');
    expect(starts[1].content_block).toEqual({ type: 'text', text: '' });
    const json = all.filter((e) => e.delta?.type === 'input_json_delta' && e.index === 2);
    expect(json[0].delta.partial_json).toBe('');
    expect(json.map((e) => e.delta.partial_json).join('')).toBe('{"x":1}');
    const plain = events(anthropicRenderer.stream(context).chunks);
    expect(plain[1].type).toBe('content_block_start');
  });
});

describe('openAIChatFormat', () => {
  it('sends leading comments, chunk fields and usage: null as asked', () => {
    const { chunks } = openAIChatFormat({
      completionId: 'chatcmpl-x',
      created: 5,
      chunkFields: { service_tier: 'default' },
      nullUsage: true,
      withoutRefusal: true,
      leadingComments: ['PROCESSING'],
    }).stream({ ...context, body: { stream_options: { include_usage: true } } });
    expect(chunks[0]).toBe(': PROCESSING\n\n');
    const [first, ...rest] = events(chunks.slice(1, -1));
    expect(first).toMatchObject({ id: 'chatcmpl-x', created: 5, service_tier: 'default' });
    expect(first.choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(first.usage).toBeNull();
    expect(rest.at(-1).usage).toMatchObject({ prompt_tokens: 14 });
    const plain = events(openAIChatRenderer.stream(context).chunks.slice(0, 1));
    expect(plain[0]).not.toHaveProperty('usage');
    expect(plain[0].choices[0].delta).toHaveProperty('refusal', null);
  });
});

describe('ollamaFormat', () => {
  it('reports the durations given', () => {
    const durations = { total: 9, load: 5, promptEval: 1, eval: 8 };
    const last = JSON.parse(ollamaFormat({ durations }).stream(context).chunks.at(-1) ?? '{}');
    expect(last).toMatchObject({
      total_duration: 9,
      load_duration: 5,
      prompt_eval_duration: 1,
      eval_duration: 8,
      eval_count: 9,
    });
  });
});
