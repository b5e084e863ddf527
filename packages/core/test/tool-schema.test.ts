import { describe, expect, it } from 'vitest';
import {
  checkToolInputSchema,
  ToolDefinitionError,
  validateToolDefinition,
  validateToolInput,
} from './exports.js';

const base = {
  name: 'search_docs',
  description: 'Search the docs',
  side_effects: 'read' as const,
};

const good = {
  type: 'object',
  description: 'query',
  properties: {
    query: { type: 'string', description: 'what to look for', minLength: 1 },
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
    kind: { type: 'string', enum: ['guide', 'api'] },
    since: { type: 'string', format: 'date-time' },
    tags: { type: 'array', items: { type: 'string' } },
    filter: {
      type: 'object',
      properties: { lang: { type: ['string', 'null'] } },
      additionalProperties: false,
    },
  },
  required: ['query'],
  additionalProperties: false,
};

describe('validateToolDefinition: the JSON-Schema subset', () => {
  it('accepts a schema inside the subset and applies defaults', () => {
    const def = validateToolDefinition({ ...base, input_schema: good });
    expect(def.requires_workspace).toBe(true);
    expect(checkToolInputSchema(good)).toEqual([]);
  });

  const disallowed: Array<[string, Record<string, unknown>, string]> = [
    ['$ref', { $ref: '#/$defs/q' }, 'input_schema.properties.q.$ref'],
    [
      'oneOf',
      { oneOf: [{ type: 'string' }, { type: 'number' }] },
      'input_schema.properties.q.oneOf',
    ],
    ['anyOf', { anyOf: [{ type: 'string' }] }, 'input_schema.properties.q.anyOf'],
    ['allOf', { allOf: [{ type: 'string' }] }, 'input_schema.properties.q.allOf'],
    ['not', { not: { type: 'string' } }, 'input_schema.properties.q.not'],
    ['if', { if: { type: 'string' } }, 'input_schema.properties.q.if'],
    // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword under test, not a thenable
    ['then', { then: { type: 'string' } }, 'input_schema.properties.q.then'],
    ['else', { else: { type: 'string' } }, 'input_schema.properties.q.else'],
    [
      'patternProperties',
      { type: 'object', patternProperties: { '^x': { type: 'string' } } },
      'input_schema.properties.q.patternProperties',
    ],
    [
      'additionalProperties as a schema',
      { type: 'object', additionalProperties: { type: 'string' } },
      'input_schema.properties.q.additionalProperties',
    ],
    [
      'tuple items',
      { type: 'array', items: [{ type: 'string' }] },
      'input_schema.properties.q.items',
    ],
    ['unknown type', { type: 'date' }, 'input_schema.properties.q.type'],
    [
      'unknown keyword',
      { type: 'string', contentEncoding: 'base64' },
      'input_schema.properties.q.contentEncoding',
    ],
    [
      'unknown format',
      { type: 'string', format: 'credit-card' },
      'input_schema.properties.q.format',
    ],
  ];
  for (const [construct, schema, path] of disallowed) {
    it(`refuses ${construct} with its path`, () => {
      const input_schema = { type: 'object', properties: { q: schema } };
      expect(() => validateToolDefinition({ ...base, input_schema })).toThrowError(
        ToolDefinitionError,
      );
      expect(checkToolInputSchema(input_schema).map((i) => i.path)).toContain(path);
    });
  }

  it('finds constructs nested deep inside items and properties', () => {
    const input_schema = {
      type: 'object',
      properties: {
        list: { type: 'array', items: { type: 'object', properties: { v: { anyOf: [] } } } },
      },
    };
    expect(checkToolInputSchema(input_schema).map((i) => i.path)).toEqual([
      'input_schema.properties.list.items.properties.v.anyOf',
    ]);
  });

  it('requires an object root and declared required properties', () => {
    expect(checkToolInputSchema({ type: 'string' }).map((i) => i.path)).toEqual([
      'input_schema.type',
    ]);
    expect(checkToolInputSchema({ type: 'object', properties: {}, required: ['ghost'] })).toEqual([
      expect.objectContaining({ path: 'input_schema.required[0]' }),
    ]);
  });

  it('refuses bad names and missing side effects, listing every problem', () => {
    try {
      validateToolDefinition({
        name: 'Read File',
        description: 'x',
        input_schema: { type: 'object', oneOf: [] },
      });
      expect.unreachable();
    } catch (error) {
      const e = error as ToolDefinitionError;
      expect(e.issues.map((i) => i.path).sort()).toEqual([
        'input_schema.oneOf',
        'name',
        'side_effects',
      ]);
      expect(e.message).toContain('"Read File"');
    }
  });
});

describe('validateToolInput', () => {
  const def = validateToolDefinition({ ...base, input_schema: good });

  it('accepts a valid input', () => {
    expect(validateToolInput(def, { query: 'ulid', limit: 5, tags: ['a'] })).toEqual({ ok: true });
  });

  it('reports each problem with its path', () => {
    const result = validateToolInput(def, { limit: 500, tags: ['a', 3], extra: true });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      const paths = result.issues.map((i) => i.path).sort();
      expect(paths).toEqual(['input.extra', 'input.limit', 'input.query', 'input.tags[1]']);
    }
  });
});
