import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import { type ContentBlock, createMessage, type Message, ToolIdMap } from '@yourtool/core';
import { normalizeRequest } from '@yourtool/core/adapter';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { toGeminiRequest } from '../src/codec.js';
import { GoogleAdapter } from '../src/index.js';

/**
 * Vertex AI refused `id` in `functionCall` and `functionResponse` ("Unknown name \"id\"",
 * decision 0170): on Vertex the adapter sends neither, and results pair with their calls by
 * order and name; the Gemini API keeps getting ids.
 */

const SESSION = 'sess_vertex_ids';
const MODEL = 'google:gemini-2.5-flash';

const user = (text: string): Message =>
  createMessage({ session_id: SESSION, role: 'user', content: [{ type: 'text', text }] });

const calls: ContentBlock[] = [
  {
    type: 'tool_use',
    id: 'tu_01JZVERTEXIDS000000000001',
    name: 'read_file',
    input: { path: 'a.md' },
  },
  {
    type: 'tool_use',
    id: 'tu_01JZVERTEXIDS000000000002',
    name: 'read_file',
    input: { path: 'b.md' },
  },
];

const result = (id: string, text: string): Message =>
  createMessage({
    session_id: SESSION,
    role: 'tool',
    content: [
      { type: 'tool_result', tool_use_id: id, content: [{ type: 'text', text }], is_error: false },
    ],
    metadata: { parent_tool_use_id: id },
  });

const history = (): Message[] => [
  user('Read a.md and b.md'),
  createMessage({
    session_id: SESSION,
    role: 'assistant',
    content: calls,
    metadata: { model: MODEL, provider: 'google' },
  }),
  result('tu_01JZVERTEXIDS000000000001', 'A'),
  result('tu_01JZVERTEXIDS000000000002', 'B'),
];

const READ_FILE = {
  name: 'read_file',
  description: 'Read a file.',
  input_schema: { type: 'object', properties: { path: { type: 'string' } } },
  side_effects: 'read' as const,
};

const request = () =>
  normalizeRequest({
    request_id: 'req_vertex_ids',
    model: MODEL,
    messages: history(),
    max_output_tokens: 256,
    tools: [READ_FILE],
  });

type Part = { functionCall?: Record<string, unknown>; functionResponse?: Record<string, unknown> };
const partsOf = (contents: unknown, key: keyof Part): Array<Record<string, unknown>> =>
  (contents as Array<{ parts?: Part[] }>)
    .flatMap((c) => c.parts ?? [])
    .flatMap((p) => (p[key] ? [p[key]] : []));

describe('function call ids', () => {
  it('on Vertex AI: no id on calls or responses, responses in the order and under the names of their calls', () => {
    const { params } = toGeminiRequest(request(), {
      toolIdMap: new ToolIdMap(),
      options: { functionCallIds: false },
    });
    expect(partsOf(params.contents, 'functionCall')).toEqual([
      { name: 'read_file', args: { path: 'a.md' } },
      { name: 'read_file', args: { path: 'b.md' } },
    ]);
    expect(partsOf(params.contents, 'functionResponse')).toEqual([
      { name: 'read_file', response: { output: 'A' } },
      { name: 'read_file', response: { output: 'B' } },
    ]);
  });

  it('on the Gemini API: each call and its response carry the same id', () => {
    const { params } = toGeminiRequest(request(), { toolIdMap: new ToolIdMap() });
    const ids = partsOf(params.contents, 'functionCall').map((c) => c.id);
    expect(ids).toEqual(['tu_01JZVERTEXIDS000000000001', 'tu_01JZVERTEXIDS000000000002']);
    expect(partsOf(params.contents, 'functionResponse').map((r) => r.id)).toEqual(ids);
  });
});

describe('through the adapter and the real @google/genai', () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer();
  });
  afterAll(() => server.close());
  afterEach(() => vi.unstubAllEnvs());

  const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
  const ask = async (adapter: GoogleAdapter) => {
    server.reset();
    server.enqueue(...(fixtures.text ?? []));
    await adapter.complete(request());
    return server.requests[0];
  };

  it('Vertex chosen by GOOGLE_GENAI_USE_VERTEXAI sends no ids, to the project path', async () => {
    vi.stubEnv('GOOGLE_GENAI_USE_VERTEXAI', 'true');
    const sent = await ask(
      new GoogleAdapter({
        api_key: 'vertex-express-key-000000',
        base_url: server.url,
        options: { project: 'p1', location: 'europe-west4' },
      }),
    );
    expect(sent?.path).toBe(
      '/v1beta1/projects/p1/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    const body = sent?.body as { contents: Array<{ parts?: Part[] }> };
    expect(partsOf(body.contents, 'functionCall')).toHaveLength(2);
    for (const part of [
      ...partsOf(body.contents, 'functionCall'),
      ...partsOf(body.contents, 'functionResponse'),
    ])
      expect(part).not.toHaveProperty('id');
  });

  it('the Gemini API gets the ids', async () => {
    const sent = await ask(
      new GoogleAdapter({ api_key: 'gemini-key-000000', base_url: server.url }),
    );
    const body = sent?.body as { contents: Array<{ parts?: Part[] }> };
    expect(partsOf(body.contents, 'functionResponse').map((r) => r.id)).toEqual([
      'tu_01JZVERTEXIDS000000000001',
      'tu_01JZVERTEXIDS000000000002',
    ]);
  });
});
