import { AdapterOptionError } from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import { OpenAICompatibleAdapter } from '../src/index.js';

/**
 * A misspelt option is refused naming the option it was meant to be, found among the keys of
 * the object it sits in (issue 35), as core's `AdapterBase.parseOptions` does for the other
 * adapters. A top-level one is the conformance scenario `config-options-unknown-key`'s; here the
 * nested objects only this adapter has.
 */

/** The error building an adapter with `options` throws (it must throw one). */
function refused(options: Record<string, unknown>): AdapterOptionError {
  try {
    new OpenAICompatibleAdapter({ base_url: 'http://127.0.0.1:9/v1', options });
  } catch (error) {
    expect(error).toBeInstanceOf(AdapterOptionError);
    return error as AdapterOptionError;
  }
  throw new Error('the adapter took the options');
}

describe('openai-compatible options: unknown keys name the nearest known one', () => {
  it('a misspelt option of a nested object, among that object’s keys', () => {
    expect(refused({ tool_id: { max_lenght: 9 } }).reason).toBe(
      'unknown option "max_lenght"; did you mean "max_length"?',
    );
    const model = refused({ models: { m: { supports_tool: true } } });
    expect(model.path).toBe('options.models.m');
    expect(model.reason).toBe('unknown option "supports_tool"; did you mean "supports_tools"?');
  });
});
