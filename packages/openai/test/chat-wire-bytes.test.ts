import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Message, newRequestId, sealMessage } from '@yourtool/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIAdapter } from '../src/index.js';
import { assistant, result, text, user } from './helpers.js';

/**
 * The bytes a Chat Completions adapter sends over real HTTP (decision 0191): a warm adapter
 * (its wire memory holding the history's forms) sends what a fresh adapter sends for the same
 * history, and both are the JSON of the body the SDK would have written.
 */
let server: Server;
let url = '';
const bodies: string[] = [];

const REPLY = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 0,
  model: 'gpt-5',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
});

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end(REPLY);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const GPT = 'openai:gpt-5';
const adapter = () => new OpenAIAdapter({ api_key: 'sk-test-0000000000000000', base_url: url });

/** Sends one request and returns the bytes the server received. */
async function sent(on: OpenAIAdapter, messages: Message[]): Promise<string> {
  await on.complete({ request_id: newRequestId(), model: GPT, max_output_tokens: 64, messages });
  return bodies.at(-1) as string;
}

describe('OpenAI Chat Completions: the bytes on the wire (decision 0191)', () => {
  it('a warm adapter sends what a fresh one does, request after request', async () => {
    const history: Message[] = [
      user(text('read the file')),
      assistant([{ type: 'tool_use', id: 'call_1', name: 'read_file', input: { p: 'é/🙂' } }], GPT),
      result('call_1', [text('contents "quoted"\n')]),
      assistant([text('done')], GPT),
    ].map(sealMessage);
    const warm = adapter();
    for (let turn = 0; turn < 3; turn++) {
      history.push(sealMessage(user(text(`turn ${turn} \u2028 ünïcode`))));
      const fromWarm = await sent(warm, history);
      const fromFresh = await sent(adapter(), history);
      expect(fromWarm).toBe(fromFresh);
      const body = JSON.parse(fromWarm) as { messages: unknown[]; stream: boolean };
      expect(JSON.stringify(body)).toBe(fromWarm);
      expect(body.messages).toHaveLength(history.length);
      expect(body.stream).toBe(false);
    }
  });
});
