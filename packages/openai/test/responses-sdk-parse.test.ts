import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LoopbackServer, loadResponseFile, startLoopbackServer } from '@yourtool/conformance';
import { ToolIdMap } from '@yourtool/core';
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromOpenAIResponse } from '../src/codec.js';

/**
 * Every Responses fixture is something the official openai SDK itself accepts: streams through
 * its own accumulator (`client.responses.stream(...)`, `finalResponse()`), whose final response
 * must equal the recorded `response.completed` one and decode to the same canonical content;
 * JSON replies through `client.responses.create`; errors as `APIError` with the recorded status.
 */

const dir = fileURLToPath(new URL('./fixtures-responses', import.meta.url));
const files = readdirSync(dir).flatMap((scenario) =>
  readdirSync(join(dir, scenario))
    .filter((f) => !f.endsWith('.meta.json'))
    .map((f) => join(dir, scenario, f)),
);

let server: LoopbackServer;
let client: OpenAI;
beforeAll(async () => {
  server = await startLoopbackServer();
  client = new OpenAI({
    apiKey: 'sk-test-000000000000000000',
    baseURL: server.url,
    maxRetries: 0,
    logLevel: 'off',
  });
});
afterAll(() => server.close());

const params = { model: 'gpt-5', input: 'hi', store: false, max_output_tokens: 1024 };

/** The `response` of the recorded `response.completed` event of a stream fixture. */
function completedResponse(chunks: readonly string[]): OpenAI.Responses.Response {
  const last = chunks.at(-1) ?? '';
  const data = last.split('\n').find((line) => line.startsWith('data: '));
  const event = JSON.parse(data?.slice('data: '.length) ?? '{}') as {
    type: string;
    response: OpenAI.Responses.Response;
  };
  expect(event.type).toBe('response.completed');
  return event.response;
}

describe('Responses fixtures parse through the official openai SDK', () => {
  it('has fixtures to check', () => expect(files.length).toBeGreaterThan(30));
  for (const file of files) {
    const response = loadResponseFile(file);
    if (
      response.type === 'hangup' ||
      (response.type === 'stream' && response.ending !== undefined && response.ending !== 'end')
    )
      continue;
    it(file.slice(file.indexOf('fixtures-responses')), async () => {
      server.reset();
      server.enqueue(response);
      if (response.type === 'stream') {
        const seen: string[] = [];
        const stream = client.responses.stream(params);
        stream.on('event', (event) => seen.push(event.type));
        const final = await stream.finalResponse();
        expect(seen[0]).toBe('response.created');
        expect(seen.at(-1)).toBe('response.completed');
        const recorded = completedResponse(response.chunks);
        expect(final.status).toBe('completed');
        expect(final.output).toMatchObject(recorded.output);
        expect(final.usage).toEqual(recorded.usage);
        for (const item of final.output) {
          if (item.type === 'function_call') expect(() => JSON.parse(item.arguments)).not.toThrow();
        }
        // the SDK's accumulated response and the recorded one decode to the same content
        expect(fromOpenAIResponse(final, new ToolIdMap()).content).toEqual(
          fromOpenAIResponse(recorded, new ToolIdMap()).content.map((block) =>
            block.type === 'tool_use' ? { ...block, id: expect.any(String) } : block,
          ),
        );
      } else if (response.type === 'json' && (response.status ?? 200) === 200) {
        const created = await client.responses.create(params);
        const recorded = response.body as OpenAI.Responses.Response;
        expect(created.output).toEqual(recorded.output);
        expect(created.usage).toEqual(recorded.usage);
        // `incomplete` too: a reply cut at max_output_tokens (empty-reply-length)
        expect(created.status).toBe(recorded.status);
      } else if (response.type === 'json') {
        const error = await client.responses.create(params).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(APIError);
        expect((error as APIError).status).toBe(response.status);
      }
    });
  }
});
