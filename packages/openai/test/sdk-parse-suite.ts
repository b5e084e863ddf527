import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type LoopbackServer, loadResponseFile, startLoopbackServer } from '@yourtool/conformance';
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Registers a check that every recorded fixture in `fixturesDirs` is something the official
 * openai SDK itself accepts: streams through its ChatCompletionStream accumulator
 * (finalChatCompletion), JSON replies through chat.completions.create, errors as APIError with
 * the recorded status. Shared by the OpenAI and OpenRouter packages, whose wire format it is.
 */
export function describeFixturesParseThroughOpenAISdk(options: {
  title: string;
  fixturesDirs: string[];
  params: { model: string; max_tokens?: number; max_completion_tokens?: number };
}): void {
  const files = options.fixturesDirs.flatMap((dir) =>
    readdirSync(dir).flatMap((scenario) =>
      readdirSync(join(dir, scenario))
        .filter((f) => !f.endsWith('.meta.json'))
        .map((f) => join(dir, scenario, f)),
    ),
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

  const params = { ...options.params, messages: [{ role: 'user' as const, content: 'hi' }] };

  describe(options.title, () => {
    it('has fixtures to check', () => expect(files.length).toBeGreaterThan(30));
    for (const file of files) {
      const response = loadResponseFile(file);
      if (
        response.type === 'hangup' ||
        (response.type === 'stream' && response.ending !== undefined && response.ending !== 'end')
      )
        continue;
      it(file.slice(file.indexOf('fixtures')), async () => {
        server.reset();
        server.enqueue(response);
        if (response.type === 'stream') {
          const stream = client.chat.completions.stream({
            ...params,
            stream_options: { include_usage: true },
          });
          const final = await stream.finalChatCompletion();
          expect(final.choices[0]?.finish_reason).toBeTruthy();
          expect(final.usage?.prompt_tokens).toBeGreaterThan(0);
          const message = final.choices[0]?.message;
          expect(Boolean(message?.content) || (message?.tool_calls?.length ?? 0) > 0).toBe(true);
          for (const call of message?.tool_calls ?? []) {
            if (call.type === 'function')
              expect(() => JSON.parse(call.function.arguments)).not.toThrow();
          }
        } else if (response.type === 'json' && (response.status ?? 200) === 200) {
          const completion = await client.chat.completions.create(params);
          const recorded = response.body as OpenAI.ChatCompletion;
          expect(completion.choices[0]?.message.content).toEqual(
            recorded.choices[0]?.message.content,
          );
          expect(completion.usage).toEqual(recorded.usage);
        } else if (response.type === 'json') {
          const error = await client.chat.completions.create(params).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(APIError);
          expect((error as APIError).status).toBe(response.status);
        }
      });
    }
  });
}
