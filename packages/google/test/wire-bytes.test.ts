import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GoogleGenAI } from '@google/genai';
import {
  type ContentBlock,
  type Message,
  newMessageId,
  newRequestId,
  sealMessage,
  ToolIdMap,
} from '@yourtool/core';
import { collectStream } from '@yourtool/core/adapter';
import { assistantTestMetadata, PNG_1PX_BASE64 as PNG } from '@yourtool/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toGeminiRequest } from '../src/codec/index.js';
import { GoogleAdapter } from '../src/index.js';

/**
 * The bytes the Gemini adapter sends over real HTTP (decision 0194): a warm adapter (its wire
 * memory holding the history's forms) sends what a fresh adapter sends for the same history,
 * streaming or not, and that is the body `@google/genai` writes from the codec's parameters.
 */
let server: Server;
let url = '';
const sent: Array<{ path: string; body: string; key: string | undefined }> = [];

const REPLY = {
  candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }],
  usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1, totalTokenCount: 4 },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      const key = req.headers['x-goog-api-key'];
      sent.push({ path, body: Buffer.concat(chunks).toString('utf8'), key: String(key) });
      if (path.includes(':streamGenerateContent')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${JSON.stringify(REPLY)}\n\n`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(REPLY));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const MODEL = 'google:gemini-2.5-flash';
const KEY = 'gemini-test-0000000000';
const adapter = () => new GoogleAdapter({ api_key: KEY, base_url: url, max_retries: 0 });

const text = (t: string) => ({ type: 'text' as const, text: t });
function message(role: Message['role'], content: ContentBlock[], parent?: string): Message {
  return sealMessage({
    id: newMessageId(),
    session_id: 'sess_bytes',
    role,
    content,
    metadata:
      role === 'assistant'
        ? { ...assistantTestMetadata(MODEL), status: 'complete' }
        : { status: 'complete', ...(parent ? { parent_tool_use_id: parent } : {}) },
    created_at: '2026-11-27T10:00:00.000000Z',
    schema_version: 1,
  } as Message);
}

/** Sends one request (streamed or not) and returns what the server received. */
async function send(on: GoogleAdapter, messages: Message[], toolIdMap: ToolIdMap, stream: boolean) {
  const request = {
    request_id: newRequestId(),
    model: MODEL,
    max_output_tokens: 64,
    system_prompt: 'be brief',
    messages,
    tools: [],
    stop_sequences: [],
    stream,
  };
  if (stream) await collectStream(on.stream(request, { toolIdMap }));
  else await on.complete(request, { toolIdMap });
  return sent.at(-1) as { path: string; body: string; key: string | undefined };
}

describe('Gemini: the bytes on the wire (decision 0194)', () => {
  it('a warm adapter sends what a fresh one and the raw SDK do, request after request', async () => {
    const history: Message[] = [
      message('user', [
        text('read the file'),
        { type: 'image', source: { kind: 'base64', data: PNG }, media_type: 'image/png' },
      ]),
      message('assistant', [
        { type: 'tool_use', id: 'call_1', name: 'read_file', input: { p: 'é/🙂' } },
      ]),
      message(
        'tool',
        [
          {
            type: 'tool_result',
            tool_use_id: 'call_1',
            content: [text('"quoted"\n')],
            is_error: false,
          },
        ],
        'call_1',
      ),
      message('assistant', [text('done')]),
    ];
    const warm = adapter();
    const warmMap = new ToolIdMap();
    const sdk = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: url } });
    for (let turn = 0; turn < 4; turn++) {
      history.push(message('user', [text(`turn ${turn} \u2028 ünïcode`)]));
      const stream = turn % 2 === 1;
      const fromWarm = await send(warm, history, warmMap, stream);
      const fromFresh = await send(adapter(), history, new ToolIdMap(warmMap.entries()), stream);
      expect(fromWarm.body).toBe(fromFresh.body);
      expect(fromWarm.path).toBe(fromFresh.path);
      expect(fromWarm.key).toBe(KEY);
      expect(fromWarm.path).toContain(
        stream ? 'models/gemini-2.5-flash:streamGenerateContent' : ':generateContent',
      );
      // the new user turns merge into the last `user` content
      const body = JSON.parse(fromWarm.body) as {
        contents: Array<{ parts: Array<{ text?: string }> }>;
      };
      expect(body.contents).toHaveLength(5);
      expect(body.contents.at(-1)?.parts.at(-1)?.text).toBe(`turn ${turn} \u2028 ünïcode`);
      if (stream) continue;
      // the raw SDK, given the codec's parameters for the same history, writes the same bytes
      const { params } = toGeminiRequest(
        {
          request_id: newRequestId(),
          model: MODEL,
          max_output_tokens: 64,
          system_prompt: 'be brief',
          messages: history,
          tools: [],
          stop_sequences: [],
          stream: false,
        },
        { toolIdMap: new ToolIdMap(warmMap.entries()) },
      );
      await sdk.models.generateContent(params);
      expect(sent.at(-1)?.body).toBe(fromWarm.body);
    }
  });
});
