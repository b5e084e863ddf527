import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  AdapterOptionError,
  type CanonicalRequestInput,
  createMemoryLogger,
  InvalidRequestError,
  isAdapterError,
  newRequestId,
  type StreamEvent,
  ToolIdMap,
  withStreamInvariants,
} from '@yourtool/core';
import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  decodeOpenAIResponsesOutput,
  OPENAI_RESPONSES_TOOL_ID_RULES,
  toOpenAIResponsesParams,
} from '../src/codec.js';
import { OpenAIAdapter, OpenAIResponsesAdapter } from '../src/index.js';
import { assistant, PNG, readFile, req, result, text, user } from './helpers.js';

const fixtures = loadFixtureDirectory(
  fileURLToPath(new URL('./fixtures-responses', import.meta.url)),
);
const fixture = (scenario: string): ScriptedResponse => {
  const found = fixtures[scenario]?.[0];
  if (!found) throw new Error(`no fixture ${scenario}`);
  return found;
};

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const GPT5 = 'openai:gpt-5';
const KEY = 'sk-test-responses-000000000000';

function adapter(options: Record<string, unknown> = {}, logger = createMemoryLogger()) {
  return {
    logger,
    gpt: new OpenAIResponsesAdapter(
      { api_key: KEY, base_url: server.url, max_retries: 0, options },
      { logger, retry: { baseDelayMs: 1, maxDelayMs: 1 } },
    ),
  };
}

type Body = Record<string, unknown> & { input: Array<Record<string, unknown>> };
const sentBody = (i = -1) => server.requests.at(i)?.body as Body;

async function drain(stream: AsyncIterable<StreamEvent>) {
  const events: StreamEvent[] = [];
  let error: unknown;
  try {
    for await (const event of withStreamInvariants(stream)) events.push(event);
  } catch (e) {
    error = e;
  }
  return { events, error };
}

// ---- hand-made wire replies ---------------------------------------------------------------

const sse = (events: Array<Record<string, unknown>>): ScriptedResponse => ({
  type: 'stream',
  status: 200,
  contentType: 'text/event-stream',
  chunks: events.map(
    (e, i) => `event: ${String(e.type)}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`,
  ),
});

function wireResponse(
  output: Array<Record<string, unknown>>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: 'resp_test0001',
    object: 'response',
    created_at: 1763800000,
    status: 'completed',
    error: null,
    incomplete_details: null,
    instructions: null,
    model: 'gpt-5-2025-08-07',
    output,
    parallel_tool_calls: true,
    temperature: 1,
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    usage: {
      input_tokens: 2100,
      input_tokens_details: { cached_tokens: 2000, cache_write_tokens: 0 },
      output_tokens: 300,
      output_tokens_details: { reasoning_tokens: 256 },
      total_tokens: 2400,
    },
    ...extra,
  };
}

const REASONING = {
  id: 'rs_test0001',
  type: 'reasoning',
  summary: [
    { type: 'summary_text', text: '**Planning** I need the file.' },
    { type: 'summary_text', text: 'Then summarize it.' },
  ],
  encrypted_content: 'gAAAAB-encrypted-reasoning-0001',
};
const CALL = {
  id: 'fc_test0001',
  type: 'function_call',
  status: 'completed',
  arguments: '{"path":"README.md"}',
  call_id: 'call_test0001',
  name: 'read_file',
};

/** The same reply as a stream: reasoning in two summary parts, then the call. */
function reasoningToolStream(): ScriptedResponse {
  const base = wireResponse([], { status: 'in_progress', usage: null });
  return sse([
    { type: 'response.created', response: base },
    {
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...REASONING, summary: [], encrypted_content: undefined },
    },
    ...REASONING.summary.flatMap((part, summary_index) => [
      {
        type: 'response.reasoning_summary_part.added',
        item_id: REASONING.id,
        output_index: 0,
        summary_index,
        part: { type: 'summary_text', text: '' },
      },
      {
        type: 'response.reasoning_summary_text.delta',
        item_id: REASONING.id,
        output_index: 0,
        summary_index,
        delta: part.text.slice(0, 5),
      },
      {
        type: 'response.reasoning_summary_text.delta',
        item_id: REASONING.id,
        output_index: 0,
        summary_index,
        delta: part.text.slice(5),
      },
      {
        type: 'response.reasoning_summary_text.done',
        item_id: REASONING.id,
        output_index: 0,
        summary_index,
        text: part.text,
      },
      {
        type: 'response.reasoning_summary_part.done',
        item_id: REASONING.id,
        output_index: 0,
        summary_index,
        part,
      },
    ]),
    { type: 'response.output_item.done', output_index: 0, item: REASONING },
    {
      type: 'response.output_item.added',
      output_index: 1,
      item: { ...CALL, status: 'in_progress', arguments: '' },
    },
    {
      type: 'response.function_call_arguments.delta',
      item_id: CALL.id,
      output_index: 1,
      delta: '{"path":',
    },
    {
      type: 'response.function_call_arguments.delta',
      item_id: CALL.id,
      output_index: 1,
      delta: '"README.md"}',
    },
    {
      type: 'response.function_call_arguments.done',
      item_id: CALL.id,
      output_index: 1,
      arguments: CALL.arguments,
    },
    { type: 'response.output_item.done', output_index: 1, item: CALL },
    { type: 'response.completed', response: wireResponse([REASONING, CALL]) },
  ]);
}

const ask = (extra: Partial<CanonicalRequestInput> = {}): CanonicalRequestInput => ({
  request_id: newRequestId(),
  model: GPT5,
  max_output_tokens: 512,
  messages: [user(text('Summarize README.md'))],
  tools: [readFile],
  ...extra,
});

describe('OpenAIResponsesAdapter: the request', () => {
  it('is stateless: store false, encrypted reasoning asked for, instructions, no stop, function tools', async () => {
    const { gpt, logger } = adapter({ reasoning_effort: 'low', reasoning_summary: 'auto' });
    server.enqueue(fixture('tool-call'));
    await gpt.complete(
      ask({
        system_prompt: 'Be terse.',
        stop_sequences: ['END'],
        temperature: 0.3,
      }),
    );
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/responses');
    expect(sent.headers.authorization).toBe('[REDACTED]');
    expect(sent.body).toMatchObject({
      model: 'gpt-5',
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'low', summary: 'auto' },
      instructions: 'Be terse.',
      max_output_tokens: 512,
      input: [{ role: 'user', content: 'Summarize README.md' }],
      tools: [
        {
          type: 'function',
          name: 'read_file',
          description: 'Read a file',
          parameters: readFile.input_schema,
          strict: false,
        },
      ],
    });
    expect(sent.body).not.toHaveProperty('stop');
    expect(sent.body).not.toHaveProperty('temperature');
    expect(sent.body).not.toHaveProperty('previous_response_id');
    expect(logger.warnings().map((w) => w.obj.parameter)).toEqual(['temperature']);
  });

  it('for a model that does not reason: no include, reasoning options left out with a WARN, temperature sent', async () => {
    const { gpt, logger } = adapter({ reasoning_summary: 'auto' });
    server.enqueue(fixture('text'));
    await gpt.complete(ask({ model: 'openai:gpt-4.1', tools: [], temperature: 0.3 }), {
      providerOptions: { openai: { reasoning_effort: 'high' } },
    });
    const body = sentBody();
    expect(body.store).toBe(false);
    expect(body).not.toHaveProperty('include');
    expect(body).not.toHaveProperty('reasoning');
    expect(body.temperature).toBe(0.3);
    expect(
      logger
        .warnings()
        .map((w) => w.obj.parameter)
        .sort(),
    ).toEqual(['reasoning_effort', 'reasoning_summary']);
  });

  it('raises max_output_tokens to the API minimum of 16, with a WARN', async () => {
    const { gpt, logger } = adapter();
    server.enqueue(fixture('text'));
    await gpt.complete(ask({ tools: [], max_output_tokens: 5 }));
    expect(sentBody().max_output_tokens).toBe(16);
    expect(logger.warnings()[0]?.obj).toMatchObject({
      event: 'parameter_adjusted',
      parameter: 'max_output_tokens',
    });
  });

  it('replays its own reasoning to the same model: encrypted content, no item ids, in item order', () => {
    const map = new ToolIdMap();
    const use = map.toCanonical('openai', 'call_test0001');
    const logger = createMemoryLogger();
    const { params } = toOpenAIResponsesParams(
      req(GPT5, [
        user(text('Summarize README.md')),
        assistant(
          [
            { type: 'thinking', text: 'Plan.', signature: 'ENC-1' },
            { type: 'redacted_thinking', data: 'ENC-2' },
            text('Reading it.'),
            { type: 'tool_use', id: use, name: 'read_file', input: { path: 'README.md' } },
          ],
          GPT5,
        ),
        result(use, [text('# Foo')]),
        assistant([{ type: 'thinking', text: 'Unsigned summary only.' }, text('Done.')], GPT5),
        user(text('Thanks')),
      ]),
      {
        wireName: 'gpt-5',
        capabilities: new OpenAIResponsesAdapter().capabilitiesFor(GPT5),
        toolIdMap: map,
        logger,
        reasoning: true,
      },
    );
    expect(params.input).toEqual([
      { role: 'user', content: 'Summarize README.md' },
      {
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'Plan.' }],
        encrypted_content: 'ENC-1',
      },
      { type: 'reasoning', summary: [], encrypted_content: 'ENC-2' },
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Reading it.' }],
      },
      {
        type: 'function_call',
        call_id: 'call_test0001',
        name: 'read_file',
        arguments: '{"path":"README.md"}',
      },
      { type: 'function_call_output', call_id: 'call_test0001', output: '# Foo' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] },
      { role: 'user', content: 'Thanks' },
    ]);
    expect(logger.warnings().map((w) => [w.obj.event, w.obj.block_type])).toEqual([
      ['block_dropped', 'thinking'],
    ]);
  });

  it('drops reasoning of another model with a WARN, derives call ids of at most 64 characters, sends tool images in the output', () => {
    const map = new ToolIdMap();
    const longId = `toolu_${'x'.repeat(90)}`;
    const use = map.toCanonical('anthropic', longId);
    map.set({ canonical_id: use, provider: 'openai', provider_id: longId });
    const logger = createMemoryLogger();
    const { params, dropped } = toOpenAIResponsesParams(
      req(GPT5, [
        user(text('Chart it')),
        assistant(
          [
            { type: 'thinking', text: 'Claude thinks.', signature: 'CLAUDE-SIG' },
            { type: 'tool_use', id: use, name: 'render_chart', input: { series: [1] } },
          ],
          'anthropic:claude-sonnet-4-6',
        ),
        result(
          use,
          [
            text('Rendered'),
            { type: 'image', source: { kind: 'base64', data: PNG }, media_type: 'image/png' },
          ],
          true,
        ),
      ]),
      {
        wireName: 'gpt-5',
        capabilities: new OpenAIResponsesAdapter().capabilitiesFor(GPT5),
        toolIdMap: map,
        logger,
        reasoning: true,
      },
    );
    expect(JSON.stringify(params)).not.toContain('CLAUDE-SIG');
    expect(dropped.map((d) => d.block_type)).toEqual(['thinking']);
    const call = params.input.find((i) => i.type === 'function_call') as { call_id: string };
    const output = params.input.find((i) => i.type === 'function_call_output') as {
      call_id: string;
      output: unknown;
    };
    expect(call.call_id.length).toBeLessThanOrEqual(64);
    expect(call.call_id).toMatch(OPENAI_RESPONSES_TOOL_ID_RULES.pattern!);
    expect(output.call_id).toBe(call.call_id);
    expect(output.output).toEqual([
      { type: 'input_text', text: '[tool error] Rendered' },
      { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
    ]);
  });
});

describe('OpenAIResponsesAdapter: replies', () => {
  it('maps reasoning, calls and usage (cached and reasoning tokens) alike from complete() and stream()', async () => {
    const { gpt } = adapter();
    const map = new ToolIdMap();
    server.enqueue({ type: 'json', status: 200, body: wireResponse([REASONING, CALL]) });
    const whole = await gpt.complete(ask(), { toolIdMap: map });
    expect(whole.content).toEqual([
      {
        type: 'thinking',
        text: '**Planning** I need the file.\n\nThen summarize it.',
        signature: 'gAAAAB-encrypted-reasoning-0001',
      },
      {
        type: 'tool_use',
        id: map.getCanonicalId('openai', 'call_test0001'),
        name: 'read_file',
        input: { path: 'README.md' },
      },
    ]);
    expect(whole.stop_reason).toBe('tool_use');
    expect(whole.usage).toEqual({
      input_tokens: 100,
      output_tokens: 300,
      cached_input_tokens: 2000,
      cache_creation_input_tokens: 0,
      reasoning_tokens: 256,
    });
    expect(whole.provider_raw).toEqual({
      openai: {
        api: 'responses',
        id: 'resp_test0001',
        model: 'gpt-5-2025-08-07',
        status: 'completed',
        reasoning_tokens: 256,
      },
    });

    server.enqueue(reasoningToolStream());
    const { events, error } = await drain(gpt.stream(ask({ stream: true }), { toolIdMap: map }));
    expect(error).toBeUndefined();
    const complete = events.at(-1);
    expect(complete?.type).toBe('message.complete');
    if (complete?.type !== 'message.complete') return;
    expect(complete.final_content).toEqual(whole.content);
    expect(complete.usage).toEqual(whole.usage);
    expect(complete.stop_reason).toBe('tool_use');
    const thinking = events.filter((e) => e.type === 'thinking.delta');
    expect(thinking.at(-1)).toMatchObject({ signature: 'gAAAAB-encrypted-reasoning-0001' });
    expect(
      events.filter((e) => e.type === 'tool.use_input_delta').map((e) => e.partial_json),
    ).toEqual(['{"path":', '"README.md"}']);
  });

  it('an incomplete response for max_output_tokens is max_tokens; for content_filter refusal', async () => {
    const { gpt } = adapter();
    const message = {
      id: 'msg_1',
      type: 'message',
      status: 'incomplete',
      role: 'assistant',
      content: [{ type: 'output_text', annotations: [], text: 'Partial' }],
    };
    server.enqueue(
      {
        type: 'json',
        body: wireResponse([message], {
          status: 'incomplete',
          incomplete_details: { reason: 'max_output_tokens' },
        }),
      },
      {
        type: 'json',
        body: wireResponse([message], {
          status: 'incomplete',
          incomplete_details: { reason: 'content_filter' },
        }),
      },
    );
    const cut = await gpt.complete(ask());
    expect(cut.stop_reason).toBe('max_tokens');
    expect(cut.content).toEqual([text('Partial')]);
    const filtered = await gpt.complete(ask());
    // the provider's filter withheld the rest: a refusal-like stop (README, "Refusals")
    expect(filtered.stop_reason).toBe('refusal');
    expect(filtered.provider_raw).toMatchObject({
      openai: { incomplete_reason: 'content_filter' },
    });

    server.enqueue(
      sse([
        {
          type: 'response.created',
          response: wireResponse([], { status: 'in_progress', usage: null }),
        },
        { type: 'response.output_item.added', output_index: 0, item: { ...message, content: [] } },
        {
          type: 'response.content_part.added',
          item_id: 'msg_1',
          output_index: 0,
          content_index: 0,
          part: { type: 'output_text', annotations: [], text: '' },
        },
        {
          type: 'response.output_text.delta',
          item_id: 'msg_1',
          output_index: 0,
          content_index: 0,
          delta: 'Partial',
        },
        {
          type: 'response.incomplete',
          response: wireResponse([message], {
            status: 'incomplete',
            incomplete_details: { reason: 'max_output_tokens' },
          }),
        },
      ]),
    );
    const { events, error } = await drain(gpt.stream(ask({ stream: true })));
    expect(error).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'max_tokens' });
  });

  it('a failed response: complete() throws the mapped error; a stream ends with stop_reason error, then throws', async () => {
    const { gpt } = adapter();
    const failed = wireResponse([], {
      status: 'failed',
      usage: null,
      error: { code: 'invalid_prompt', message: 'Invalid prompt: flagged.' },
    });
    server.enqueue({ type: 'json', body: failed });
    const error = await gpt.complete(ask()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(String((error as Error).message)).toContain('invalid_prompt');

    server.enqueue(
      sse([
        {
          type: 'response.created',
          response: wireResponse([], { status: 'in_progress', usage: null }),
        },
        {
          type: 'response.output_item.added',
          output_index: 0,
          item: {
            id: 'msg_1',
            type: 'message',
            status: 'in_progress',
            role: 'assistant',
            content: [],
          },
        },
        {
          type: 'response.content_part.added',
          item_id: 'msg_1',
          output_index: 0,
          content_index: 0,
          part: { type: 'output_text', annotations: [], text: '' },
        },
        {
          type: 'response.output_text.delta',
          item_id: 'msg_1',
          output_index: 0,
          content_index: 0,
          delta: 'Hel',
        },
        {
          type: 'response.failed',
          response: { ...failed, error: { code: 'server_error', message: 'The model failed.' } },
        },
      ]),
    );
    const streamed = await drain(gpt.stream(ask({ stream: true })));
    expect(streamed.events.at(-1)).toMatchObject({
      type: 'message.complete',
      stop_reason: 'error',
      final_content: [text('Hel')],
    });
    expect(isAdapterError(streamed.error)).toBe(true);
    expect((streamed.error as { error_class: string }).error_class).toBe('server_error');
  });

  it('an error event mid-stream is classified by its code', async () => {
    const { gpt } = adapter();
    server.enqueue(
      sse([
        {
          type: 'response.created',
          response: wireResponse([], { status: 'in_progress', usage: null }),
        },
        { type: 'error', code: 'rate_limit_exceeded', message: 'Slow down.', param: null },
      ]),
    );
    const { events, error } = await drain(gpt.stream(ask({ stream: true })));
    expect(events.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'error' });
    expect((error as { error_class: string }).error_class).toBe('rate_limit');
    expect(String((error as Error).message)).not.toContain(KEY);
  });
});

describe('the Responses output codec', () => {
  it('keeps a refusal as text, drops built-in tool calls with a WARN, skips empty reasoning', () => {
    const logger = createMemoryLogger();
    const output = [
      { id: 'rs_1', type: 'reasoning', summary: [] },
      {
        id: 'ws_1',
        type: 'web_search_call',
        status: 'completed',
        action: { type: 'search', query: 'x' },
      },
      {
        id: 'msg_1',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'refusal', refusal: "I can't help with that." }],
      },
    ] as unknown as OpenAI.Responses.ResponseOutputItem[];
    const decoded = decodeOpenAIResponsesOutput(output, new ToolIdMap(), { logger });
    expect(decoded.content).toEqual([text("I can't help with that.")]);
    expect(logger.warnings().map((w) => [w.obj.event, w.obj.block_type])).toEqual([
      ['block_dropped', 'web_search_call'],
    ]);
  });
});

describe('OpenAIAdapter options.api', () => {
  it('defaults to Chat Completions; `responses` switches transport and declares thinking for reasoning models', async () => {
    const chat = new OpenAIAdapter({ api_key: KEY, base_url: server.url });
    const responses = new OpenAIAdapter({
      api_key: KEY,
      base_url: server.url,
      options: { api: 'responses' },
    });
    expect(chat.api).toBe('chat_completions');
    expect(responses.api).toBe('responses');
    expect(chat.capabilitiesFor(GPT5).supports_thinking).toBe(false);
    expect(responses.capabilitiesFor(GPT5).supports_thinking).toBe(true);
    expect(responses.capabilitiesFor('openai:gpt-4.1').supports_thinking).toBe(false);
    server.enqueue(fixture('text'));
    const reply = await responses.complete(ask({ tools: [] }));
    expect(reply.content).toEqual([text('Hello! How can I help you today?')]);
    expect(server.requests[0]?.path).toBe('/responses');
    await Promise.all([chat.close(), responses.close()]);
  });

  it('refuses an unknown api at construction', () => {
    expect(() => new OpenAIAdapter({ options: { api: 'assistants' } })).toThrow(AdapterOptionError);
    expect(() => new OpenAIAdapter({ options: { api: 'assistants' } })).toThrow(/options\.api/);
  });

  it('cancel() reaches a call in flight on the Responses transport', async () => {
    const responses = new OpenAIAdapter({
      api_key: KEY,
      base_url: server.url,
      options: { api: 'responses' },
    });
    server.enqueue(fixture('cancel-mid-text'));
    const request = ask({ stream: true, tools: [] });
    const events: StreamEvent[] = [];
    for await (const event of responses.stream(request)) {
      events.push(event);
      if (event.type === 'text.delta')
        expect(await responses.cancel(request.request_id)).toBe(true);
    }
    expect(events.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'cancelled' });
    await responses.close();
  });
});
