import { createMemoryLogger, createMessage, ToolIdMap } from '@yourtool/core';
import { normalizeRequest } from '@yourtool/core/adapter';
import { describe, expect, it } from 'vitest';
import { toGeminiRequest } from '../src/codec.js';

const readFile = {
  name: 'read_file',
  description: 'Read a file',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  side_effects: 'read' as const,
};

function encode(extra: Record<string, unknown>) {
  const logger = createMemoryLogger();
  const request = normalizeRequest({
    request_id: 'req_structured',
    model: 'google:gemini-2.5-flash',
    messages: [
      createMessage({ session_id: 'sess_s', role: 'user', content: [{ type: 'text', text: 'q' }] }),
    ],
    max_output_tokens: 512,
    ...extra,
  });
  const { params } = toGeminiRequest(request, { toolIdMap: new ToolIdMap(), logger });
  return { config: params.config ?? {}, logger };
}

describe('toGeminiRequest: tool_choice', () => {
  it('maps auto, none, required (ANY) and a named tool (ANY, that function only)', () => {
    const mode = (tool_choice: unknown) =>
      encode({ tools: [readFile], tool_choice }).config.toolConfig?.functionCallingConfig;
    expect(encode({ tools: [readFile] }).config.toolConfig).toBeUndefined();
    expect(mode('auto')).toEqual({ mode: 'AUTO' });
    expect(mode('none')).toEqual({ mode: 'NONE' });
    expect(mode('required')).toEqual({ mode: 'ANY' });
    expect(mode({ type: 'tool', name: 'read_file' })).toEqual({
      mode: 'ANY',
      allowedFunctionNames: ['read_file'],
    });
  });
});

describe('toGeminiRequest: the output schema in Gemini’s subset', () => {
  it('leaves out constraints outside the subset with a WARN, keeps the rest', () => {
    const { config, logger } = encode({
      output_schema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: {
          code: { type: 'string', pattern: '^[A-Z]{3}$', description: 'airport' },
          n: { type: 'integer', minimum: 1, default: 2 },
          tags: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 3 },
        },
        required: ['code'],
        additionalProperties: false,
      },
    });
    expect(config.responseJsonSchema).toEqual({
      type: 'object',
      properties: {
        code: { type: 'string', description: 'airport' },
        n: { type: 'integer', minimum: 1 },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
      },
      required: ['code'],
      additionalProperties: false,
    });
    expect(logger.warnings().map((w) => [w.obj.event, w.obj.dropped])).toEqual([
      [
        'structured_output_projected',
        [
          { path: '$.properties.code', keyword: 'pattern' },
          { path: '$.properties.tags.items', keyword: 'minLength' },
        ],
      ],
    ]);
  });

  it('sends a schema inside the subset unchanged, without a WARN', () => {
    const schema = { type: 'array', items: { type: 'integer' } };
    const { config, logger } = encode({ output_schema: schema });
    expect(config.responseJsonSchema).toEqual(schema);
    expect(logger.warnings()).toEqual([]);
  });
});
