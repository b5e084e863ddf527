import {
  type CanonicalRequest,
  type ContentBlock,
  createMemoryLogger,
  createMessage,
  type Message,
  type MessageMetadata,
  newRequestId,
  newSessionId,
  ToolIdMap,
} from '@yourtool/core';
import { UnrepresentableContentError, wireToolName } from '@yourtool/core/adapter';
import { assistantTestMetadata, PNG_1PX_BASE64 as PNG } from '@yourtool/testkit';
import { describe, expect, it } from 'vitest';
import {
  classifyAnthropicError,
  fromAnthropicMessage,
  mapAnthropicStopReason,
  toAnthropicAdapterError,
  toAnthropicParams,
} from '../src/codec.js';

const SONNET = 'anthropic:claude-sonnet-4-6';
const session_id = newSessionId();

const user = (...content: ContentBlock[]) => createMessage({ session_id, role: 'user', content });
const text = (t: string): ContentBlock => ({ type: 'text', text: t });
const assistant = (content: ContentBlock[], model = SONNET, extra: Partial<MessageMetadata> = {}) =>
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

function req(messages: Message[], extra: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    request_id: newRequestId(),
    model: SONNET,
    messages,
    tools: [],
    stop_sequences: [],
    max_output_tokens: 2048,
    stream: false,
    ...extra,
  };
}

const readFile = {
  name: 'read_file',
  description: 'Read a file',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  side_effects: 'read' as const,
  requires_workspace: true,
};

describe('toAnthropicParams: request mapping', () => {
  it('hoists the system prompt and SYSTEM messages, joined, as a cached system block', () => {
    const { params } = toAnthropicParams(
      req([system('Be terse.'), user(text('hi')), system('Workspace: /w')], {
        system_prompt: 'Base.',
      }),
      { toolIdMap: new ToolIdMap() },
    );
    expect(params.system).toEqual([
      {
        type: 'text',
        text: 'Base.\n\nBe terse.\n\nWorkspace: /w',
        cache_control: { type: 'ephemeral' },
      },
    ]);
    expect(params.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
    const plain = toAnthropicParams(req([user(text('hi'))], { system_prompt: 'Base.' }), {
      toolIdMap: new ToolIdMap(),
      options: { promptCaching: false },
    });
    expect(plain.params.system).toBe('Base.');
  });

  it('maps model, max_tokens, stop sequences and tools (last tool is a cache breakpoint)', () => {
    const { params } = toAnthropicParams(
      req([user(text('hi'))], {
        tools: [readFile, { ...readFile, name: 'list_dir' }],
        stop_sequences: ['END'],
        max_output_tokens: 77,
      }),
      { toolIdMap: new ToolIdMap() },
    );
    expect(params.model).toBe('claude-sonnet-4-6');
    expect(params.max_tokens).toBe(77);
    expect(params.stop_sequences).toEqual(['END']);
    expect(params.tools).toEqual([
      { name: 'read_file', description: 'Read a file', input_schema: readFile.input_schema },
      {
        name: 'list_dir',
        description: 'Read a file',
        input_schema: readFile.input_schema,
        cache_control: { type: 'ephemeral' },
      },
    ]);
    const breakpoints = JSON.stringify(params).split('cache_control').length - 1;
    expect(breakpoints).toBeLessThanOrEqual(4);
  });

  it('leaves temperature out with a WARN under the current API version, sends it under 2023-06-01', () => {
    const logger = createMemoryLogger();
    const current = toAnthropicParams(req([user(text('hi'))], { temperature: 0.3 }), {
      toolIdMap: new ToolIdMap(),
      logger,
    });
    expect(current.params).not.toHaveProperty('temperature');
    expect(logger.warnings()[0]?.obj).toMatchObject({
      event: 'parameter_dropped',
      parameter: 'temperature',
    });
    const legacy = toAnthropicParams(req([user(text('hi'))], { temperature: 0.3 }), {
      toolIdMap: new ToolIdMap(),
      options: { apiVersion: '2023-06-01' },
    });
    expect(legacy.params).toHaveProperty('temperature', 0.3);
    const opus = toAnthropicParams(
      req([user(text('hi'))], { temperature: 0.3, model: 'anthropic:claude-opus-4-7' }),
      {
        toolIdMap: new ToolIdMap(),
        options: { apiVersion: '2023-06-01' },
      },
    );
    expect(opus.params, 'Opus 4.7 refuses temperature on every API version').not.toHaveProperty(
      'temperature',
    );
  });

  it('encodes base64 and URL images', () => {
    const { params } = toAnthropicParams(
      req([
        user(
          text('look'),
          { type: 'image', source: { kind: 'base64', data: PNG }, media_type: 'image/png' },
          {
            type: 'image',
            source: { kind: 'url', data: 'https://x.test/a.jpg' },
            media_type: 'image/jpeg',
          },
        ),
      ]),
      { toolIdMap: new ToolIdMap() },
    );
    expect(params.messages[0]?.content).toEqual([
      { type: 'text', text: 'look' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      { type: 'image', source: { type: 'url', url: 'https://x.test/a.jpg' } },
    ]);
  });

  it('puts all tool results of a turn in one user message, first, then any user text', () => {
    const map = new ToolIdMap();
    map.set({ canonical_id: 'tu_a', provider: 'anthropic', provider_id: 'toolu_A' });
    map.set({ canonical_id: 'tu_b', provider: 'anthropic', provider_id: 'toolu_B' });
    const history = [
      user(text('read both')),
      assistant([
        text('Reading.'),
        { type: 'tool_use', id: 'tu_a', name: 'read_file', input: { path: 'a' } },
        { type: 'tool_use', id: 'tu_b', name: 'read_file', input: { path: 'b' } },
      ]),
      result('tu_b', [text('B body')]),
      result(
        'tu_a',
        [
          text('A body'),
          { type: 'image', source: { kind: 'base64', data: PNG }, media_type: 'image/png' },
        ],
        true,
      ),
      user(text('thanks')),
    ];
    const { params } = toAnthropicParams(req(history, { tools: [readFile] }), { toolIdMap: map });
    expect(params.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(params.messages[1]?.content).toEqual([
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'toolu_A', name: 'read_file', input: { path: 'a' } },
      { type: 'tool_use', id: 'toolu_B', name: 'read_file', input: { path: 'b' } },
    ]);
    expect(params.messages[2]?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_A',
        content: [
          { type: 'text', text: 'A body' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        ],
        is_error: true,
      },
      { type: 'tool_result', tool_use_id: 'toolu_B', content: [{ type: 'text', text: 'B body' }] },
      { type: 'text', text: 'thanks' },
    ]);
  });

  it('merges consecutive same-role messages', () => {
    const { params } = toAnthropicParams(
      req([
        user(text('one')),
        user(text('two')),
        assistant([text('a')]),
        assistant([text('b')]),
        user(text('three')),
      ]),
      { toolIdMap: new ToolIdMap() },
    );
    expect(params.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'three' }] },
    ]);
  });

  it('adds a user turn when the history starts with the assistant', () => {
    const logger = createMemoryLogger();
    const { params, repairs } = toAnthropicParams(
      req([assistant([text('Earlier reply.')]), user(text('go on'))]),
      {
        toolIdMap: new ToolIdMap(),
        logger,
      },
    );
    expect(params.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(repairs.map((r) => r.kind)).toEqual(['turn_inserted']);
  });

  it('sends signed thinking back to the same model, first in its turn, and drops it elsewhere', () => {
    const thinking: ContentBlock[] = [
      { type: 'thinking', text: 'hmm', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'opaque' },
    ];
    const history = [user(text('q')), assistant([text('a'), ...thinking]), user(text('more'))];
    const same = toAnthropicParams(req(history), { toolIdMap: new ToolIdMap() });
    expect(same.params.messages[1]?.content).toEqual([
      { type: 'thinking', thinking: 'hmm', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: 'a' },
    ]);
    const logger = createMemoryLogger();
    const other = toAnthropicParams(req(history, { model: 'anthropic:claude-opus-4-7' }), {
      toolIdMap: new ToolIdMap(),
      logger,
    });
    expect(other.params.messages[1]?.content).toEqual([{ type: 'text', text: 'a' }]);
    expect(other.dropped.map((d) => d.block_type)).toEqual(['thinking', 'redacted_thinking']);
    const unsigned = toAnthropicParams(
      req([user(text('q')), assistant([{ type: 'thinking', text: 'no sig' }, text('a')])]),
      {
        toolIdMap: new ToolIdMap(),
      },
    );
    expect(
      unsigned.params.messages[1]?.content,
      'an unsigned thinking block would be refused',
    ).toEqual([{ type: 'text', text: 'a' }]);
  });

  it('replays a history produced on OpenAI into a valid request', () => {
    const map = new ToolIdMap();
    const logger = createMemoryLogger();
    const canonical = map.toCanonical('openai', 'call_8bXr2N0pQ1vL9sW3yT6uA4kE');
    const history = [
      system('You are helpful.'),
      user(text('What is in data.csv?'), {
        type: 'image',
        source: { kind: 'url', data: 'https://x.test/p.png' },
        media_type: 'image/png',
      }),
      assistant(
        [
          text(''),
          { type: 'tool_use', id: canonical, name: 'read_file', input: { path: 'data.csv' } },
        ],
        'openai:gpt-5',
      ),
      result(canonical, [
        text('a,b\n1,2'),
        { type: 'image', source: { kind: 'base64', data: PNG }, media_type: 'image/png' },
      ]),
      assistant([text('It has two columns.')], 'openai:gpt-5'),
      user(text('Plot it.')),
    ];
    const { params, dropped } = toAnthropicParams(req(history, { tools: [readFile] }), {
      toolIdMap: map,
      logger,
    });
    expect(dropped).toEqual([]);
    expect(params.system).toEqual([
      { type: 'text', text: 'You are helpful.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(params.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    const toolUse = (params.messages[1]!.content as Array<{ type: string; id?: string }>)[0];
    expect(toolUse?.type).toBe('tool_use');
    expect(toolUse?.id, 'an id issued by OpenAI is re-derived for Anthropic').toMatch(
      /^[a-zA-Z0-9_-]+$/,
    );
    expect(toolUse?.id).toBe(canonical);
    const answer = (
      params.messages[2]!.content as Array<{ type: string; tool_use_id?: string }>
    )[0];
    expect(answer).toMatchObject({ type: 'tool_result', tool_use_id: canonical });
    expect(JSON.stringify(params)).not.toContain('"text":""');
  });

  it('gives an unanswered tool use an error result instead of a request the API refuses', () => {
    const logger = createMemoryLogger();
    const history = [
      user(text('read it')),
      assistant(
        [{ type: 'tool_use', id: 'tu_x', name: 'read_file', input: { path: 'a' } }],
        SONNET,
        { status: 'cancelled' },
      ),
      user(text('never mind')),
    ];
    const { params, repairs } = toAnthropicParams(req(history, { tools: [readFile] }), {
      toolIdMap: new ToolIdMap(),
      logger,
    });
    expect(params.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(params.messages[2]?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'tu_x',
        content: [{ type: 'text', text: expect.stringContaining('No result was recorded') }],
        is_error: true,
      },
      { type: 'text', text: 'never mind' },
    ]);
    expect(repairs.map((r) => r.kind)).toEqual(['synthetic_tool_result']);
    expect(logger.warnings().some((w) => w.obj.event === 'history_repaired')).toBe(true);
  });

  it('fails instead of dropping content of a critical message', () => {
    const history = [
      user(text('q')),
      assistant([{ type: 'thinking', text: 't', signature: 's' }, text('a')], 'openai:gpt-5', {
        critical: true,
      }),
    ];
    expect(() => toAnthropicParams(req(history), { toolIdMap: new ToolIdMap() })).toThrowError(
      UnrepresentableContentError,
    );
  });

  it('maps output_schema to output_config.format', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    };
    const { params } = toAnthropicParams(req([user(text('q'))], { output_schema: schema }), {
      toolIdMap: new ToolIdMap(),
    });
    expect(params.output_config).toEqual({ format: { type: 'json_schema', schema } });
  });
});

describe('toAnthropicParams: thinking', () => {
  it('uses adaptive thinking where the model has it', () => {
    const { params } = toAnthropicParams(req([user(text('q'))]), {
      toolIdMap: new ToolIdMap(),
      options: { thinking: 'adaptive' },
    });
    expect(params.thinking).toEqual({ type: 'adaptive' });
  });

  it('uses a budget on Haiku 4.5, kept below max_tokens', () => {
    const logger = createMemoryLogger();
    const { params } = toAnthropicParams(
      req([user(text('q'))], { model: 'anthropic:claude-haiku-4-5', max_output_tokens: 4000 }),
      {
        toolIdMap: new ToolIdMap(),
        options: { thinking: { budget_tokens: 8000 } },
        logger,
      },
    );
    expect(params.thinking).toEqual({ type: 'enabled', budget_tokens: 3999 });
    expect(logger.warnings().map((w) => w.obj.event)).toEqual(['thinking_adjusted']);
  });

  it('replaces a budget with adaptive thinking on Opus 4.7, which refuses budgets', () => {
    const { params } = toAnthropicParams(
      req([user(text('q'))], { model: 'anthropic:claude-opus-4-7' }),
      {
        toolIdMap: new ToolIdMap(),
        options: { thinking: { budget_tokens: 2048 } },
      },
    );
    expect(params.thinking).toEqual({ type: 'adaptive' });
  });

  it('sends no thinking when the tool loop continues from a turn without a thinking block', () => {
    const logger = createMemoryLogger();
    const history = [
      user(text('read it')),
      assistant(
        [{ type: 'tool_use', id: 'tu_y', name: 'read_file', input: { path: 'a' } }],
        'openai:gpt-5',
      ),
      result('tu_y', [text('body')]),
    ];
    const encoded = toAnthropicParams(req(history, { tools: [readFile] }), {
      toolIdMap: new ToolIdMap(),
      options: { thinking: 'adaptive' },
      logger,
    });
    expect(encoded.params.thinking).toBeUndefined();
    expect(encoded.thinkingSkipped).toContain('no thinking block');
    expect(logger.warnings().some((w) => w.obj.event === 'thinking_skipped')).toBe(true);

    const withThinking = [
      user(text('read it')),
      assistant([
        { type: 'thinking', text: 'need the file', signature: 'sig' },
        { type: 'tool_use', id: 'tu_z', name: 'read_file', input: { path: 'a' } },
      ]),
      result('tu_z', [text('body')]),
    ];
    const ok = toAnthropicParams(req(withThinking, { tools: [readFile] }), {
      toolIdMap: new ToolIdMap(),
      options: { thinking: 'adaptive' },
    });
    expect(ok.params.thinking).toEqual({ type: 'adaptive' });
  });
});

describe('fromAnthropicMessage: response mapping', () => {
  const reply = (content: unknown[], stop_reason: string, usage: Record<string, unknown>) =>
    ({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content,
      stop_reason,
      stop_sequence: null,
      stop_details: null,
      container: null,
      diagnostics: null,
      usage,
    }) as never;

  it('maps blocks, usage with cache reads and writes, and provider_raw', () => {
    const map = new ToolIdMap();
    const decoded = fromAnthropicMessage(
      reply(
        [
          { type: 'thinking', thinking: 'plan', signature: 'sig' },
          { type: 'redacted_thinking', data: 'r' },
          { type: 'text', text: '' },
          { type: 'text', text: 'ok', citations: null },
          { type: 'tool_use', id: 'toolu_9', name: 'read_file', input: { path: 'x' } },
        ],
        'tool_use',
        {
          input_tokens: 10,
          output_tokens: 20,
          cache_read_input_tokens: 300,
          cache_creation_input_tokens: 40,
        },
      ),
      map,
    );
    expect(decoded.content).toEqual([
      { type: 'thinking', text: 'plan', signature: 'sig' },
      { type: 'redacted_thinking', data: 'r' },
      { type: 'text', text: 'ok' },
      {
        type: 'tool_use',
        id: map.getCanonicalId('anthropic', 'toolu_9'),
        name: 'read_file',
        input: { path: 'x' },
      },
    ]);
    expect(decoded.usage).toEqual({
      input_tokens: 10,
      output_tokens: 20,
      cached_input_tokens: 300,
      cache_creation_input_tokens: 40,
    });
    expect(decoded.stop_reason).toBe('tool_use');
    expect(decoded.provider_raw).toEqual({
      anthropic: {
        id: 'msg_1',
        model: 'claude-sonnet-4-6',
        stop_reason: 'tool_use',
        stop_sequence: null,
      },
    });
  });

  it('maps every stop reason', () => {
    expect(
      [
        'end_turn',
        'max_tokens',
        'stop_sequence',
        'tool_use',
        'pause_turn',
        'refusal',
        'model_context_window_exceeded',
        null,
      ].map(mapAnthropicStopReason),
    ).toEqual([
      'end_turn',
      'max_tokens',
      'stop_sequence',
      'tool_use',
      'end_turn',
      'refusal',
      'max_tokens',
      'end_turn',
    ]);
  });

  it('drops server tool blocks with a WARN', () => {
    const logger = createMemoryLogger();
    const decoded = fromAnthropicMessage(
      reply(
        [
          { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
          { type: 'text', text: 'x' },
        ],
        'end_turn',
        {
          input_tokens: 1,
          output_tokens: 1,
        },
      ),
      new ToolIdMap(),
      logger,
    );
    expect(decoded.content).toEqual([{ type: 'text', text: 'x' }]);
    expect(logger.warnings()[0]?.obj).toMatchObject({
      event: 'block_dropped',
      block_type: 'server_tool_use',
    });
  });

  it('takes its options as an object, and still in the deprecated positional form', () => {
    const message = () =>
      reply(
        [
          { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
          { type: 'tool_use', id: 'toolu_1', name: wireToolName('fs.read'), input: {} },
        ],
        'tool_use',
        { input_tokens: 1, output_tokens: 1 },
      );
    const toolNames = new Set(['fs.read']);
    const requestModel = 'anthropic:claude-sonnet-4-6';
    const logger = createMemoryLogger();
    const decoded = fromAnthropicMessage(message(), new ToolIdMap(), {
      logger,
      requestModel,
      toolNames,
    });
    expect(decoded.served_model).toBe('anthropic:claude-sonnet-4-6');
    expect(decoded.content[0]).toMatchObject({ type: 'tool_use', name: 'fs.read' });
    expect(logger.warnings().some((w) => w.obj.event === 'block_dropped')).toBe(true);
    const legacy = fromAnthropicMessage(
      message(),
      new ToolIdMap(),
      createMemoryLogger(),
      requestModel,
      toolNames,
    );
    expect(legacy.served_model).toBe(decoded.served_model);
    expect(legacy.content[0]).toMatchObject({ type: 'tool_use', name: 'fs.read' });
    const noLogger = fromAnthropicMessage(message(), new ToolIdMap(), undefined, requestModel);
    expect(noLogger.served_model).toBe('anthropic:claude-sonnet-4-6');
  });
});

describe('error classification', () => {
  const table: Array<[number | undefined, string | null, string, string]> = [
    [529, 'overloaded_error', 'Overloaded', 'rate_limit'],
    [529, null, 'Overloaded', 'rate_limit'],
    [undefined, 'overloaded_error', 'Overloaded', 'rate_limit'],
    [429, 'rate_limit_error', 'slow down', 'rate_limit'],
    [401, 'authentication_error', 'invalid x-api-key', 'auth'],
    [403, 'permission_error', 'not allowed', 'auth'],
    [
      400,
      'invalid_request_error',
      'prompt is too long: 210000 tokens > 200000 maximum',
      'context_overflow',
    ],
    [
      400,
      'invalid_request_error',
      'input length and max_tokens exceed context limit',
      'context_overflow',
    ],
    [400, 'invalid_request_error', 'max_tokens: Field required', 'invalid_request'],
    [
      400,
      'invalid_request_error',
      'context_management: Extra inputs are not permitted',
      'invalid_request',
    ],
    [400, 'invalid_request_error', 'system: text content blocks too long', 'invalid_request'],
    [
      413,
      'request_too_large',
      'Request exceeds the maximum allowed number of bytes.',
      'context_overflow',
    ],
    [500, 'api_error', 'Internal server error', 'server_error'],
    [404, 'not_found_error', 'model: claude-x', 'invalid_request'],
    [503, null, 'unavailable', 'server_error'],
  ];
  for (const [status, type, message, expected] of table) {
    it(`${status ?? 'mid-stream'} ${type ?? '(no type)'} → ${expected}`, () => {
      expect(classifyAnthropicError(status, type, message)).toBe(expected);
    });
  }

  it('keeps the API key out of error messages', () => {
    const key = 'sk-ant-api03-verysecretvalue';
    const error = toAnthropicAdapterError(new Error(`failed with key ${key}`), 'req_1', key);
    expect(error.message).not.toContain(key);
    expect(error.provider_message).not.toContain(key);
    expect(error.error_class).toBe('other');
  });
});
