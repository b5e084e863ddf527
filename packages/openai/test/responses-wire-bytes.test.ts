import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Message, newRequestId, sealMessage } from '@yourtool/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIResponsesAdapter } from '../src/index.js';
import { assistant, result, text, user } from './helpers.js';

/**
 * The bytes the OpenAI Responses adapter sends over real HTTP (decision 0193): a warm adapter
 * (its wire memory holding the history's items and their run) sends what a fresh adapter sends
 * for the same history, and both are the JSON of the body the SDK would have written.
 */
let server: Server;
let url = '';
const bodies: string[] = [];
const types: string[] = [];

const REPLY = JSON.stringify({
  id: 'resp_bytes0001',
  object: 'response',
  created_at: 1763800000,
  status: 'completed',
  model: 'gpt-5-2025-08-07',
  output: [
    {
      id: 'msg_bytes0001',
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'ok', annotations: [] }],
    },
  ],
  usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4 },
});

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      types.push(req.headers['content-type'] ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end(REPLY);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const GPT = 'openai:gpt-5';
const adapter = () =>
  new OpenAIResponsesAdapter({ api_key: 'sk-test-0000000000000000', base_url: url });

/** Sends one request and returns the bytes the server received. */
async function sent(on: OpenAIResponsesAdapter, messages: Message[]): Promise<string> {
  const reply = await on.complete({
    request_id: newRequestId(),
    model: GPT,
    max_output_tokens: 64,
    messages,
  });
  expect(reply.content).toEqual([{ type: 'text', text: 'ok' }]);
  return bodies.at(-1) as string;
}

describe('OpenAI Responses: the bytes on the wire (decision 0193)', () => {
  it('a warm adapter sends what a fresh one does, request after request', async () => {
    const history: Message[] = [
      user(text('read the file')),
      assistant(
        [
          { type: 'thinking', text: 'Look first.', signature: 'gAAAA-enc' },
          { type: 'tool_use', id: 'call_1', name: 'read_file', input: { p: 'é/🙂' } },
        ],
        GPT,
      ),
      result('call_1', [text('contents "quoted"\n')]),
      assistant([text('done')], GPT),
    ].map(sealMessage);
    const warm = adapter();
    for (let turn = 0; turn < 3; turn++) {
      history.push(sealMessage(user(text(`turn ${turn} \u2028 ünïcode`))));
      const fromWarm = await sent(warm, history);
      const fromFresh = await sent(adapter(), history);
      expect(fromWarm).toBe(fromFresh);
      const body = JSON.parse(fromWarm) as { input: unknown[]; stream: boolean };
      expect(JSON.stringify(body)).toBe(fromWarm);
      // user, reasoning, function call, its output, the answer, then one user item a turn
      expect(body.input).toHaveLength(history.length + 1);
      expect(body.stream).toBe(false);
      expect(types.at(-1)).toBe('application/json');
    }
  });
});
