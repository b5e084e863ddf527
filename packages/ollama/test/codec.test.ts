import {
  type AdapterCapabilities,
  type CanonicalRequest,
  type ContentBlock,
  createMemoryLogger,
  createMessage,
  type Message,
  type MessageMetadata,
  newRequestId,
  newSessionId,
  ServerError,
  type StreamEvent,
  ToolIdMap,
} from '@yourtool/core';
import { StreamBuilder, UnrepresentableContentError } from '@yourtool/core/adapter';
import { assistantTestMetadata, PNG_1PX_BASE64 as PNG } from '@yourtool/testkit';
import { describe, expect, it } from 'vitest';
import {
  classifyOllamaError,
  createOllamaStreamMapper,
  EMPTY_TOOL_RESULT_TEXT,
  encodeOllamaMessages,
  fromOllamaChatResponse,
  mapOllamaDoneReason,
  mapOllamaUsage,
  OLLAMA_TOOL_ID_RULES,
  type OllamaChatResponseLike,
  OllamaIncompleteStreamError,
  OllamaMalformedChunkError,
  type OllamaRequestOptions,
  OllamaStreamErrorLine,
  roundTripOllamaContent,
  TOOL_ERROR_PREFIX,
  toOllamaAdapterError,
  toOllamaChatRequest,
} from '../src/codec.js';
import { ollamaCapabilities } from '../src/models.js';

const MODEL = 'ollama:qwen3:8b';
const session_id = newSessionId();
const FULL: AdapterCapabilities = ollamaCapabilities({
  capabilities: ['completion', 'tools', 'vision', 'thinking'],
  contextLength: 40960,
  modelfileNumCtx: null,
  system: null,
  stop: [],
});
const TEXT_ONLY: AdapterCapabilities = ollamaCapabilities(undefined);

const text = (t: string): ContentBlock => ({ type: 'text', text: t });
const user = (...content: ContentBlock[]) => createMessage({ session_id, role: 'user', content });
const assistant = (content: ContentBlock[], model = MODEL, extra: Partial<MessageMetadata> = {}) =>
  createMessage({
    session_id,
    role: 'assistant',
    content,
    metadata: { ...assistantTestMetadata(model), ...extra },
  });
const result = (id: string, content: ContentBlock[], is_error = false) =>
  createMessage({
    session_id,
    role: 'tool',
    content: [{ type: 'tool_result', tool_use_id: id, content: content as never, is_error }],
    metadata: { parent_tool_use_id: id },
  });
const system = (t: string) => createMessage({ session_id, role: 'system', content: [text(t)] });
const readFile = {
  name: 'read_file',
  description: 'Read a file',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  side_effects: 'read' as const,
  requires_workspace: true,
};

function req(messages: Message[], extra: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    request_id: newRequestId(),
    model: MODEL,
    messages,
    tools: [],
    stop_sequences: [],
    max_output_tokens: 512,
    stream: false,
    ...extra,
  };
}

function encode(
  request: CanonicalRequest,
  capabilities: AdapterCapabilities = FULL,
  options: Partial<OllamaRequestOptions> = {},
  toolIdMap = new ToolIdMap(),
) {
  const logger = createMemoryLogger();
  const encoded = toOllamaChatRequest(request, {
    toolIdMap,
    logger,
    capabilities,
    options: { numCtx: capabilities.max_context_tokens, ...options },
  });
  return { ...encoded, logger, toolIdMap };
}

describe('toOllamaChatRequest: request mapping', () => {
  it('hoists the system prompt and SYSTEM messages into one leading system message', () => {
    const { params } = encode(
      req([system('Be terse.'), user(text('hi')), system('Workspace: /w')], {
        system_prompt: 'Base.',
      }),
    );
    expect(params.messages).toEqual([
      { role: 'system', content: 'Base.\n\nBe terse.\n\nWorkspace: /w' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it('sends num_ctx always, num_predict, stop, temperature, and refuses truncation and shifting', () => {
    const { params } = encode(
      req([user(text('hi'))], { stop_sequences: ['END'], temperature: 0.3 }),
      FULL,
      { numCtx: 8192, modelOptions: { seed: 7, num_ctx: 99, num_predict: 1 } },
    );
    expect(params.model).toBe('qwen3:8b');
    expect(params.options).toEqual({
      seed: 7,
      num_ctx: 8192,
      num_predict: 512,
      stop: ['END'],
      temperature: 0.3,
    });
    expect(params.truncate).toBe(false);
    expect(params.shift).toBe(false);
  });

  it("keeps the model's own stop markers next to the request's stop sequences", () => {
    const { params } = encode(req([user(text('hi'))], { stop_sequences: ['END'] }), FULL, {
      modelStop: ['<|im_end|>', 'END'],
    });
    expect(params.options.stop).toEqual(['END', '<|im_end|>']);
    expect(
      encode(req([user(text('hi'))]), FULL, { modelStop: ['<|im_end|>'] }).params.options,
    ).not.toHaveProperty('stop');
  });

  it('leaves stop and temperature out when the request has none, even from model options', () => {
    const { params } = encode(req([user(text('hi'))]), FULL, {
      modelOptions: { stop: ['x'], temperature: 1 },
    });
    expect(params.options).toEqual({ num_ctx: FULL.max_context_tokens, num_predict: 512 });
  });

  it('sends truncate, shift, keep_alive and the wire name as configured', () => {
    const { params } = encode(req([user(text('hi'))]), FULL, {
      truncate: true,
      shift: true,
      keepAlive: '10m',
      wireName: 'qwen3:8b-q8_0',
    });
    expect(params).toMatchObject({
      model: 'qwen3:8b-q8_0',
      truncate: true,
      shift: true,
      keep_alive: '10m',
    });
  });

  it('maps output_schema to format', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(encode(req([user(text('hi'))], { output_schema: schema })).params.format).toEqual(
      schema,
    );
  });

  it('declares tools as functions, and leaves them out with a WARN for a model without tools', () => {
    expect(encode(req([user(text('hi'))], { tools: [readFile] })).params.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'read_file',
          description: 'Read a file',
          parameters: readFile.input_schema,
        },
      },
    ]);
    const { params, logger } = encode(req([user(text('hi'))], { tools: [readFile] }), TEXT_ONLY);
    expect(params.tools).toBeUndefined();
    expect(logger.warnings()[0]?.obj).toMatchObject({
      event: 'parameter_dropped',
      parameter: 'tools',
    });
  });

  it('sends think only to thinking models: off unless asked, dropped with a WARN elsewhere', () => {
    expect(encode(req([user(text('hi'))])).params.think).toBe(false);
    expect(encode(req([user(text('hi'))]), FULL, { think: 'high' }).params.think).toBe('high');
    const { params, logger } = encode(req([user(text('hi'))]), TEXT_ONLY, { think: true });
    expect(params.think).toBeUndefined();
    expect(logger.warnings()[0]?.obj.event).toBe('thinking_skipped');
  });

  it('puts base64 images on the user message and drops URL images with a WARN', () => {
    const { params, logger, dropped } = encode(
      req([
        user(
          text('What is this?'),
          { type: 'image', source: { kind: 'base64', data: PNG }, media_type: 'image/png' },
          {
            type: 'image',
            source: { kind: 'url', data: 'https://example.test/a.jpg' },
            media_type: 'image/jpeg',
          },
        ),
      ]),
    );
    expect(params.messages).toEqual([{ role: 'user', content: 'What is this?', images: [PNG] }]);
    expect(dropped).toHaveLength(1);
    expect(logger.warnings()[0]?.obj).toMatchObject({
      event: 'block_dropped',
      block_type: 'image',
      adapter: 'ollama',
      block_index: 2,
    });
  });

  it('fails instead of dropping a URL image from a critical message', () => {
    const message = createMessage({
      session_id,
      role: 'user',
      content: [
        text('Look'),
        {
          type: 'image',
          source: { kind: 'url', data: 'https://example.test/a.jpg' },
          media_type: 'image/jpeg',
        },
      ],
      metadata: { critical: true },
    });
    expect(() => encode(req([message]))).toThrow(UnrepresentableContentError);
  });

  it('drops images for a model without vision (core prepareHistory)', () => {
    const { params, logger } = encode(
      req([
        user(text('Look'), {
          type: 'image',
          source: { kind: 'base64', data: PNG },
          media_type: 'image/png',
        }),
      ]),
      TEXT_ONLY,
    );
    expect(params.messages).toEqual([{ role: 'user', content: 'Look' }]);
    expect(logger.warnings()[0]?.obj.block_type).toBe('image');
  });

  it('encodes tool calls with object arguments, results as role tool with tool_name and id', () => {
    const toolIdMap = new ToolIdMap();
    const id = 'tu_01JZ0000000000000000000001';
    const { params } = encode(
      req(
        [
          user(text('Read it')),
          assistant([
            text('Reading.'),
            {
              type: 'tool_use',
              id,
              name: 'read_file',
              input: { path: 'a.md', n: [1, { x: null }] },
            },
          ]),
          result(id, [text('# A')]),
        ],
        { tools: [readFile] },
      ),
      FULL,
      {},
      toolIdMap,
    );
    expect(params.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [
          {
            id,
            type: 'function',
            function: { name: 'read_file', arguments: { path: 'a.md', n: [1, { x: null }] } },
          },
        ],
      },
      { role: 'tool', content: '# A', tool_call_id: id, tool_name: 'read_file' },
    ]);
    expect(toolIdMap.getProviderId('ollama', id)).toBe(id);
  });

  it('keeps tool results in tool-use order after their call, marks errors, fills empty ones', () => {
    const [a, b] = ['tu_01JZ000000000000000000000A', 'tu_01JZ000000000000000000000B'];
    const { params } = encode(
      req(
        [
          user(text('Two')),
          assistant([
            { type: 'tool_use', id: a, name: 'read_file', input: { path: 'a' } },
            { type: 'tool_use', id: b, name: 'get_time', input: {} },
          ]),
          result(b, [], false),
          result(a, [text('ENOENT')], true),
        ],
        { tools: [readFile] },
      ),
    );
    expect(params.messages.slice(2)).toEqual([
      {
        role: 'tool',
        content: `${TOOL_ERROR_PREFIX}ENOENT`,
        tool_call_id: a,
        tool_name: 'read_file',
      },
      { role: 'tool', content: EMPTY_TOOL_RESULT_TEXT, tool_call_id: b, tool_name: 'get_time' },
    ]);
  });

  it('answers an unanswered tool use with an error result (core repair, WARN)', () => {
    const id = 'tu_01JZ000000000000000000000C';
    const { params, logger } = encode(
      req(
        [
          user(text('Read')),
          assistant([{ type: 'tool_use', id, name: 'read_file', input: { path: 'x' } }], MODEL, {
            status: 'cancelled',
          }),
          user(text('Never mind.')),
        ],
        { tools: [readFile] },
      ),
    );
    expect(params.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(params.messages[2]?.content.startsWith(TOOL_ERROR_PREFIX)).toBe(true);
    expect(logger.warnings().some((w) => w.obj.event === 'history_repaired')).toBe(true);
  });

  it('derives conforming ids for foreign tool ids', () => {
    const foreign = 'call_abc|fc_0123456789abcdef0123456789abcdef0123456789abcdef0123456789';
    const { params } = encode(
      req(
        [
          user(text('Go')),
          assistant(
            [{ type: 'tool_use', id: foreign, name: 'read_file', input: {} }],
            'openai:gpt-5',
          ),
          result(foreign, [text('ok')]),
        ],
        { tools: [readFile] },
      ),
    );
    const id = params.messages[1]?.tool_calls?.[0]?.id ?? '';
    expect(OLLAMA_TOOL_ID_RULES.pattern?.test(id)).toBe(true);
    expect(id.length).toBeLessThanOrEqual(64);
    expect(params.messages[2]?.tool_call_id).toBe(id);
  });

  it('sends thinking back to the same model only; other thinking and redacted thinking are dropped', () => {
    const { params, logger } = encode(
      req([
        user(text('Hi')),
        assistant([{ type: 'thinking', text: 'Mine.' }, text('Hello.')]),
        user(text('Again')),
        assistant(
          [
            { type: 'thinking', text: 'Theirs.', signature: 'sig-123456' },
            { type: 'redacted_thinking', data: 'opaque' },
            text('Hi again.'),
          ],
          'anthropic:claude-sonnet-4-6',
        ),
        user(text('Once more')),
      ]),
    );
    expect(params.messages[1]).toEqual({ role: 'assistant', content: 'Hello.', thinking: 'Mine.' });
    expect(params.messages[3]).toEqual({ role: 'assistant', content: 'Hi again.' });
    expect(JSON.stringify(params)).not.toContain('sig-123456');
    expect(
      logger
        .warnings()
        .filter((w) => w.obj.event === 'block_dropped')
        .map((w) => w.obj.block_type),
    ).toEqual(['thinking', 'redacted_thinking']);
  });

  it('drops thinking for a model without thinking', () => {
    const { params } = encode(
      req([user(text('Hi')), assistant([{ type: 'thinking', text: 'Mine.' }, text('Hello.')])]),
      TEXT_ONLY,
    );
    expect(params.messages[1]).toEqual({ role: 'assistant', content: 'Hello.' });
  });

  it('never sends empty text', () => {
    const { params } = encode(
      req([user(text('Hi')), assistant([text('  ')]), user(text(''), text('Go'))]),
    );
    expect(params.messages).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'user', content: 'Go' },
    ]);
  });
});

const reply = (
  message: OllamaChatResponseLike['message'],
  extra: Partial<OllamaChatResponseLike> = {},
) => ({
  model: 'qwen3:8b',
  created_at: '2026-05-14T09:30:10.5Z',
  message: { role: 'assistant', ...message },
  done: true,
  done_reason: 'stop',
  prompt_eval_count: 20,
  eval_count: 5,
  ...extra,
});

describe('fromOllamaChatResponse: reply mapping', () => {
  it('maps thinking, text and tool calls, allocating canonical ids linked in the map', () => {
    const toolIdMap = new ToolIdMap();
    const decoded = fromOllamaChatResponse(
      reply({
        thinking: 'Plan.',
        content: 'Reading.',
        tool_calls: [
          { function: { name: 'read_file', arguments: { path: 'a' } } },
          { function: { name: 'read_file', arguments: { path: 'b' } } },
        ],
      }),
      toolIdMap,
    );
    expect(decoded.content).toEqual([
      { type: 'thinking', text: 'Plan.' },
      { type: 'text', text: 'Reading.' },
      {
        type: 'tool_use',
        id: expect.stringMatching(/^tu_/),
        name: 'read_file',
        input: { path: 'a' },
      },
      {
        type: 'tool_use',
        id: expect.stringMatching(/^tu_/),
        name: 'read_file',
        input: { path: 'b' },
      },
    ]);
    const ids = decoded.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(toolIdMap.getProviderId('ollama', id)).toBe(id);
    expect(decoded.stop_reason).toBe('tool_use');
    expect(decoded.usage).toEqual({
      input_tokens: 20,
      output_tokens: 5,
      cached_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    expect(decoded.provider_raw).toMatchObject({
      ollama: { model: 'qwen3:8b', done_reason: 'stop' },
    });
  });

  it('uses a tool call id when the server sends one, and parses string arguments', () => {
    const toolIdMap = new ToolIdMap();
    const decoded = fromOllamaChatResponse(
      reply({
        content: '',
        tool_calls: [
          {
            id: 'call_x1',
            function: { name: 'f', arguments: '{"a":1}' as unknown as Record<string, unknown> },
          },
        ],
      }),
      toolIdMap,
    );
    const use = decoded.content[0];
    expect(use).toMatchObject({ type: 'tool_use', name: 'f', input: { a: 1 } });
    expect(use?.type === 'tool_use' && toolIdMap.getProviderId('ollama', use.id)).toBe('call_x1');
  });

  it('maps done_reason: length → max_tokens, stop → end_turn (a stop sequence is not reported)', () => {
    expect(mapOllamaDoneReason('length', false)).toBe('max_tokens');
    expect(mapOllamaDoneReason('length', true)).toBe('max_tokens');
    expect(mapOllamaDoneReason('stop', false)).toBe('end_turn');
    expect(mapOllamaDoneReason('stop', true)).toBe('tool_use');
    expect(mapOllamaDoneReason(undefined, false)).toBe('end_turn');
  });

  it('estimates and flags input tokens when prompt_eval_count is missing', () => {
    expect(mapOllamaUsage({ eval_count: 3 }, { estimateInputTokens: () => 77 })).toEqual({
      input_tokens: 77,
      output_tokens: 3,
      cached_input_tokens: 0,
      cache_creation_input_tokens: 0,
      estimated: true,
    });
    expect(mapOllamaUsage({ prompt_eval_count: 0, eval_count: 3 })).not.toHaveProperty('estimated');
  });
});

describe('roundTripOllamaContent', () => {
  it('keeps text and tool uses, ids included', () => {
    const content: ContentBlock[] = [
      text('Checking.'),
      {
        type: 'tool_use',
        id: 'tu_01JZ0000000000000000000009',
        name: 'f',
        input: { ü: ['x', 1.5] },
      },
    ];
    expect(roundTripOllamaContent(content, new ToolIdMap())).toEqual(content);
  });
});

describe('encodeOllamaMessages', () => {
  it('takes its options as an object, and still in the deprecated positional form', () => {
    const messages = [
      createMessage({
        session_id: newSessionId(),
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'tu_01JZ0000000000000000000009', name: 'fs.read', input: {} },
        ],
      }),
    ];
    const upper = (name: string) => name.toUpperCase();
    const byObject = encodeOllamaMessages(messages, new ToolIdMap(), { toolName: upper });
    const positional = encodeOllamaMessages(messages, new ToolIdMap(), undefined, [], upper);
    expect(byObject[0]?.tool_calls?.[0]?.function.name).toBe('FS.READ');
    expect(positional).toEqual(byObject);
    // by default, core's derived name under Ollama's rule
    expect(
      encodeOllamaMessages(messages, new ToolIdMap())[0]?.tool_calls?.[0]?.function.name,
    ).toMatch(/^fs_read_[0-9a-f]{8}$/);
  });
});

function runStream(chunks: OllamaChatResponseLike[], toolIdMap = new ToolIdMap()): StreamEvent[] {
  const builder = new StreamBuilder({ request_id: 'req_1', model: MODEL, provider: 'ollama' });
  const map = createOllamaStreamMapper(toolIdMap, { estimateInputTokens: () => 50 });
  const events: StreamEvent[] = [builder.start()];
  for (const chunk of chunks) events.push(...map(chunk, builder));
  return events;
}

describe('createOllamaStreamMapper', () => {
  it('maps thinking and text deltas, then usage and message.complete on done', () => {
    const events = runStream([
      { message: { role: 'assistant', content: '', thinking: 'A' } },
      { message: { role: 'assistant', content: '', thinking: 'B' } },
      { message: { role: 'assistant', content: 'Hi' } },
      reply({ content: '' }, { prompt_eval_count: 9, eval_count: 2 }),
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'message.start',
      'thinking.delta',
      'thinking.delta',
      'text.delta',
      'message.complete',
    ]);
    const done = events.at(-1);
    expect(done).toMatchObject({
      final_content: [
        { type: 'thinking', text: 'AB' },
        { type: 'text', text: 'Hi' },
      ],
      stop_reason: 'end_turn',
      usage: { input_tokens: 9, output_tokens: 2 },
    });
  });

  it('emits each whole tool call as start, one delta with the whole input, end', () => {
    const events = runStream([
      { message: { role: 'assistant', content: 'Go.' } },
      {
        message: {
          role: 'assistant',
          content: '',
          tool_calls: [
            { function: { name: 'read_file', arguments: { path: 'a' } } },
            { function: { name: 'get_time', arguments: {} } },
          ],
        },
      },
      reply({ content: '' }, { done_reason: 'stop' }),
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'message.start',
      'text.delta',
      'tool.use_start',
      'tool.use_input_delta',
      'tool.use_end',
      'tool.use_start',
      'tool.use_input_delta',
      'tool.use_end',
      'message.complete',
    ]);
    expect(events[3]).toMatchObject({ partial_json: '{"path":"a"}', content_block_index: 1 });
    expect(events[7]).toMatchObject({ final_input: {}, content_block_index: 2 });
    expect(events.at(-1)).toMatchObject({ stop_reason: 'tool_use' });
  });

  it('estimates usage when the final chunk has no prompt_eval_count', () => {
    const events = runStream([
      { message: { role: 'assistant', content: 'Hi' } },
      reply({ content: '' }, { prompt_eval_count: undefined, eval_count: 1 }),
    ]);
    expect(events.at(-1)).toMatchObject({ usage: { input_tokens: 50, estimated: true } });
  });
});

describe('errors', () => {
  const ctx = { request_id: 'req_e', host: 'http://127.0.0.1:11434', model: 'qwen3:8b' };
  const responseError = (status: number, message: string) =>
    Object.assign(new Error(message), {
      name: 'ResponseError',
      error: message,
      status_code: status,
    });

  it('classifies by message first, then by the status table', () => {
    expect(classifyOllamaError(400, 'the input length exceeds the context length')).toBe(
      'context_overflow',
    );
    expect(classifyOllamaError(500, 'input length exceeds the context length')).toBe(
      'context_overflow',
    );
    expect(
      classifyOllamaError(503, 'server busy, please try again.  maximum pending requests exceeded'),
    ).toBe('rate_limit');
    expect(classifyOllamaError(400, '"llama3" does not support tools')).toBe('invalid_request');
    expect(classifyOllamaError(404, 'model "x" not found, try pulling it first')).toBe(
      'invalid_request',
    );
    expect(classifyOllamaError(401, 'unauthorized')).toBe('auth');
    expect(classifyOllamaError(429, 'slow down')).toBe('rate_limit');
    expect(classifyOllamaError(500, 'llama runner process has terminated')).toBe('server_error');
    expect(classifyOllamaError(undefined, 'an error was encountered while running the model')).toBe(
      'server_error',
    );
  });

  it('says Ollama is not running when the connection is refused', () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), {
        code: 'ECONNREFUSED',
      }),
    });
    const error = toOllamaAdapterError(refused, ctx);
    expect(error.error_class).toBe('network');
    expect(error.message).toContain('http://127.0.0.1:11434');
    expect(error.message).toContain('Is Ollama running?');
    expect(error.message).toContain('ollama serve');
  });

  it('names the model and ollama pull for a missing model', () => {
    const error = toOllamaAdapterError(
      responseError(404, 'model "qwen3:8b" not found, try pulling it first'),
      ctx,
    );
    expect(error.error_class).toBe('invalid_request');
    expect(error.provider_status).toBe(404);
    expect(error.message).toContain('ollama pull qwen3:8b');
  });

  it('explains a 404 that is not about a model (wrong base_url)', () => {
    const error = toOllamaAdapterError(responseError(404, '404 page not found'), ctx);
    expect(error.error_class).toBe('invalid_request');
    expect(error.message).toContain('base_url');
  });

  it('reads retry-after from the response headers and redacts the API key', () => {
    const key = 'sk-ollama-proxy-secret-123456';
    const error = toOllamaAdapterError(responseError(429, `bad key ${key}`), {
      ...ctx,
      apiKey: key,
      headers: new Headers({ 'retry-after': '2' }),
    });
    expect(error.error_class).toBe('rate_limit');
    expect(error).toMatchObject({ retry_after_seconds: 2 });
    expect(error.message).not.toContain(key);
    expect(error.provider_message).not.toContain(key);
  });

  it('maps in-stream errors, early stream ends, bad JSON, timeouts and aborts', () => {
    expect(
      toOllamaAdapterError(new Error('model runner has unexpectedly stopped'), ctx).error_class,
    ).toBe('server_error');
    expect(toOllamaAdapterError(new OllamaIncompleteStreamError(3), ctx).error_class).toBe(
      'network',
    );
    expect(
      toOllamaAdapterError(new OllamaStreamErrorLine('model runner has unexpectedly stopped'), ctx)
        .error_class,
    ).toBe('server_error');
    expect(
      toOllamaAdapterError(new OllamaMalformedChunkError(2, 'is not valid JSON'), ctx),
    ).toBeInstanceOf(ServerError);
    // a reply that does not parse is server_error (decision 0071), whatever the parser's wording
    expect(
      toOllamaAdapterError(new SyntaxError('Unterminated string in JSON at position 9'), ctx)
        .error_class,
    ).toBe('server_error');
    // a transport failure is recognised by its code, not by words like "terminated" or "socket"
    const reset = new TypeError('terminated', {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    expect(toOllamaAdapterError(reset, ctx).error_class).toBe('network');
    expect(
      toOllamaAdapterError(new TypeError('socket terminated (network)'), ctx).error_class,
    ).toBe('other');
    expect(
      toOllamaAdapterError(new DOMException('The operation timed out.', 'TimeoutError'), ctx)
        .error_class,
    ).toBe('network');
    expect(
      toOllamaAdapterError(new DOMException('This operation was aborted', 'AbortError'), ctx)
        .error_class,
    ).toBe('cancelled');
    expect(toOllamaAdapterError(new TypeError('x is not a function'), ctx).error_class).toBe(
      'other',
    );
  });
});
