import { emptyOutputOf } from '@yourtool/core/adapter';
import { describe, expect, it } from 'vitest';
import { AnthropicCallOptionsSchema, AnthropicConfigOptionsSchema } from '../src/options.js';
import { VertexAnthropicConfigOptionsSchema } from '../src/vertex/options.js';

// What `parseAdapterOptions` answers for options nobody set without building the schema
// (decision 0198) must be what the schema itself gives for `{}`.
describe('the options schemas: what they give for {}', () => {
  it.each([
    ['config', AnthropicConfigOptionsSchema],
    ['per call', AnthropicCallOptionsSchema],
    ['vertex config', VertexAnthropicConfigOptionsSchema],
  ])('%s: the declared output for {} is the schema output', (_name, schema) => {
    const empty = emptyOutputOf(schema);
    expect(empty).toBeTypeOf('function');
    const parsed = schema.parse({});
    expect(empty?.()).toStrictEqual(parsed);
    expect(Object.keys(empty?.() ?? {})).toEqual(Object.keys(parsed));
  });
});
