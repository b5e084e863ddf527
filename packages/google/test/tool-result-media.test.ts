import {
  type LoopbackServer,
  replayKit,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  type CanonicalResponse,
  type ContentBlock,
  createMemoryLogger,
  createMessage,
  type MemoryLogger,
  type Message,
  newRequestId,
  ToolIdMap,
} from '@yourtool/core';
import { collectStream } from '@yourtool/core/adapter';
import { PNG_1PX_BASE64 } from '@yourtool/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GoogleAdapter } from '../src/index.js';

/**
 * Images returned by parallel tool calls (decision 0151), through the real adapter and
 * `@google/genai` against the loopback server. Gemini answers 400 "Please ensure that the number
 * of function response parts is equal to the number of function call parts of the function
 * call turn" when other parts sit among the function responses of a parallel turn. Gemini 3
 * takes a result's images nested in its `functionResponse.parts` (Google's multimodal function
 * responses: PNG, JPEG, WebP as `inlineData`); Gemini 2.x refuses nested media, so there the
 * turn holds the function responses first, one per call, and the images after all of them.
 */

const SESSION = 'sess_tool_result_media';
const READ_FILE = {
  name: 'read_file',
  description: 'Read a file from the workspace (text, or an image).',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  side_effects: 'read' as const,
  requires_workspace: true,
};
const PNG = PNG_1PX_BASE64;
const HEIC = 'AAAAGGZ0eXBoZWljAAAAAG1pZjFoZWlj';
const URL_IMAGE = 'https://example.com/diagram.webp';

let server: LoopbackServer;
let logger: MemoryLogger;
let adapter: GoogleAdapter;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  logger = createMemoryLogger();
  adapter = new GoogleAdapter(
    { api_key: 'gemini-test-0000000000', base_url: server.url, max_retries: 0 },
    { logger },
  );
});
afterEach(() => adapter.close());

const { user, reply } = replayKit(SESSION, { tools: [READ_FILE] });

/** A `generateContent` reply made of `parts`. */
const jsonReply = (parts: Array<Record<string, unknown>>): ScriptedResponse => ({
  type: 'json',
  body: {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 12, totalTokenCount: 52 },
    modelVersion: 'gemini-model',
    responseId: 'resp_media_1',
  },
});

/** Two parallel calls as Gemini sends them: no ids, only the first one signed. */
const PARALLEL_CALLS = jsonReply([
  {
    functionCall: { name: 'read_file', args: { path: 'chart.png' } },
    thoughtSignature: 'GEMINI-CALL-SIG',
  },
  { functionCall: { name: 'read_file', args: { path: 'LICENSE' } } },
]);

type Image = Extract<ContentBlock, { type: 'image' }>;
const png: Image = {
  type: 'image',
  source: { kind: 'base64', data: PNG },
  media_type: 'image/png',
};

/** The tool message answering `use` with `content`. */
const result = (use: Extract<ContentBlock, { type: 'tool_use' }>, content: ContentBlock[]) =>
  createMessage({
    session_id: SESSION,
    role: 'tool',
    content: [
      { type: 'tool_result', tool_use_id: use.id, content: content as never, is_error: false },
    ],
    metadata: { parent_tool_use_id: use.id },
  });

type Part = Record<string, unknown> & {
  functionCall?: { id: string; name: string };
  functionResponse?: { id: string; name: string; response: unknown; parts?: unknown[] };
};
type Body = { contents: Array<{ role: string; parts: Part[] }> };
const lastBody = () => server.requests.at(-1)?.body as Body;

/**
 * A parallel tool loop on `model`: the calls (made by `model` itself), their results (the first
 * holding `images`), then the next request, whose body is returned with the calls' wire ids.
 */
async function parallelLoop(
  model: string,
  images: ContentBlock[],
  options: { followUp?: string; stream?: boolean } = {},
) {
  const map = new ToolIdMap();
  const question = user('Show me the chart and the license.');
  server.enqueue(PARALLEL_CALLS, jsonReply([{ text: 'A bar chart; MIT.' }]));
  const first: CanonicalResponse = await adapter.complete(
    {
      request_id: newRequestId(),
      model,
      messages: [question],
      tools: [READ_FILE],
      max_output_tokens: 512,
    },
    { toolIdMap: map },
  );
  const [chart, license] = first.content.filter(
    (b): b is Extract<ContentBlock, { type: 'tool_use' }> => b.type === 'tool_use',
  );
  if (!chart || !license) throw new Error('the reply should hold two calls');
  const history: Message[] = [
    question,
    reply(first),
    result(chart, [{ type: 'text', text: 'Rendered chart.png' }, ...images]),
    result(license, [{ type: 'text', text: 'MIT License' }]),
    ...(options.followUp ? [user(options.followUp)] : []),
  ];
  const request = {
    request_id: newRequestId(),
    model,
    messages: history,
    tools: [READ_FILE],
    max_output_tokens: 512,
  };
  if (options.stream) {
    server.reset();
    server.enqueue({
      type: 'stream',
      contentType: 'text/event-stream',
      chunks: [
        `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'MIT.' }] }, finishReason: 'STOP', index: 0 }] })}\n\n`,
      ],
    });
    const { error } = await collectStream(
      adapter.stream({ ...request, stream: true }, { toolIdMap: map }),
    );
    expect(error).toBeUndefined();
  } else {
    await adapter.complete(request, { toolIdMap: map });
  }
  const body = lastBody();
  const callTurn = body.contents.findIndex((c) => c.parts.some((p) => p.functionCall));
  const calls = (body.contents[callTurn]?.parts ?? []).flatMap((p) =>
    p.functionCall ? [p.functionCall] : [],
  );
  return { body, calls, responseTurn: body.contents[callTurn + 1] };
}

/** Every `inlineData` / `fileData` part directly in a turn (not nested in a function response). */
const topLevelMedia = (body: Body) =>
  body.contents.flatMap((c) => c.parts.filter((p) => p.inlineData || p.fileData));

describe('Gemini 3: a result’s images nested in its functionResponse.parts', () => {
  it('the response turn holds one functionResponse per call and nothing else; the image is inside the first', async () => {
    const { body, calls, responseTurn } = await parallelLoop('google:gemini-3-pro-preview', [png]);
    expect(calls).toHaveLength(2);
    expect(responseTurn?.role).toBe('user');
    expect(responseTurn?.parts).toEqual([
      {
        functionResponse: {
          id: calls[0]?.id,
          name: 'read_file',
          response: { output: 'Rendered chart.png' },
          parts: [{ inlineData: { mimeType: 'image/png', data: PNG } }],
        },
      },
      {
        functionResponse: {
          id: calls[1]?.id,
          name: 'read_file',
          response: { output: 'MIT License' },
        },
      },
    ]);
    expect(topLevelMedia(body)).toEqual([]);
  });

  it('a model the table does not know is placed by its generation: gemini-3.1 nests', async () => {
    const { body, responseTurn } = await parallelLoop('google:gemini-3.1-pro-preview', [png]);
    expect(responseTurn?.parts.map((p) => Object.keys(p))).toEqual([
      ['functionResponse'],
      ['functionResponse'],
    ]);
    expect(responseTurn?.parts[0]?.functionResponse?.parts).toHaveLength(1);
    expect(topLevelMedia(body)).toEqual([]);
  });

  it('media Gemini 3 does not take in a function response (HEIC, a URL) follows all the function responses, labelled', async () => {
    const heic: Image = {
      type: 'image',
      source: { kind: 'base64', data: HEIC },
      media_type: 'image/heic',
    };
    const url: Image = {
      type: 'image',
      source: { kind: 'url', data: URL_IMAGE },
      media_type: 'image/webp',
    };
    const { calls, responseTurn } = await parallelLoop('google:gemini-3-flash-preview', [
      heic,
      png,
      url,
    ]);
    const parts = responseTurn?.parts ?? [];
    expect(parts.slice(0, 2).map((p) => p.functionResponse?.id)).toEqual(calls.map((c) => c.id));
    expect(parts[0]?.functionResponse?.parts).toEqual([
      { inlineData: { mimeType: 'image/png', data: PNG } },
    ]);
    expect(parts.slice(2)).toEqual([
      { text: `Image output of function call read_file (${calls[0]?.id}):` },
      { inlineData: { mimeType: 'image/heic', data: HEIC } },
      { fileData: { fileUri: URL_IMAGE, mimeType: 'image/webp' } },
    ]);
  });
});

describe('Gemini 2.x: the function responses first, one per call, then the images', () => {
  it.each([
    'google:gemini-2.5-flash',
    'google:gemini-2.5-pro',
    'google:gemini-2.0-flash',
    'google:gemini-flash-latest',
  ])(
    '%s: no nested media; the image and its label after the last functionResponse',
    async (model) => {
      const { calls, responseTurn } = await parallelLoop(model, [png, png]);
      expect(responseTurn?.parts).toEqual([
        {
          functionResponse: {
            id: calls[0]?.id,
            name: 'read_file',
            response: { output: 'Rendered chart.png' },
          },
        },
        {
          functionResponse: {
            id: calls[1]?.id,
            name: 'read_file',
            response: { output: 'MIT License' },
          },
        },
        { text: `Image output of function call read_file (${calls[0]?.id}):` },
        { inlineData: { mimeType: 'image/png', data: PNG } },
        { inlineData: { mimeType: 'image/png', data: PNG } },
      ]);
    },
  );

  it('a user follow-up after the results comes after the images, in the same turn', async () => {
    const { body, responseTurn } = await parallelLoop('google:gemini-2.5-flash', [png], {
      followUp: 'Which license is it?',
    });
    expect(responseTurn?.parts.map((p) => Object.keys(p)[0])).toEqual([
      'functionResponse',
      'functionResponse',
      'text',
      'inlineData',
      'text',
    ]);
    expect(responseTurn?.parts.at(-1)).toEqual({ text: 'Which license is it?' });
    expect(body.contents.map((c) => c.role)).toEqual(['user', 'model', 'user']);
  });

  it('streamed requests are laid out the same way', async () => {
    const { responseTurn } = await parallelLoop('google:gemini-2.5-flash', [png], {
      stream: true,
    });
    expect(responseTurn?.parts.map((p) => Object.keys(p)[0])).toEqual([
      'functionResponse',
      'functionResponse',
      'text',
      'inlineData',
    ]);
    expect(server.requests.at(-1)?.path).toContain(':streamGenerateContent');
  });
});
