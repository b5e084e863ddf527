import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  quickAdapterConfig,
  quickCanonicalRequest,
  quickFreshMessage,
} from '../src/quick-request.js';
import {
  AdapterConfigSchema,
  AdapterError,
  CanonicalRequestSchema,
  createMessage,
  ErrorClassSchema,
  isAdapterError,
  KNOWN_METADATA_FIELDS,
  MessageMetadataSchema,
  MessageSchema,
  newRequestId,
  newSessionId,
} from './exports.js';

/**
 * The hand-written checks of a first call (decision 0198) must never accept what the schema
 * refuses, and what they accept must equal the schema's output, keys in the same order (bodies
 * and logs are written from it). Random requests and configs, well-formed and not, hold them to
 * that.
 */

/** What zod returns for `value`, or null when it refuses it. */
function viaZod<T>(
  schema: { safeParse(v: unknown): { success: boolean; data?: T } },
  value: unknown,
) {
  const parsed = schema.safeParse(value);
  return parsed.success ? (parsed.data as T) : null;
}

/** `quick` agrees with `schema` on `value`: refused by both, or equal with the same key order. */
function agrees(quick: unknown, schema: Parameters<typeof viaZod>[0], value: unknown): void {
  const expected = viaZod(schema, value);
  if (quick === null) return; // the schema decides, whatever it says
  expect(expected).not.toBeNull();
  expect(quick).toEqual(expected);
  expect(JSON.stringify(quick)).toBe(JSON.stringify(expected));
}

const sessionId = newSessionId();
const message = createMessage({
  session_id: sessionId,
  role: 'user',
  content: [{ type: 'text', text: 'hello' }],
});
const tool = {
  name: 'read_file',
  description: 'Read a file.',
  input_schema: { type: 'object', properties: { path: { type: 'string' } } },
  side_effects: 'read',
};

const anyValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string(),
  fc.integer({ min: -3, max: 70_000 }),
  fc.double(),
  fc.boolean(),
  fc.constant({}),
  fc.constant([]),
);

describe('quickCanonicalRequest', () => {
  const base = {
    request_id: newRequestId(),
    model: 'anthropic:claude-sonnet-4-6',
    messages: [message],
    max_output_tokens: 1024,
  };

  it('gives what the schema gives for a well-formed request, defaults filled, keys in order', () => {
    const full = {
      ...base,
      tools: [tool, { ...tool, name: 'search', requires_workspace: false }],
      system_prompt: 'Be brief.',
      stop_sequences: ['END'],
      temperature: 0.2,
      output_schema: { type: 'object' },
      tool_choice: { type: 'tool', name: 'search' },
      stream: true,
    };
    for (const request of [base, full, { ...base, system_prompt: null, tool_choice: 'auto' }]) {
      const quick = quickCanonicalRequest(request);
      expect(quick).not.toBeNull();
      agrees(quick, CanonicalRequestSchema, request);
    }
  });

  it('copies what the schema copies', () => {
    const request = { ...base, tools: [tool] };
    const quick = quickCanonicalRequest(request);
    expect(quick?.messages[0]).not.toBe(message);
    expect(quick?.messages[0]?.content[0]).not.toBe(message.content[0]);
    expect(quick?.tools[0]?.input_schema).not.toBe(tool.input_schema);
  });

  it('never accepts what the schema refuses, and agrees on what it accepts', () => {
    const keys = [
      'request_id',
      'model',
      'messages',
      'max_output_tokens',
      'tools',
      'system_prompt',
      'stop_sequences',
      'temperature',
      'output_schema',
      'tool_choice',
      'stream',
      'unknown',
    ];
    fc.assert(
      fc.property(fc.constantFrom(...keys), anyValue, (key, value) => {
        const request: Record<string, unknown> = { ...base, tools: [tool], [key]: value };
        agrees(quickCanonicalRequest(request), CanonicalRequestSchema, request);
      }),
      { numRuns: 400 },
    );
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(tool), 'extra'), anyValue, (key, value) => {
        const request = { ...base, tools: [{ ...tool, [key]: value }] };
        agrees(quickCanonicalRequest(request), CanonicalRequestSchema, request);
      }),
      { numRuns: 300 },
    );
  });
});

describe('quickAdapterConfig', () => {
  it('gives what the schema gives, defaults filled, keys in order', () => {
    for (const config of [
      {},
      { api_key: 'k', base_url: 'http://127.0.0.1:8080/v1', max_retries: 0 },
      { api_key: null, base_url: null, timeout_seconds: 5, idle_timeout_seconds: 1.5 },
      { extra_headers: { 'x-a': 'b' }, options: { thinking: 'off' } },
    ]) {
      const quick = quickAdapterConfig(config);
      expect(quick).not.toBeNull();
      agrees(quick, AdapterConfigSchema, config);
    }
  });

  it('leaves to the schema a URL it would rewrite', () => {
    expect(quickAdapterConfig({ base_url: ' http://a.test ' })).toBeNull();
    expect(quickAdapterConfig({ base_url: 'http://a\n.test' })).toBeNull();
    expect(quickAdapterConfig({ base_url: 'not a url' })).toBeNull();
  });

  it('never accepts what the schema refuses, and agrees on what it accepts', () => {
    const keys = [
      'api_key',
      'base_url',
      'timeout_seconds',
      'idle_timeout_seconds',
      'max_retries',
      'extra_headers',
      'options',
      'unknown',
    ];
    fc.assert(
      fc.property(fc.constantFrom(...keys), anyValue, (key, value) => {
        const config = { api_key: 'k', [key]: value };
        agrees(quickAdapterConfig(config), AdapterConfigSchema, config);
      }),
      { numRuns: 400 },
    );
  });
});

describe('quickFreshMessage and createMessage', () => {
  it('createMessage gives what the schema gives, sharing nothing with its input', () => {
    const input = { path: 'a.txt' };
    const content = [
      { type: 'text' as const, text: 'see' },
      { type: 'tool_use' as const, id: 'tu_1', name: 'read_file', input },
    ];
    const created = createMessage({ session_id: sessionId, role: 'assistant', content });
    expect(created).toEqual(MessageSchema.parse(created));
    expect(created.content).not.toBe(content);
    expect(created.content[1]).not.toBe(content[1]);
    expect((created.content[1] as { input: unknown }).input).not.toBe(input);
  });

  it('agrees with the schema on a message it accepts', () => {
    const value = { ...message, metadata: { status: 'complete', model: 'm' } };
    const quick = quickFreshMessage(value);
    expect(quick).not.toBeNull();
    agrees(quick, MessageSchema, value);
  });

  it('writes keys in the schema order whatever order they were given in', () => {
    const value = {
      schema_version: 1,
      created_at: message.created_at,
      metadata: {
        extra: 1,
        usage: {
          latency_ms: 3,
          pricing_version: null,
          cost_usd: null,
          output_tokens: 2,
          input_tokens: 1,
          cached_input_tokens: 0,
          cache_creation_input_tokens: 0,
        },
        status: 'complete',
        model: 'm',
      },
      content: [
        { text: 't', type: 'text' },
        { input: { b: 1, a: 2 }, name: 'n', id: 'tu_1', type: 'tool_use' },
        { signature: null, text: 'x', type: 'thinking' },
        {
          is_error: false,
          content: [
            { media_type: 'image/png', source: { data: 'AA', kind: 'base64' }, type: 'image' },
          ],
          tool_use_id: 'tu_1',
          type: 'tool_result',
        },
        { data: 'r', type: 'redacted_thinking' },
      ],
      role: 'assistant',
      session_id: sessionId,
      id: message.id,
    };
    const quick = quickFreshMessage(value);
    expect(quick).not.toBeNull();
    agrees(quick, MessageSchema, value);
  });
});

describe('lists written out instead of read from schemas (decision 0198)', () => {
  it('KNOWN_METADATA_FIELDS are the metadata schema keys, in order', () => {
    expect(KNOWN_METADATA_FIELDS).toEqual(Object.keys(MessageMetadataSchema.shape));
  });

  it('isAdapterError knows exactly the classes of ErrorClassSchema', () => {
    for (const errorClass of ErrorClassSchema.options) {
      expect(isAdapterError(new AdapterError(errorClass, 'x', { provider: 'p' }))).toBe(true);
    }
    const forged = Object.assign(new AdapterError('other', 'x', { provider: 'p' }), {
      error_class: 'unknown',
    });
    expect(isAdapterError(forged)).toBe(false);
  });
});
