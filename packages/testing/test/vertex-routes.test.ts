import { VertexAnthropicAdapter } from '@yourtool/anthropic';
import {
  type CanonicalRequestInput,
  createMessage,
  newRequestId,
  newSessionId,
  type ProviderAdapter,
  type StreamEvent,
} from '@yourtool/core';
import { GoogleAdapter } from '@yourtool/google';
import { createRuntime } from '@yourtool/runtime';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  type ScriptedProvider,
  startScriptedProvider,
  text,
  thinking,
  toolCall,
  usage,
} from '../src/index.js';
import { routeRequest } from '../src/routes.js';

/**
 * The scripted provider's Vertex AI routes through the real SDKs: Claude through
 * `@anthropic-ai/vertex-sdk` (by `VertexAnthropicAdapter`), Gemini through `@google/genai` with
 * `vertexai: true` (by `GoogleAdapter`), each reaching the provider at Vertex's own paths.
 */

const TOKEN = 'ya29.vertex-routes-test-access-token';
const PROJECT = 'route-project';
const REGION = 'us-east5';
const CLAUDE = 'claude-sonnet-4-5@20250929';
const GEMINI = 'gemini-2.5-flash';

let provider: ScriptedProvider;
beforeAll(async () => {
  provider = await startScriptedProvider({ secrets: [TOKEN] });
});
afterAll(() => provider.close());
afterEach(() => provider.clear());

const opened: ProviderAdapter[] = [];
afterAll(async () => {
  await Promise.all(opened.map((a) => a.close()));
});

function claude(): ProviderAdapter {
  const adapter = new VertexAnthropicAdapter({
    api_key: TOKEN,
    base_url: `${provider.url}/v1`,
    max_retries: 0,
    options: { project: PROJECT, region: REGION },
  });
  opened.push(adapter);
  return adapter;
}

function gemini(): ProviderAdapter {
  const adapter = new GoogleAdapter({
    api_key: TOKEN,
    base_url: provider.url,
    max_retries: 0,
    options: { vertexai: true, project: PROJECT, location: REGION },
  });
  opened.push(adapter);
  return adapter;
}

const ask = (model: string, question: string): CanonicalRequestInput => ({
  request_id: newRequestId(),
  model,
  max_output_tokens: 256,
  system_prompt: 'Be brief.',
  messages: [
    createMessage({
      session_id: newSessionId(),
      role: 'user',
      content: [{ type: 'text', text: question }],
    }),
  ],
});

async function drain(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const all: StreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe('Claude on Vertex AI: :rawPredict and :streamRawPredict', () => {
  const base = `/v1/projects/${PROJECT}/locations/${REGION}/publishers/anthropic/models/${CLAUDE}`;

  it('answers :rawPredict in the Anthropic format, the model read from the path', async () => {
    provider.reply(text('Hello from Vertex.'), usage({ input_tokens: 12, output_tokens: 4 }));
    const reply = await claude().complete(ask(`vertex-anthropic:${CLAUDE}`, 'Say hello.'));
    expect(reply.content).toEqual([{ type: 'text', text: 'Hello from Vertex.' }]);
    expect(reply.usage.input_tokens).toBe(12);
    const [request] = provider.requests;
    expect(request?.path).toBe(`${base}:rawPredict`);
    expect(request?.format).toBe('anthropic');
    expect(request?.stream).toBe(false);
    // Vertex's body: anthropic_version, no model; the recorded view takes it from the path
    expect(request?.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16' });
    expect(request?.body).not.toHaveProperty('model');
    expect(request?.model).toBe(CLAUDE);
    expect(request?.system).toBe('Be brief.');
    expect(request?.lastUserText).toBe('Say hello.');
    expect(request?.headers.authorization).toBe('[REDACTED]');
    expect(JSON.stringify(provider.requests)).not.toContain(TOKEN);
  });

  it('streams :streamRawPredict: thinking, text and a tool call arrive as the SDK reads them', async () => {
    provider.reply(
      thinking('Look it up.', { signature: 'sig-vertex' }),
      text('Reading.'),
      toolCall('read_file', { path: 'README.md' }),
    );
    const events = await drain(claude().stream(ask(`vertex-anthropic:${CLAUDE}`, 'Read it.')));
    const end = events.at(-1);
    expect(end?.type).toBe('message.complete');
    const content = end?.type === 'message.complete' ? end.final_content : [];
    expect(content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect(content[0]).toMatchObject({ text: 'Look it up.', signature: 'sig-vertex' });
    expect(content[2]).toMatchObject({ name: 'read_file', input: { path: 'README.md' } });
    const [request] = provider.requests;
    expect(request?.path).toBe(`${base}:streamRawPredict`);
    expect(request?.stream).toBe(true);
    expect(request?.model).toBe(CLAUDE);
  });
});

describe("Gemini on Vertex AI: the project's generateContent paths", () => {
  const base = `/v1beta1/projects/${PROJECT}/locations/${REGION}/publishers/google/models/${GEMINI}`;

  it('answers :generateContent, the model read from the path', async () => {
    provider.reply(text('Hello from Gemini on Vertex.'));
    const reply = await gemini().complete(ask(`google:${GEMINI}`, 'Say hello.'));
    expect(reply.content).toEqual([{ type: 'text', text: 'Hello from Gemini on Vertex.' }]);
    const [request] = provider.requests;
    expect(request?.path).toBe(`${base}:generateContent`);
    expect(request?.format).toBe('gemini');
    expect(request?.model).toBe(GEMINI);
    expect(request?.lastUserText).toBe('Say hello.');
  });

  it('streams :streamGenerateContent?alt=sse', async () => {
    provider.reply(text('Streamed from Vertex.'));
    const events = await drain(gemini().stream(ask(`google:${GEMINI}`, 'Stream it.')));
    const end = events.at(-1);
    expect(end?.type === 'message.complete' && end.final_content).toEqual([
      { type: 'text', text: 'Streamed from Vertex.' },
    ]);
    const [request] = provider.requests;
    expect(request?.path).toBe(`${base}:streamGenerateContent?alt=sse`);
    expect(request?.stream).toBe(true);
    expect(request?.model).toBe(GEMINI);
  });
});

describe('routeRequest on Vertex paths', () => {
  it('tells Claude on Vertex from other publishers and methods', () => {
    const at = (tail: string) => `/v1/projects/p/locations/global/publishers/${tail}`;
    expect(routeRequest('POST', at(`anthropic/models/${CLAUDE}:rawPredict`), {})).toEqual({
      kind: 'model',
      format: 'anthropic',
      stream: false,
    });
    // the method decides, whatever the body says
    expect(
      routeRequest('POST', at(`anthropic/models/${CLAUDE}:streamRawPredict`), { stream: false }),
    ).toEqual({ kind: 'model', format: 'anthropic', stream: true });
    expect(routeRequest('POST', at(`anthropic/models/${CLAUDE}:countTokens`), {})).toEqual({
      kind: 'unknown',
    });
    expect(routeRequest('POST', at(`meta/models/llama:rawPredict`), {})).toEqual({
      kind: 'unknown',
    });
  });
});

describe('modelsYaml for Vertex AI', () => {
  const models = {
    [`vertex-anthropic:${CLAUDE}`]: { aliases: ['vertex-claude'] },
    [`google:${GEMINI}`]: { aliases: ['vertex-gemini'], options: { vertexai: true } },
    'google:gemini-2.5-pro': { aliases: ['gemini-api'] },
  };

  it('gives each Vertex adapter a base URL, a project, a region and the key as token', () => {
    const doc = parse(provider.modelsYaml({ models, apiKey: TOKEN })) as {
      adapters: Record<string, Record<string, unknown>>;
    };
    expect(doc.adapters['vertex-anthropic']).toMatchObject({
      type: 'vertex-anthropic',
      base_url: `${provider.url}/v1`,
      api_key: TOKEN,
      options: { project: 'scripted-project', region: 'us-east5' },
    });
    expect(doc.adapters.google).toMatchObject({
      type: 'google',
      base_url: provider.url,
      options: { vertexai: true, project: 'scripted-project', location: 'us-east5' },
    });
    // the Gemini API model is another configuration: its own entry, without Vertex options
    expect(doc.adapters.google_2).toMatchObject({ type: 'google', base_url: provider.url });
    expect(doc.adapters.google_2).not.toHaveProperty('options');
  });

  it('runs a session on both through createRuntime, each at its Vertex path', async () => {
    const runtime = await createRuntime({
      models: provider.modelsYaml({ models, apiKey: TOKEN }),
      routing: 'global_default: vertex-claude',
      logger: false,
    });
    try {
      provider.reply(text('Claude here.')).reply(text('Gemini here.'));
      const session = await runtime.sessions.createSession({ workspace_path: '/work/foo' });
      await runtime.sessions.sendAndWait(session.id, 'One.');
      await runtime.sessions.swapModel(session.id, 'vertex-gemini');
      await runtime.sessions.sendAndWait(session.id, 'Two.');
      expect(provider.requests.map((r) => [r.path.split('/publishers/')[1], r.model])).toEqual([
        [`anthropic/models/${CLAUDE}:streamRawPredict`, CLAUDE],
        [`google/models/${GEMINI}:streamGenerateContent?alt=sse`, GEMINI],
      ]);
      expect(provider.requests.every((r) => r.path.includes('/projects/scripted-project/'))).toBe(
        true,
      );
      expect(provider.requests[1]?.lastUserText).toBe('Two.');
    } finally {
      await runtime.close();
    }
  });
});
