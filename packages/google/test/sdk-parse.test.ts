import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError, GenerateContentResponse, GoogleGenAI } from '@google/genai';
import { type LoopbackServer, loadResponseFile, startLoopbackServer } from '@yourtool/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Every recorded fixture must be something the official SDK itself accepts: JSON replies
 * through `models.generateContent` (a `GenerateContentResponse` with the recorded parts), streams
 * through `models.generateContentStream` (each chunk a `GenerateContentResponse`, the last with a
 * finish reason), errors as the SDK's `ApiError` with the recorded status.
 */
const dir = fileURLToPath(new URL('./fixtures', import.meta.url));
const files = readdirSync(dir).flatMap((scenario) =>
  readdirSync(join(dir, scenario))
    .filter((f) => !f.endsWith('.meta.json'))
    .map((f) => join(scenario, f)),
);

let server: LoopbackServer;
let client: GoogleGenAI;
beforeAll(async () => {
  server = await startLoopbackServer();
  client = new GoogleGenAI({
    apiKey: 'gemini-test-0000000000',
    httpOptions: { baseUrl: server.url },
  });
});
afterAll(() => server.close());

const params = { model: 'gemini-3-pro-preview', contents: 'hi' };

describe('fixtures parse through the official SDK', () => {
  it('has fixtures to check', () => expect(files.length).toBeGreaterThan(30));
  for (const file of files) {
    const response = loadResponseFile(join(dir, file));
    if (
      response.type === 'hangup' ||
      (response.type === 'stream' && response.ending !== undefined && response.ending !== 'end')
    )
      continue;
    it(file, async () => {
      server.reset();
      server.enqueue(response);
      if (response.type === 'stream') {
        const chunks: GenerateContentResponse[] = [];
        for await (const chunk of await client.models.generateContentStream(params)) {
          chunks.push(chunk);
        }
        expect(chunks.length).toBeGreaterThan(1);
        expect(chunks.every((c) => c instanceof GenerateContentResponse)).toBe(true);
        expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe('STOP');
        expect(chunks.at(-1)?.usageMetadata?.candidatesTokenCount).toBeGreaterThan(0);
        expect(server.requests[0]?.path).toContain(':streamGenerateContent?alt=sse');
      } else if (response.type === 'json' && (response.status ?? 200) === 200) {
        const reply = await client.models.generateContent(params);
        expect(reply).toBeInstanceOf(GenerateContentResponse);
        // a refusal has no content, an empty reply content without parts
        const body = response.body as {
          candidates: Array<{ content?: { parts?: unknown[] }; finishReason: string }>;
          usageMetadata: { promptTokenCount: number };
        };
        expect(reply.candidates?.[0]?.content?.parts).toEqual(body.candidates[0]?.content?.parts);
        expect(reply.candidates?.[0]?.finishReason).toBe(body.candidates[0]?.finishReason);
        expect(reply.usageMetadata?.promptTokenCount).toBe(body.usageMetadata.promptTokenCount);
        expect(server.requests[0]?.path).toMatch(/\/models\/gemini-3-pro-preview:generateContent$/);
      } else if (response.type === 'json') {
        const error = await client.models.generateContent(params).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ApiError);
        expect((error as ApiError).status).toBe(response.status);
      }
    });
  }
});
