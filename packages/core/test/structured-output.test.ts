import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  type CanonicalResponse,
  completeObject,
  createMemoryLogger,
  dropProjectedNulls,
  InvalidRequestError,
  normalizeRequest,
  OutputSchemaError,
  OutputValidationError,
  planStructuredOutput,
  readStructuredOutput,
  reportToolChoiceDowngrade,
  resolveOutputSchema,
  type StructuredOutputPlan,
  unwrapOutputValue,
  withStructuredOutput,
  wrapOutputSchema,
} from './exports.js';

const request = {
  request_id: 'req_1',
  messages: [],
  model: 'acme:m1',
  max_output_tokens: 100,
};

const person = z.object({ name: z.string(), age: z.number().int().min(0) });
const native: StructuredOutputPlan = { mode: 'native' };
const tool: StructuredOutputPlan = { mode: 'tool', toolName: 'structured_output' };

function reply(
  content: CanonicalResponse['content'],
  stop_reason: CanonicalResponse['stop_reason'] = 'end_turn',
  refusal?: string,
): CanonicalResponse {
  return {
    request_id: 'req_1',
    model: 'acme:m1',
    provider: 'acme',
    content,
    stop_reason,
    usage: {
      input_tokens: 1,
      output_tokens: 1,
      cached_input_tokens: 0,
      cache_creation_input_tokens: 0,
    },
    latency_ms: 1,
    ...(refusal === undefined ? {} : { refusal }),
  };
}

function failure(run: () => unknown): OutputValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof OutputValidationError) return error;
    throw error;
  }
  throw new Error('expected an OutputValidationError');
}

describe('resolveOutputSchema', () => {
  it('turns a zod schema into a JSON Schema without $schema, and validates with zod', () => {
    const schema = resolveOutputSchema(person);
    expect(schema.jsonSchema.$schema).toBeUndefined();
    expect(schema.jsonSchema).toMatchObject({ type: 'object', required: ['name', 'age'] });
    expect(schema.validate({ name: 'Ada', age: 36 })).toEqual({
      ok: true,
      value: { name: 'Ada', age: 36 },
    });
    const bad = schema.validate({ name: 'Ada', age: -1 });
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.issues).toEqual([expect.objectContaining({ path: '$.age', rule: 'too_small' })]);
    expect(resolveOutputSchema(person)).toBe(schema);
  });

  it('validates a JSON Schema with ajv, naming the path and keyword', () => {
    const schema = resolveOutputSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'integer' } } },
      required: ['items'],
    });
    expect(schema.validate({ items: [1, 2] }).ok).toBe(true);
    expect(schema.validate({ items: [1, 'x'] })).toEqual({
      ok: false,
      issues: [{ path: '$.items[1]', rule: 'type', message: 'must be integer' }],
    });
    expect(schema.validate({})).toEqual({
      ok: false,
      issues: [expect.objectContaining({ path: '$.items', rule: 'required' })],
    });
  });

  it('refuses what is not a schema with a typed error', () => {
    expect(() => resolveOutputSchema({ type: 'no-such-type' })).toThrow(OutputSchemaError);
    expect(() => resolveOutputSchema([] as unknown as Record<string, unknown>)).toThrow(
      /JSON Schema object/,
    );
    expect(() => resolveOutputSchema(z.date())).toThrow(OutputSchemaError);
  });

  it('types the object from a zod schema', () => {
    const schema = resolveOutputSchema(person);
    const check = schema.validate({});
    if (check.ok) expectTypeOf(check.value).toEqualTypeOf<{ name: string; age: number }>();
    expectTypeOf(resolveOutputSchema({ type: 'string' }).validate).returns.toMatchTypeOf<object>();
  });
});

describe('planStructuredOutput and withStructuredOutput', () => {
  it('plans native, then the forced tool, then refuses', () => {
    expect(
      planStructuredOutput({ supports_structured_output: true, supports_tools: true }),
    ).toEqual(native);
    expect(
      planStructuredOutput(
        { supports_structured_output: true, supports_tools: true },
        { prefer: 'tool' },
      ),
    ).toEqual(tool);
    expect(
      planStructuredOutput({ supports_structured_output: false, supports_tools: true }),
    ).toEqual(tool);
    expect(() =>
      planStructuredOutput({ supports_structured_output: false, supports_tools: false }),
    ).toThrow(InvalidRequestError);
  });

  it('native: sets output_schema to the full schema', () => {
    const schema = resolveOutputSchema(person);
    const out = withStructuredOutput(request, schema, native);
    expect(out.output_schema).toEqual(schema.jsonSchema);
    expect(out.tool_choice).toBeUndefined();
  });

  it('tool: adds a forced tool carrying the (wrapped) schema, which normalizes', () => {
    const schema = resolveOutputSchema({ type: 'array', items: { type: 'string' } });
    const out = normalizeRequest(withStructuredOutput(request, schema, tool));
    expect(out.tool_choice).toEqual({ type: 'tool', name: 'structured_output' });
    expect(out.output_schema).toBeNull();
    expect(out.tools[0]?.input_schema).toEqual(wrapOutputSchema(schema.jsonSchema));
    expect(out.tools[0]?.input_schema).toMatchObject({ required: ['value'] });
  });

  it('tool: refuses a request that already has a tool of that name', () => {
    const schema = resolveOutputSchema(person);
    const clash = {
      ...request,
      tools: [
        {
          name: 'structured_output',
          description: 'x',
          input_schema: { type: 'object' },
          side_effects: 'none' as const,
        },
      ],
    };
    expect(() => withStructuredOutput(clash, schema, tool)).toThrow(/already offered/);
  });
});

describe('tool_choice on the canonical request', () => {
  const search = {
    name: 'search',
    description: 's',
    input_schema: { type: 'object' },
    side_effects: 'read' as const,
  };

  it('accepts each value with tools, and absent', () => {
    for (const choice of ['auto', 'none', 'required', { type: 'tool', name: 'search' }] as const) {
      expect(
        normalizeRequest({ ...request, tools: [search], tool_choice: choice }).tool_choice,
      ).toEqual(choice);
    }
    expect(normalizeRequest(request).tool_choice).toBeUndefined();
  });

  it('refuses a named tool that is not offered and a forced choice without tools', () => {
    expect(() =>
      normalizeRequest({
        ...request,
        tools: [search],
        tool_choice: { type: 'tool', name: 'fetch' },
      }),
    ).toThrow(/tool_choice\.name: "fetch" is not among the request's tools \(search\)/);
    expect(() => normalizeRequest({ ...request, tool_choice: 'required' })).toThrow(
      /tool_choice: a forced tool choice needs at least one tool/,
    );
    expect(() =>
      normalizeRequest({ ...request, tool_choice: 'always' as unknown as 'auto' }),
    ).toThrow(InvalidRequestError);
  });

  it('logs a downgrade as a WARN naming the choice and the reason', () => {
    const logger = createMemoryLogger();
    reportToolChoiceDowngrade(logger, {
      adapter: 'ollama',
      request_id: 'req_1',
      choice: { type: 'tool', name: 'search' },
      reason: 'Ollama cannot force a tool call',
    });
    expect(logger.records).toEqual([
      expect.objectContaining({
        level: 'warn',
        obj: expect.objectContaining({
          event: 'tool_choice_downgraded',
          tool_choice: 'tool:search',
        }),
      }),
    ]);
  });
});

describe('readStructuredOutput', () => {
  const schema = resolveOutputSchema(person);

  it('reads a native reply and a tool call', () => {
    const text = '{"name":"Ada","age":36}';
    expect(readStructuredOutput(reply([{ type: 'text', text }]), schema, native)).toEqual({
      value: { name: 'Ada', age: 36 },
      text,
    });
    const call = reply(
      [{ type: 'tool_use', id: 't1', name: 'structured_output', input: { name: 'Bo', age: 2 } }],
      'tool_use',
    );
    expect(readStructuredOutput(call, schema, tool).value).toEqual({ name: 'Bo', age: 2 });
  });

  it('unwraps a non-object schema from { value }, both modes', () => {
    const list = resolveOutputSchema({ type: 'array', items: { type: 'integer' } });
    expect(
      readStructuredOutput(reply([{ type: 'text', text: '{"value":[1,2]}' }]), list, native).value,
    ).toEqual([1, 2]);
    expect(
      readStructuredOutput(reply([{ type: 'text', text: '[3]' }]), list, native).value,
    ).toEqual([3]);
    expect(unwrapOutputValue({ type: 'object' }, { value: 1 })).toEqual({ value: 1 });
  });

  it('an invalid object names path and rule', () => {
    const error = failure(() =>
      readStructuredOutput(
        reply([{ type: 'text', text: '{"name":"Ada","age":"old"}' }]),
        schema,
        native,
      ),
    );
    expect(error.issues).toEqual([
      expect.objectContaining({ path: '$.age', rule: 'invalid_type' }),
    ]);
    expect(error.cut).toBe(false);
    expect(error.stop_reason).toBe('end_turn');
    expect(error.code).toBe('output_invalid');
    expect(error.message).toMatch(/\$\.age/);
  });

  it('text that is not JSON, and a reply cut at max_tokens', () => {
    const notJson = failure(() =>
      readStructuredOutput(reply([{ type: 'text', text: 'not json at all' }]), schema, native),
    );
    expect(notJson.issues[0]).toMatchObject({ path: '$', rule: 'json' });
    const cut = failure(() =>
      readStructuredOutput(
        reply([{ type: 'text', text: '{"name":"Ad' }], 'max_tokens'),
        schema,
        native,
      ),
    );
    expect(cut.cut).toBe(true);
    expect(cut.stop_reason).toBe('max_tokens');
    expect(cut.message).toMatch(/cut at max_tokens/);
  });

  it('a missing tool call, and refusals', () => {
    const missing = failure(() =>
      readStructuredOutput(reply([{ type: 'text', text: 'hi' }]), schema, tool),
    );
    expect(missing.issues[0]).toMatchObject({ rule: 'tool_call' });
    const refused = failure(() =>
      readStructuredOutput(
        reply([{ type: 'text', text: 'I cannot help.' }], 'refusal'),
        schema,
        native,
      ),
    );
    expect(refused.refusal).toBe('I cannot help.');
    expect(refused.code).toBe('output_refused');
    const field = failure(() =>
      readStructuredOutput(
        reply([{ type: 'text', text: '' }], 'end_turn', 'Not allowed'),
        schema,
        native,
      ),
    );
    expect(field.refusal).toBe('Not allowed');
  });
});

describe('completeObject', () => {
  function adapterAnswering(
    capabilities: { supports_structured_output: boolean; supports_tools: boolean },
    answer: (sent: Record<string, unknown>) => CanonicalResponse,
  ) {
    const sent: Record<string, unknown>[] = [];
    return {
      sent,
      adapter: {
        capabilitiesFor: () => capabilities as never,
        complete: async (req: unknown) => {
          sent.push(req as Record<string, unknown>);
          return answer(req as Record<string, unknown>);
        },
      },
    };
  }

  it('plans from capabilities, sends the schema, returns the typed object', async () => {
    const { adapter, sent } = adapterAnswering(
      { supports_structured_output: false, supports_tools: true },
      () =>
        reply([
          { type: 'tool_use', id: 't', name: 'structured_output', input: { name: 'Cy', age: 3 } },
        ]),
    );
    const result = await completeObject(adapter, request, { schema: person });
    expectTypeOf(result.object).toEqualTypeOf<{ name: string; age: number }>();
    expect(result.object).toEqual({ name: 'Cy', age: 3 });
    expect(sent[0]?.tool_choice).toEqual({ type: 'tool', name: 'structured_output' });
  });

  it('rejects with OutputValidationError on a bad native reply', async () => {
    const { adapter, sent } = adapterAnswering(
      { supports_structured_output: true, supports_tools: true },
      () => reply([{ type: 'text', text: '{"name":1}' }]),
    );
    await expect(completeObject(adapter, request, { schema: person })).rejects.toBeInstanceOf(
      OutputValidationError,
    );
    expect(sent[0]?.output_schema).toMatchObject({ type: 'object' });
  });
});

describe('readStructuredOutput with the value the stream parser read', () => {
  const schema = resolveOutputSchema({
    type: 'object',
    properties: { n: { type: 'integer' } },
    required: ['n'],
  });
  const text = '{"n": 1}';

  it('takes the parsed value when it read the whole reply text, and still validates it', () => {
    const value = { n: 1 };
    const read = readStructuredOutput(reply([{ type: 'text', text }]), schema, native, {
      length: text.length,
      value,
    });
    expect(read.value).toBe(value);
    expect(() =>
      readStructuredOutput(reply([{ type: 'text', text }]), schema, native, {
        length: text.length,
        value: { n: 'one' },
      }),
    ).toThrow(OutputValidationError);
  });

  it('parses the text itself when the parser read another length', () => {
    const read = readStructuredOutput(reply([{ type: 'text', text }]), schema, native, {
      length: 3,
      value: { n: 2 },
    });
    expect(read.value).toEqual({ n: 1 });
  });
});

describe('dropProjectedNulls', () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      nick: { type: 'string' },
      note: { type: ['string', 'null'] },
      pets: { type: 'array', items: { type: 'object', properties: { age: { type: 'integer' } } } },
    },
    required: ['name'],
  };

  it('reads a null for an optional property that takes none as absent, nested too', () => {
    expect(
      dropProjectedNulls(schema, { name: 'a', nick: null, note: null, pets: [{ age: null }] }),
    ).toEqual({ name: 'a', note: null, pets: [{}] });
  });

  it('keeps a null for a required property, for validation to refuse', () => {
    const read = readStructuredOutput(
      reply([{ type: 'text', text: '{"name":"Ada","age":1,"nick":null}' }]),
      resolveOutputSchema({
        ...schema,
        properties: { ...schema.properties, age: { type: 'integer' } },
      }),
      native,
    );
    expect(read.value).toEqual({ name: 'Ada', age: 1 });
    expect(dropProjectedNulls(schema, { name: null })).toEqual({ name: null });
  });

  it('copies only what changed, and keeps the key order and a `__proto__` member', () => {
    const untouched = { name: 'a', pets: [{ age: 2 }, { age: 3 }] };
    expect(dropProjectedNulls(schema, untouched)).toBe(untouched);
    const value = JSON.parse(
      '{"name":"a","__proto__":1,"nick":null,"pets":[{"age":1},{"age":null}]}',
    );
    const dropped = dropProjectedNulls(schema, value) as Record<string, unknown>;
    expect(Object.keys(dropped)).toEqual(['name', '__proto__', 'pets']);
    expect(Object.getPrototypeOf(dropped)).toBe(Object.prototype);
    expect((dropped.pets as unknown[])[0]).toBe(value.pets[0]);
    expect((dropped.pets as unknown[])[1]).toEqual({});
  });

  it('returns the value itself when the schema has no optional property', () => {
    const strict = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    const value = { a: null };
    expect(dropProjectedNulls(strict, value)).toBe(value);
  });
});
