import { ApiError, type Content } from '@google/genai';
import {
  type CanonicalRequest,
  type ContentBlock,
  createMemoryLogger,
  createMessage,
  type Message,
  type StreamEvent,
  ToolIdMap,
} from '@yourtool/core';
import { normalizeRequest, StreamBuilder } from '@yourtool/core/adapter';
import { describe, expect, it } from 'vitest';
import {
  classifyGoogleError,
  createGeminiStreamMapper,
  fromGeminiResponse,
  geminiThinkingConfig,
  mapGeminiFinishReason,
  mapGeminiUsage,
  SKIP_THOUGHT_SIGNATURE_VALIDATOR,
  toGeminiRequest,
  toGoogleAdapterError,
} from '../src/codec.js';
import { GEMINI_MODELS, geminiModelInfo } from '../src/index.js';

const SESSION = 'sess_codec';
const G3 = 'google:gemini-3-pro-preview';
const G25 = 'google:gemini-2.5-flash';

const user = (text: string): Message =>
  createMessage({ session_id: SESSION, role: 'user', content: [{ type: 'text', text }] });
const assistant = (
  content: ContentBlock[],
  model: string,
  provider_raw?: Record<string, unknown>,
): Message =>
  createMessage({
    session_id: SESSION,
    role: 'assistant',
    content,
    metadata: { model, provider: model.split(':')[0], ...(provider_raw ? { provider_raw } : {}) },
  });
const toolResult = (id: string, text: string): Message =>
  createMessage({
    session_id: SESSION,
    role: 'tool',
    content: [
      { type: 'tool_result', tool_use_id: id, content: [{ type: 'text', text }], is_error: false },
    ],
    metadata: { parent_tool_use_id: id },
  });

const READ_FILE = {
  name: 'read_file',
  description: 'Read a file.',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  side_effects: 'read' as const,
  requires_workspace: true,
};

function request(messages: Message[], model = G3, extra: Partial<CanonicalRequest> = {}) {
  return normalizeRequest({
    request_id: 'req_codec',
    model,
    messages,
    max_output_tokens: 512,
    tools: [READ_FILE],
    ...extra,
  });
}

const modelParts = (contents: Content[]) =>
  contents.filter((c) => c.role === 'model').flatMap((c) => c.parts ?? []);

/** A Gemini 3 reply: thought summary, text, two parallel calls (only the first signed), no ids. */
const REPLY = {
  candidates: [
    {
      content: {
        role: 'model',
        parts: [
          { text: 'Need both files.', thought: true, thoughtSignature: 'sig-thought' },
          { text: 'Reading them.', thoughtSignature: 'sig-text' },
          {
            functionCall: { name: 'read_file', args: { path: 'a.md' } },
            thoughtSignature: 'sig-call',
          },
          { functionCall: { name: 'read_file', args: { path: 'b.md' } } },
        ],
      },
      finishReason: 'STOP',
    },
  ],
  usageMetadata: {
    promptTokenCount: 1200,
    cachedContentTokenCount: 1000,
    candidatesTokenCount: 30,
    thoughtsTokenCount: 70,
    totalTokenCount: 1300,
  },
  modelVersion: 'gemini-3-pro-preview',
  responseId: 'resp_1',
} as never;

describe('decoding a reply', () => {
  it('keeps every thought signature on the block it arrived on and allocates ids', () => {
    const map = new ToolIdMap();
    const decoded = fromGeminiResponse(REPLY, map);
    expect(decoded.content).toEqual([
      { type: 'thinking', text: 'Need both files.', signature: 'sig-thought' },
      { type: 'text', text: 'Reading them.' },
      {
        type: 'tool_use',
        id: expect.stringMatching(/^tu_/),
        name: 'read_file',
        input: { path: 'a.md' },
      },
      {
        type: 'tool_use',
        id: expect.stringMatching(/^tu_/),
        name: 'read_file',
        input: { path: 'b.md' },
      },
    ]);
    const [, , first, second] = decoded.content as Array<{ id: string }>;
    expect(decoded.provider_raw).toMatchObject({
      google: {
        finish_reason: 'STOP',
        model_version: 'gemini-3-pro-preview',
        thought_signatures: {
          text: { '0': 'sig-text' },
          tool_use: { [first?.id ?? '']: 'sig-call' },
        },
      },
    });
    // id-less calls are linked to themselves, so later turns send the same id back
    expect(map.getProviderId('google', first?.id ?? '')).toBe(first?.id);
    expect(map.getProviderId('google', second?.id ?? '')).toBe(second?.id);
    expect(decoded.stop_reason).toBe('tool_use');
    expect(decoded.usage).toEqual({
      input_tokens: 200,
      output_tokens: 100,
      cached_input_tokens: 1000,
      cache_creation_input_tokens: 0,
      reasoning_tokens: 70,
    });
  });

  it('links a Gemini-issued function call id in the map', () => {
    const map = new ToolIdMap();
    const decoded = fromGeminiResponse(
      {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [{ functionCall: { id: 'fc_9', name: 'x', args: {} } }],
            },
            finishReason: 'STOP',
          },
        ],
      } as never,
      map,
    );
    const id = (decoded.content[0] as { id: string }).id;
    expect(map.getProviderId('google', id)).toBe('fc_9');
  });

  it('maps finish reasons: MAX_TOKENS, STOP with stop sequences, refusals', () => {
    expect(mapGeminiFinishReason('MAX_TOKENS', false)).toBe('max_tokens');
    expect(mapGeminiFinishReason('STOP', false, true)).toBe('stop_sequence');
    expect(mapGeminiFinishReason('STOP', false, false)).toBe('end_turn');
    expect(mapGeminiFinishReason('STOP', true, true)).toBe('tool_use');
    for (const reason of [
      'SAFETY',
      'RECITATION',
      'BLOCKLIST',
      'PROHIBITED_CONTENT',
      'SPII',
      'IMAGE_SAFETY',
      'IMAGE_PROHIBITED_CONTENT',
      'IMAGE_RECITATION',
    ]) {
      expect(mapGeminiFinishReason(reason, false), reason).toBe('refusal');
      expect(mapGeminiFinishReason(reason, true), `${reason} after a call`).toBe('refusal');
    }
    expect(mapGeminiFinishReason('LANGUAGE', false)).toBe('end_turn');
    expect(mapGeminiFinishReason('OTHER', false)).toBe('end_turn');
  });

  it('a reply refused before any content is returned empty as refusal, its usage kept', () => {
    const logger = createMemoryLogger();
    const decoded = fromGeminiResponse(
      {
        candidates: [{ finishReason: 'SAFETY', safetyRatings: [] }],
        usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2 },
      } as never,
      new ToolIdMap(),
      { logger },
    );
    expect(decoded.content).toEqual([]);
    expect(decoded.stop_reason).toBe('refusal');
    expect(decoded.usage).toMatchObject({ input_tokens: 5, output_tokens: 2 });
    expect(decoded.provider_raw).toMatchObject({
      google: { finish_reason: 'SAFETY', blocked: true },
    });
    expect(logger.warnings()).toEqual([]);
  });

  it('a blocked prompt is a refusal with the block reason in provider_raw', () => {
    const decoded = fromGeminiResponse(
      {
        promptFeedback: { blockReason: 'PROHIBITED_CONTENT', blockReasonMessage: 'blocked' },
        usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 },
      } as never,
      new ToolIdMap(),
    );
    expect(decoded.content).toEqual([]);
    expect(decoded.stop_reason).toBe('refusal');
    expect(decoded.usage).toMatchObject({ input_tokens: 7, output_tokens: 0 });
    expect(decoded.provider_raw).toMatchObject({
      google: {
        finish_reason: null,
        block_reason: 'PROHIBITED_CONTENT',
        block_reason_message: 'blocked',
        blocked: true,
      },
    });
  });

  it('an unsupported language before any content is a clear, typed, non-retryable error', () => {
    const stopped = {
      candidates: [{ finishReason: 'LANGUAGE' }],
      usageMetadata: { promptTokenCount: 5 },
    } as never;
    expect(() => fromGeminiResponse(stopped, new ToolIdMap())).toThrowError(
      expect.objectContaining({
        error_class: 'invalid_request',
        provider_message: 'LANGUAGE',
        retryable: false,
        message: expect.stringContaining('stopped the reply (LANGUAGE)'),
      }),
    );
  });

  it('a reply cut short by a filter keeps what arrived, flagged blocked, with a WARN', () => {
    const logger = createMemoryLogger();
    const decoded = fromGeminiResponse(
      {
        candidates: [
          {
            content: { role: 'model', parts: [{ text: 'Partial answer' }] },
            finishReason: 'RECITATION',
          },
        ],
      } as never,
      new ToolIdMap(),
      { logger },
    );
    expect(decoded.content).toEqual([{ type: 'text', text: 'Partial answer' }]);
    expect(decoded.stop_reason).toBe('refusal');
    expect(decoded.provider_raw).toMatchObject({
      google: { finish_reason: 'RECITATION', blocked: true },
    });
    expect(logger.warnings().map((w) => w.obj.event)).toContain('reply_blocked');
  });

  it('served model: the provider key of the requested id, then modelVersion', () => {
    const reply = {
      candidates: [{ content: { role: 'model', parts: [{ text: 'hi' }] }, finishReason: 'STOP' }],
      modelVersion: 'gemini-3-pro-preview-11-2025',
    } as never;
    expect(fromGeminiResponse(reply, new ToolIdMap(), { model: G3 }).served_model).toBe(
      'google:gemini-3-pro-preview-11-2025',
    );
    expect(fromGeminiResponse(reply, new ToolIdMap()).served_model).toBeUndefined();
  });

  it('drops parts the canonical format has no block for, with a WARN', () => {
    const logger = createMemoryLogger();
    const decoded = fromGeminiResponse(
      {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [
                { executableCode: { code: 'print(1)', language: 'PYTHON' } },
                { text: 'Done' },
              ],
            },
            finishReason: 'STOP',
          },
        ],
      } as never,
      new ToolIdMap(),
      { logger },
    );
    expect(decoded.content).toEqual([{ type: 'text', text: 'Done' }]);
    expect(logger.warnings()[0]?.obj).toMatchObject({
      event: 'block_dropped',
      block_type: 'executableCode',
    });
  });

  it('usage: prompt minus cached, thoughts billed as output (and reasoning_tokens), tool-use prompt as input', () => {
    expect(
      mapGeminiUsage({
        promptTokenCount: 100,
        cachedContentTokenCount: 40,
        candidatesTokenCount: 7,
        thoughtsTokenCount: 3,
        toolUsePromptTokenCount: 5,
      }),
    ).toEqual({
      input_tokens: 65,
      output_tokens: 10,
      cached_input_tokens: 40,
      cache_creation_input_tokens: 0,
      reasoning_tokens: 3,
    });
    expect(mapGeminiUsage(undefined).input_tokens).toBe(0);
    expect(mapGeminiUsage({ promptTokenCount: 1, candidatesTokenCount: 2 })).not.toHaveProperty(
      'reasoning_tokens',
    );
  });
});

describe('streaming', () => {
  function run(chunks: unknown[]) {
    const builder = new StreamBuilder({ request_id: 'r', model: G3, provider: 'google' });
    const map = createGeminiStreamMapper(new ToolIdMap());
    const events: StreamEvent[] = [builder.start()];
    for (const chunk of chunks) events.push(...map(chunk as never, builder));
    return events;
  }
  const chunk = (parts: unknown[], finishReason?: string) => ({
    candidates: [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}) }],
  });

  it('a signature in a closing empty text part goes to the text block it ends', () => {
    const events = run([
      chunk([{ text: 'Hel' }]),
      chunk([{ text: 'lo' }]),
      chunk([{ text: '', thoughtSignature: 'sig-last' }], 'STOP'),
    ]);
    const done = events.at(-1);
    expect(done).toMatchObject({
      type: 'message.complete',
      final_content: [{ type: 'text', text: 'Hello' }],
      provider_raw: { google: { thought_signatures: { text: { '0': 'sig-last' } } } },
    });
  });

  it('a signed text part closes its block: later text is a new block', () => {
    const events = run([
      chunk([{ text: 'One.', thoughtSignature: 'sig-1' }]),
      chunk([{ text: 'Two.' }], 'STOP'),
    ]);
    expect(events.at(-1)).toMatchObject({
      final_content: [
        { type: 'text', text: 'One.' },
        { type: 'text', text: 'Two.' },
      ],
      provider_raw: { google: { thought_signatures: { text: { '0': 'sig-1' } } } },
    });
  });

  it('a lone signature with no block before it becomes signed empty thinking', () => {
    const events = run([
      chunk([{ text: '', thoughtSignature: 'sig-alone' }]),
      chunk([{ text: 'Hi' }], 'STOP'),
    ]);
    expect(events.at(-1)).toMatchObject({
      final_content: [
        { type: 'thinking', text: '', signature: 'sig-alone' },
        { type: 'text', text: 'Hi' },
      ],
    });
  });
});

describe('encoding thought signatures (decision 0112)', () => {
  function geminiTurn(model: string) {
    const map = new ToolIdMap();
    const decoded = fromGeminiResponse(REPLY, map);
    const uses = decoded.content.filter((b) => b.type === 'tool_use') as Array<{ id: string }>;
    const history = [
      user('Read a.md and b.md'),
      assistant(decoded.content, model, decoded.provider_raw),
      toolResult(uses[0]?.id ?? '', 'A'),
      toolResult(uses[1]?.id ?? '', 'B'),
    ];
    return { map, history, uses };
  }

  it('go back verbatim, on the same parts, to the model that produced them', () => {
    const { map, history, uses } = geminiTurn(G3);
    const logger = createMemoryLogger();
    const { params } = toGeminiRequest(request(history), { toolIdMap: map, logger });
    expect(modelParts(params.contents)).toEqual([
      { text: 'Need both files.', thought: true, thoughtSignature: 'sig-thought' },
      { text: 'Reading them.', thoughtSignature: 'sig-text' },
      {
        functionCall: { id: uses[0]?.id, name: 'read_file', args: { path: 'a.md' } },
        thoughtSignature: 'sig-call',
      },
      { functionCall: { id: uses[1]?.id, name: 'read_file', args: { path: 'b.md' } } },
    ]);
    const responses = params.contents.at(-1)?.parts ?? [];
    expect(responses.map((p) => p.functionResponse)).toEqual([
      { id: uses[0]?.id, name: 'read_file', response: { output: 'A' } },
      { id: uses[1]?.id, name: 'read_file', response: { output: 'B' } },
    ]);
    expect(logger.warnings()).toEqual([]);
  });

  it('are dropped with a WARN for another Gemini model; Gemini 3 then gets the skip value on the first call only', () => {
    const { map, history, uses } = geminiTurn('google:gemini-2.5-pro');
    const logger = createMemoryLogger();
    const { params, substitutedSignatures } = toGeminiRequest(request(history, G3), {
      toolIdMap: map,
      logger,
    });
    const json = JSON.stringify(params);
    for (const sig of ['sig-thought', 'sig-text', 'sig-call']) expect(json).not.toContain(sig);
    const calls = modelParts(params.contents).filter((p) => p.functionCall);
    expect(calls.map((p) => p.thoughtSignature)).toEqual([
      SKIP_THOUGHT_SIGNATURE_VALIDATOR,
      undefined,
    ]);
    expect(substitutedSignatures).toEqual([uses[0]?.id]);
    const events = logger.warnings().map((w) => w.obj.event);
    expect(events).toContain('thought_signature_dropped');
    expect(events).toContain('thought_signature_substituted');
    expect(events).toContain('block_dropped'); // the thinking block of the other model
  });

  it('Gemini 2.5 does not require signatures: no skip value is invented', () => {
    const { map, history } = geminiTurn('anthropic:claude-sonnet-4-6');
    const { params } = toGeminiRequest(request(history, G25), { toolIdMap: map });
    expect(JSON.stringify(params)).not.toContain(SKIP_THOUGHT_SIGNATURE_VALIDATOR);
  });

  it('a history starting with a model turn gets a user turn first, with a WARN', () => {
    const logger = createMemoryLogger();
    const { params } = toGeminiRequest(
      request([assistant([{ type: 'text', text: 'Hello' }], G3), user('Hi')]),
      { toolIdMap: new ToolIdMap(), logger },
    );
    expect(params.contents.map((c) => c.role)).toEqual(['user', 'model', 'user']);
    expect(logger.warnings().some((w) => w.obj.event === 'history_repaired')).toBe(true);
  });

  it('refuses a tool schema outside the JSON-Schema subset, naming the path', () => {
    const bad = {
      ...READ_FILE,
      input_schema: { type: 'object', properties: { p: { oneOf: [] } } },
    };
    expect(() =>
      toGeminiRequest(request([user('x')], G3, { tools: [bad] }), { toolIdMap: new ToolIdMap() }),
    ).toThrowError(/read_file.*properties\.p\.oneOf/);
  });
});

describe('thinking configuration', () => {
  const warnings: string[] = [];
  const warn = (r: string) => warnings.push(r);
  const info = (name: string) => GEMINI_MODELS[name] ?? geminiModelInfo(name);

  it('Gemini 2.5 takes budgets; Gemini 3 takes levels; each adjusts with a WARN', () => {
    expect(geminiThinkingConfig('on', info('gemini-2.5-flash'), 'f', warn)).toEqual({
      thinkingBudget: -1,
      includeThoughts: true,
    });
    expect(geminiThinkingConfig('off', info('gemini-2.5-flash'), 'f', warn)).toEqual({
      thinkingBudget: 0,
    });
    warnings.length = 0;
    expect(geminiThinkingConfig('off', info('gemini-2.5-pro'), 'p', warn)).toEqual({
      thinkingBudget: 128,
    });
    expect(warnings).toHaveLength(1);
    expect(
      geminiThinkingConfig({ budget_tokens: 99_999 }, info('gemini-2.5-pro'), 'p', warn),
    ).toEqual({
      thinkingBudget: 32_768,
      includeThoughts: true,
    });
    expect(
      geminiThinkingConfig({ level: 'low' }, info('gemini-3-pro-preview'), 'g3', warn),
    ).toEqual({
      thinkingLevel: 'LOW',
      includeThoughts: true,
    });
    warnings.length = 0;
    expect(
      geminiThinkingConfig({ level: 'medium' }, info('gemini-3-pro-preview'), 'g3', warn),
    ).toEqual({
      thinkingLevel: 'HIGH',
      includeThoughts: true,
    });
    expect(
      geminiThinkingConfig({ budget_tokens: 512 }, info('gemini-3-flash-preview'), 'g3f', warn),
    ).toEqual({
      thinkingLevel: 'LOW',
      includeThoughts: true,
    });
    expect(warnings).toHaveLength(2);
    expect(geminiThinkingConfig('on', info('gemini-2.0-flash'), 'g2', warn)).toBeNull();
  });

  it('reaches the wire from the request options', () => {
    const { params } = toGeminiRequest(request([user('x')], G3), {
      toolIdMap: new ToolIdMap(),
      options: { thinking: { level: 'high' } },
    });
    expect(params.config.thinkingConfig).toEqual({ thinkingLevel: 'HIGH', includeThoughts: true });
  });
});

describe('errors by Google status', () => {
  const apiError = (status: number, body: unknown) =>
    new ApiError({ status, message: JSON.stringify({ error: body }) });

  it('classifies by status name and ErrorInfo reason, reads RetryInfo', () => {
    const limited = toGoogleAdapterError(
      apiError(429, {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        message: 'quota',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }],
      }),
      'req',
      ['key-123456'],
    );
    expect(limited).toMatchObject({
      error_class: 'rate_limit',
      retry_after_seconds: 7,
      provider_status: 429,
    });
    expect(classifyGoogleError(503, { status: 'UNAVAILABLE' })).toBe('server_error');
    expect(classifyGoogleError(500, { status: 'INTERNAL' })).toBe('server_error');
    expect(classifyGoogleError(403, { status: 'PERMISSION_DENIED' })).toBe('auth');
    expect(classifyGoogleError(404, { status: 'NOT_FOUND' })).toBe('invalid_request');
    expect(classifyGoogleError(400, { status: 'FAILED_PRECONDITION' })).toBe('invalid_request');
    expect(
      classifyGoogleError(400, {
        status: 'INVALID_ARGUMENT',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' },
        ],
      }),
    ).toBe('auth');
    expect(classifyGoogleError(400, { status: 'INVALID_ARGUMENT', message: 'bad field' })).toBe(
      'invalid_request',
    );
  });

  it('reads errors reported inside a stream and redacts the key', () => {
    const inStream = new ApiError({
      status: 500,
      message: `got status: INTERNAL. ${JSON.stringify({ error: { code: 500, status: 'INTERNAL', message: 'boom key-123456' } })}`,
    });
    const error = toGoogleAdapterError(inStream, 'req', ['key-123456']);
    expect(error.error_class).toBe('server_error');
    expect(error.message).not.toContain('key-123456');
  });
});
