import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ContentBlock,
  createMessage,
  type Message,
  newRequestId,
  newSessionId,
  sealMessage,
  ToolIdMap,
} from '@yourtool/core';
import { assistantTestMetadata, PNG_1PX_BASE64 as PNG } from '@yourtool/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OllamaAdapter } from '../src/index.js';

/**
 * The bytes the Ollama adapter sends over real HTTP through the `ollama` client (decision 0195):
 * a warm adapter (its wire memory holding the history's forms and run) sends what a fresh
 * adapter sends for the same history, both the JSON of the body the client would have written,
 * streaming or not, with the client's own headers.
 */
let server: Server;
let url = '';
const sent: Array<{ body: string; headers: Record<string, unknown>; path: string }> = [];

const reply = (stream: boolean) =>
  JSON.stringify({
    model: 'qwen3:8b',
    created_at: '2026-11-27T10:00:00Z',
    message: { role: 'assistant', content: 'ok' },
    done: true,
    done_reason: 'stop',
    prompt_eval_count: 3,
    eval_count: 1,
  }) + (stream ? '\n' : '');

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      sent.push({ body, headers: req.headers, path: req.url ?? '' });
      const stream = (JSON.parse(body) as { stream?: boolean }).stream === true;
      res
        .writeHead(200, { 'content-type': stream ? 'application/x-ndjson' : 'application/json' })
        .end(reply(stream));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const MODEL = 'ollama:qwen3:8b';
const adapter = () =>
  new OllamaAdapter(
    { base_url: url, max_retries: 0, options: { detect_capabilities: false } },
    { capabilityOverrides: { [MODEL]: { supports_tools: true, supports_images: true } } },
  );
const session_id = newSessionId();
const message = (role: Message['role'], content: ContentBlock[], extra = {}) =>
  sealMessage(
    createMessage({
      session_id,
      role,
      content,
      ...(role === 'assistant' ? { metadata: { ...assistantTestMetadata(MODEL), ...extra } } : {}),
      ...(role === 'tool' ? { metadata: { status: 'complete', ...extra } } : {}),
    }),
  );

/** Sends one request (streamed or not) and returns what the server received. */
async function send(on: OllamaAdapter, messages: Message[], toolIdMap: ToolIdMap, stream: boolean) {
  const request = { request_id: newRequestId(), model: MODEL, max_output_tokens: 64, messages };
  if (stream) {
    for await (const _ of on.stream(request, { toolIdMap })) {
      // read to the end
    }
  } else {
    await on.complete(request, { toolIdMap });
  }
  return sent.at(-1) as (typeof sent)[number];
}

describe('Ollama: the bytes on the wire (decision 0195)', () => {
  it('a warm adapter sends what a fresh one does, request after request', async () => {
    const history: Message[] = [
      message('user', [
        { type: 'text', text: 'read the file' },
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
            content: [{ type: 'text', text: 'contents "quoted"\n' }],
            is_error: false,
          },
        ],
        { parent_tool_use_id: 'call_1' },
      ),
      message('assistant', [{ type: 'text', text: 'done' }]),
    ];
    const warm = adapter();
    const map = new ToolIdMap();
    for (let turn = 0; turn < 4; turn++) {
      const stream = turn % 2 === 1;
      history.push(message('user', [{ type: 'text', text: `turn ${turn} \u2028 ünïcode` }]));
      const fromWarm = await send(warm, history, map, stream);
      const fromFresh = await send(adapter(), history, new ToolIdMap(map.entries()), stream);
      expect(fromWarm.body).toBe(fromFresh.body);
      expect(fromWarm.path).toBe('/api/chat');
      const body = JSON.parse(fromWarm.body) as { messages: unknown[]; stream: boolean };
      expect(JSON.stringify(body)).toBe(fromWarm.body);
      expect(body.messages).toHaveLength(history.length);
      expect(body.stream).toBe(stream);
      expect(fromWarm.headers['content-type']).toBe('application/json');
      expect(fromWarm.headers['user-agent']).toMatch(/^ollama-js\//);
      expect(fromWarm.headers['content-length']).toBe(String(Buffer.byteLength(fromWarm.body)));
      history.push(message('assistant', [{ type: 'text', text: 'ok' }]));
    }
  });
});
