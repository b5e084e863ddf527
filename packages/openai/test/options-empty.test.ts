import { emptyOutputOf } from '@yourtool/core/adapter';
import { describe, expect, it } from 'vitest';
import { OpenAICallOptionsSchema, OpenAIConfigOptionsSchema } from '../src/options.js';

// What `parseAdapterOptions` answers for options nobody set without building the schema
// (decision 0198) must be what the schema itself gives for `{}`.
describe('the options schemas: what they give for {}', () => {
  it.each([
    ['config', OpenAIConfigOptionsSchema],
    ['per call', OpenAICallOptionsSchema],
  ])('%s: the declared output for {} is the schema output', (_name, schema) => {
    const empty = emptyOutputOf(schema);
    expect(empty).toBeTypeOf('function');
    const parsed = schema.parse({});
    expect(empty?.()).toStrictEqual(parsed);
    expect(Object.keys(empty?.() ?? {})).toEqual(Object.keys(parsed));
  });
});
