import {
  type CanonicalRequest,
  createMemoryLogger,
  createMessage,
  newRequestId,
  newSessionId,
  ToolIdMap,
} from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import { toAnthropicParams } from '../src/codec.js';

const readFile = {
  name: 'read_file',
  description: 'Read a file',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  side_effects: 'read' as const,
  requires_workspace: true,
};

function req(extra: Partial<CanonicalRequest>): CanonicalRequest {
  return {
    request_id: newRequestId(),
    model: 'anthropic:claude-sonnet-4-6',
    messages: [
      createMessage({
        session_id: newSessionId(),
        role: 'user',
        content: [{ type: 'text', text: 'q' }],
      }),
    ],
    tools: [readFile],
    stop_sequences: [],
    max_output_tokens: 4096,
    stream: false,
    ...extra,
  };
}

describe('toAnthropicParams: tool_choice', () => {
  it('maps each value (required is any) and sends none without tools', () => {
    const sent = (tool_choice: CanonicalRequest['tool_choice']) =>
      toAnthropicParams(req({ tool_choice }), { toolIdMap: new ToolIdMap() }).params.tool_choice;
    expect(sent(undefined)).toBeUndefined();
    expect(sent('auto')).toEqual({ type: 'auto' });
    expect(sent('none')).toEqual({ type: 'none' });
    expect(sent('required')).toEqual({ type: 'any' });
    expect(sent({ type: 'tool', name: 'read_file' })).toEqual({ type: 'tool', name: 'read_file' });
  });

  it('sends a forced choice as auto with a WARN when thinking is on, which refuses it', () => {
    const logger = createMemoryLogger();
    const { params } = toAnthropicParams(
      req({ tool_choice: { type: 'tool', name: 'read_file' } }),
      {
        toolIdMap: new ToolIdMap(),
        options: { thinking: { type: 'adaptive' } },
        logger,
      },
    );
    expect(params.thinking).toEqual({ type: 'adaptive' });
    expect(params.tool_choice).toEqual({ type: 'auto' });
    expect(logger.warnings().map((w) => [w.obj.event, w.obj.tool_choice])).toEqual([
      ['tool_choice_downgraded', 'tool:read_file'],
    ]);
  });

  it('keeps none with thinking on (only forced choices are refused)', () => {
    const logger = createMemoryLogger();
    const { params } = toAnthropicParams(req({ tool_choice: 'none' }), {
      toolIdMap: new ToolIdMap(),
      options: { thinking: { type: 'adaptive' } },
      logger,
    });
    expect(params.tool_choice).toEqual({ type: 'none' });
    expect(logger.warnings()).toEqual([]);
  });

  it('wraps a non-object output schema as { value }', () => {
    const { params } = toAnthropicParams(
      req({ tools: [], output_schema: { type: 'array', items: { type: 'string' } } }),
      { toolIdMap: new ToolIdMap() },
    );
    expect(params.output_config?.format).toMatchObject({
      schema: { type: 'object', required: ['value'], properties: { value: { type: 'array' } } },
    });
  });
});

describe('toAnthropicParams: the output schema as structured output takes it', () => {
  it('moves constraints the API does not enforce into descriptions, with a WARN naming them', () => {
    const logger = createMemoryLogger();
    const { params } = toAnthropicParams(
      req({
        tools: [],
        output_schema: {
          type: 'object',
          properties: { age: { type: 'integer', minimum: 0 }, name: { type: 'string' } },
          required: ['age', 'name'],
        },
      }),
      { toolIdMap: new ToolIdMap(), logger },
    );
    const schema = params.output_config?.format?.schema as Record<string, unknown>;
    expect(schema).toMatchObject({
      additionalProperties: false,
      properties: {
        age: { type: 'integer', description: '{minimum: 0}' },
        name: { type: 'string' },
      },
    });
    expect(logger.warnings().map((w) => [w.obj.event, w.obj.dropped])).toEqual([
      ['structured_output_projected', [{ path: '$.properties.age', keyword: 'minimum' }]],
    ]);
  });
});
