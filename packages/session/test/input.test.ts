import { describe, expect, it } from 'vitest';
import { DuplicateToolError, parseUserInput, ToolRegistry } from '../src/index.js';

describe('parseUserInput', () => {
  it('reads /model swaps, @model overrides and plain messages', () => {
    expect(parseUserInput('/model gpt5')).toEqual({ kind: 'swap', model: 'gpt5' });
    expect(parseUserInput('  /model  ')).toEqual({ kind: 'show_model' });
    expect(parseUserInput('@opus explain this\nin detail')).toEqual({
      kind: 'message',
      text: 'explain this\nin detail',
      override: 'opus',
    });
    expect(parseUserInput('email me @ noon')).toEqual({
      kind: 'message',
      text: 'email me @ noon',
      override: null,
    });
    expect(parseUserInput('/models are fun')).toEqual({
      kind: 'message',
      text: '/models are fun',
      override: null,
    });
  });
});

describe('ToolRegistry', () => {
  const tool = (
    name: string,
    input_schema: Record<string, unknown> = { type: 'object', properties: {} },
  ) => ({
    definition: { name, description: 'x', input_schema, side_effects: 'none' as const },
    run: () => 'ok',
  });

  it('validates definitions at registration', () => {
    const registry = new ToolRegistry([tool('get_time')]);
    expect(registry.definitions().map((d) => [d.name, d.requires_workspace])).toEqual([
      ['get_time', true],
    ]);
    expect(() => registry.register(tool('get_time'))).toThrowError(DuplicateToolError);
    expect(() =>
      registry.register(tool('pick', { type: 'object', properties: { v: { oneOf: [] } } })),
    ).toThrow(/input_schema\.properties\.v\.oneOf/);
  });
});
