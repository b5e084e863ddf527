import Ajv from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { readStructuredOutput, resolveOutputSchema, validateToolInput } from '../src/index.js';
import { SchemaCompiler } from '../src/schema-compiler.js';

const recordSchema = () => ({
  type: 'object',
  properties: { id: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['id'],
  additionalProperties: false,
});

/** An Ajv that counts what it compiles and what it still holds. */
function countingAjv() {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  let compiled = 0;
  return {
    ajv: {
      compile: (schema: object) => {
        compiled++;
        return ajv.compile(schema);
      },
      removeSchema: (schema: object) => ajv.removeSchema(schema),
    },
    compiled: () => compiled,
    // Ajv keeps compiled schemas (its meta-schemas among them) in a private Map keyed by object
    held: () => (ajv as unknown as { _cache: Map<object, unknown> })._cache.size,
  };
}

describe('SchemaCompiler', () => {
  it('compiles equal schema objects once, and Ajv keeps none of them', () => {
    const counting = countingAjv();
    const compiler = new SchemaCompiler(counting.ajv);
    const metaSchemas = counting.held();
    const checks = Array.from({ length: 50 }, () => compiler.compile(recordSchema()));
    expect(counting.compiled()).toBe(1);
    expect(new Set(checks).size).toBe(1);
    expect(counting.held()).toBe(metaSchemas);
    expect(checks[0]?.({ id: 1, tags: ['a'] })).toBe(true);
    expect(checks[0]?.({ id: 'x' })).toBe(false);
  });

  it('keeps at most its limit, dropping the least recently used', () => {
    const counting = countingAjv();
    const compiler = new SchemaCompiler(counting.ajv, 3);
    const schema = (n: number) => ({ type: 'object', properties: { [`f${n}`]: { const: n } } });
    for (const n of [1, 2, 3]) compiler.compile(schema(n));
    compiler.compile(schema(1)); // 1 is now the most recent
    compiler.compile(schema(4)); // drops 2
    expect(compiler.size).toBe(3);
    expect(counting.compiled()).toBe(4);
    compiler.compile(schema(1));
    expect(counting.compiled()).toBe(4);
    compiler.compile(schema(2));
    expect(counting.compiled()).toBe(5);
  });

  it('compiles a schema with an $id and a recursive $ref again and again', () => {
    const compiler = new SchemaCompiler(new Ajv({ strict: false }), 1);
    const tree = () => ({
      $id: 'https://example.test/tree',
      type: 'object',
      properties: { children: { type: 'array', items: { $ref: '#' } } },
    });
    const other = { type: 'string' };
    for (let i = 0; i < 3; i++) {
      const check = compiler.compile(tree());
      expect(check({ children: [{ children: [] }] })).toBe(true);
      expect(check({ children: [{ children: 'no' }] })).toBe(false);
      compiler.compile(other); // evicts the tree: the next round compiles it anew
    }
  });

  it('serves output schemas built anew for every call from one compiled check', () => {
    const reply = {
      content: [{ type: 'text' as const, text: '{"id": 3, "tags": ["x"]}' }],
      stop_reason: 'end_turn' as const,
      refusal: null,
      request_id: 'r',
    };
    for (let i = 0; i < 5; i++) {
      const schema = resolveOutputSchema(recordSchema());
      expect(readStructuredOutput(reply, schema, { mode: 'native' }).value).toEqual({
        id: 3,
        tags: ['x'],
      });
    }
    const tool = () => ({ input_schema: recordSchema() });
    expect(validateToolInput(tool(), { id: 1 })).toEqual({ ok: true });
    expect(validateToolInput(tool(), { id: 1, extra: true }).ok).toBe(false);
  });
});
