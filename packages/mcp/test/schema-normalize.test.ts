import { checkToolInputSchema } from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import { normalizeInputSchema } from '../src/index.js';
// @ts-expect-error: plain JavaScript fixture
import { BOOKING_SCHEMA } from './fixtures/tools-server.mjs';

function normalized(schema: unknown) {
  const result = normalizeInputSchema(schema);
  if (!result.ok)
    throw new Error(`refused: ${result.construct} at ${result.path}: ${result.reason}`);
  expect(checkToolInputSchema(result.schema)).toEqual([]);
  return result.schema;
}

describe('normalizeInputSchema', () => {
  it('inlines $defs, folds Optional[X] into a nullable type, drops titles, loosens record schemas', () => {
    expect(checkToolInputSchema(BOOKING_SCHEMA).length).toBeGreaterThan(0);
    expect(normalized(BOOKING_SCHEMA)).toEqual({
      type: 'object',
      properties: {
        guest: {
          type: 'object',
          description: 'Who stays',
          properties: {
            name: { type: 'string' },
            email: { type: ['string', 'null'], format: 'email', default: null },
          },
          required: ['name'],
        },
        nights: { type: ['integer', 'null'], minimum: 1 },
        tags: { type: 'object', additionalProperties: true },
      },
      required: ['guest'],
    });
  });

  it('keeps the enum of a nullable enum, and reads a union of bare types as a type list', () => {
    expect(
      normalized({
        type: 'object',
        properties: {
          unit: { oneOf: [{ enum: ['c', 'f'], type: 'string' }, { type: 'null' }] },
          id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
          legacy: { type: 'string', nullable: true, 'x-order': 1, deprecated: true },
        },
      }).properties,
    ).toEqual({
      unit: { type: ['string', 'null'], enum: ['c', 'f', null] },
      id: { type: ['string', 'integer'] },
      legacy: { type: ['string', 'null'] },
    });
  });

  it('drops $schema and unknown formats, declares required names, and types an empty root', () => {
    expect(
      normalized({
        $schema: 'http://json-schema.org/draft-07/schema#',
        properties: { at: { type: 'string', format: 'uri-reference' } },
        required: ['at', 'extra'],
      }),
    ).toEqual({
      type: 'object',
      properties: { at: { type: 'string' }, extra: {} },
      required: ['at', 'extra'],
    });
    expect(normalized({})).toEqual({ type: 'object' });
  });

  it.each([
    [
      {
        type: 'object',
        $defs: { N: { properties: { n: { $ref: '#/$defs/N' } } } },
        properties: { n: { $ref: '#/$defs/N' } },
      },
      '$ref',
      'input_schema.properties.n.properties.n',
    ],
    [
      {
        type: 'object',
        properties: { a: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'object' }] } },
      },
      'anyOf',
      'input_schema.properties.a.anyOf',
    ],
    [
      { type: 'object', properties: { a: { allOf: [{ type: 'string' }] } } },
      'allOf',
      'input_schema.properties.a.allOf',
    ],
    [
      { type: 'object', patternProperties: { '^x': { type: 'string' } } },
      'patternProperties',
      'input_schema.patternProperties',
    ],
    [
      { type: 'object', properties: { t: { type: 'array', items: [{ type: 'string' }] } } },
      'items',
      'input_schema.properties.t.items',
    ],
    [
      { type: 'object', properties: { r: { $ref: 'https://example.com/s.json' } } },
      '$ref',
      'input_schema.properties.r',
    ],
    [{ type: 'string' }, 'type', 'input_schema.type'],
  ])(
    'refuses what the subset cannot say (%#), naming construct and path',
    (schema, construct, path) => {
      const result = normalizeInputSchema(schema);
      expect(result).toMatchObject({ ok: false, construct, path });
    },
  );
});
