import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  AuthError,
  type ContentBlock,
  createMessage,
  type Message,
  NetworkError,
  newRequestId,
  RateLimitError,
  sealMessage,
  ToolIdMap,
} from '@yourtool/core';
import { collectStream } from '@yourtool/core/adapter';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VertexAnthropicAdapter, type VertexAuthClient } from '../src/index.js';

/**
 * Claude on Vertex AI through the real `@anthropic-ai/vertex-sdk` client against a loopback
 * server: the Vertex path and body, Google auth headers, bytes bodies, and signed thinking that
 * goes back only to the model (and platform) that produced it.
 */

const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
const first = (name: string) => {
  const response = fixtures[name]?.[0];
  if (!response) throw new Error(`no fixture ${name}`);
  return response;
};

const TOKEN = 'ya29.vertex-wire-test-token-000000000000';
const MODEL = 'vertex-anthropic:claude-sonnet-4-5@20250929';

/** A Google auth client that needs no network: a fixed bearer token and quota project. */
const authClient: VertexAuthClient = {
  getRequestHeaders: async () =>
    new Headers({ authorization: `Bearer ${TOKEN}`, 'x-goog-user-project': 'quota-project' }),
  projectId: 'auth-project',
};

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ secrets: [TOKEN] });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const adapter = (options: Record<string, unknown> = {}) =>
  new VertexAnthropicAdapter(
    {
      base_url: `${server.url}/v1`,
      max_retries: 0,
      options: { project: 'my-project', region: 'us-east5', ...options },
    },
    { authClient },
  );

const user = (text: string, session = 'sess_vertex'): Message =>
  createMessage({ session_id: session, role: 'user', content: [{ type: 'text', text }] });

const ask = (messages: Message[], extra: Record<string, unknown> = {}) => ({
  request_id: newRequestId(),
  model: MODEL,
  max_output_tokens: 4096,
  messages,
  ...extra,
});

describe('the Vertex request', () => {
  it('posts to :rawPredict with the model in the path, anthropic_version in the body and Google auth', async () => {
    server.enqueue(first('text'));
    const res = await adapter().complete(ask([user('Say hi')], { temperature: 0.5 }));
    expect(res.content).toEqual([{ type: 'text', text: expect.any(String) }]);
    expect(res.provider).toBe('vertex-anthropic');
    const [request] = server.requests;
    expect(request?.path).toBe(
      '/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
    );
    const body = request?.body as Record<string, unknown>;
    expect(Object.keys(body)[0]).toBe('anthropic_version');
    expect(body.anthropic_version).toBe('vertex-2023-10-16');
    expect(body).not.toHaveProperty('model');
    expect(body.stream).toBe(false);
    // vertex-2023-10-16 takes sampling parameters, like 2023-06-01
    expect(body.temperature).toBe(0.5);
    expect(request?.headers['anthropic-version']).toBeUndefined();
    expect(request?.headers.authorization).toBe('[REDACTED]');
    expect(request?.headers['x-goog-user-project']).toBe('quota-project');
    expect(request?.headers['content-type']).toBe('application/json');
  });

  it('streams from :streamRawPredict with stream: true in the body', async () => {
    server.enqueue(first('text-stream'));
    const collected = await collectStream(
      adapter().stream(ask([user('Say hi')], { stream: true })),
    );
    expect(collected.error).toBeUndefined();
    expect(collected.stop_reason).toBe('end_turn');
    const [request] = server.requests;
    expect(request?.path).toMatch(/models\/claude-sonnet-4-5@20250929:streamRawPredict$/);
    expect(request?.body).toMatchObject({ stream: true });
  });

  it('sends api_key as an OAuth bearer token and never shows it in an error', async () => {
    server.enqueue(first('error-auth'));
    const vertex = new VertexAnthropicAdapter({
      api_key: TOKEN,
      base_url: server.url,
      max_retries: 0,
      options: { project: 'p', region: 'global' },
    });
    const error = await vertex.complete(ask([user('hi')])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).provider).toBe('vertex-anthropic');
    expect((error as Error).message).toMatch(/^vertex-anthropic 401 authentication_error/);
    expect(JSON.stringify(error)).not.toContain(TOKEN);
    expect(server.requests[0]?.headers.authorization).toBe('[REDACTED]');
    expect(server.requests[0]?.path).toMatch(/^\/projects\/p\/locations\/global\//);
  });

  it('keeps sending bytes: a sealed history, its closed turns remembered, goes out the same again', async () => {
    server.enqueue(first('text'), first('text'));
    const vertex = adapter();
    const answer = createMessage({
      session_id: 'sess_vertex',
      role: 'assistant',
      content: [{ type: 'text', text: 'two' }],
      metadata: { model: MODEL },
    });
    const history = [user('one'), answer, user('three')].map((m) => sealMessage(m));
    await vertex.complete(ask(history));
    await vertex.complete(ask(history));
    const [a, b] = server.requests;
    expect(b?.body).toEqual(a?.body);
    expect(a?.body).toMatchObject({ messages: [{}, {}, {}] });
    expect(Object.keys(b?.body as object)[0]).toBe('anthropic_version');
  });
});

describe('Vertex errors', () => {
  it("maps Google's own error bodies by status: 429 RESOURCE_EXHAUSTED is a rate limit, 403 auth", async () => {
    const google = (code: number, status: string, message: string) => ({
      type: 'json' as const,
      status: code,
      headers: {},
      body: { error: { code, message, status } },
    });
    server.enqueue(
      google(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded for aiplatform.googleapis.com'),
      google(403, 'PERMISSION_DENIED', 'Permission denied on resource project p'),
    );
    const vertex = adapter();
    const limited = await vertex.complete(ask([user('hi')])).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).provider).toBe('vertex-anthropic');
    expect((limited as RateLimitError).message).toContain('Quota exceeded');
    const denied = await vertex.complete(ask([user('hi')])).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(AuthError);
    expect((denied as AuthError).provider_status).toBe(403);
  });

  it('a Google credential that cannot be had fails as network (the SDK retries token fetches), sending nothing', async () => {
    const failing: VertexAuthClient = {
      getRequestHeaders: async () => {
        throw new Error('Could not load the default credentials');
      },
    };
    const vertex = new VertexAnthropicAdapter(
      { base_url: server.url, max_retries: 0, options: { project: 'p', region: 'us-east5' } },
      { authClient: failing },
    );
    const error = await vertex.complete(ask([user('hi')])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toBe(
      'vertex-anthropic: could not reach the API (Could not load the default credentials)',
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('signed thinking across platforms', () => {
  const thinking: ContentBlock = {
    type: 'thinking',
    text: 'Think first.',
    signature: 'EqQBCkYIBxgCKkCqZ3uRSignedElsewhere',
  };
  const turn = (model: string, content: ContentBlock[]): Message =>
    createMessage({
      session_id: 'sess_swap',
      role: 'assistant',
      content,
      metadata: { model },
    });

  const sentThinking = (body: unknown): unknown[] =>
    (body as { messages: Array<{ content: Array<{ type: string }> }> }).messages.flatMap((m) =>
      m.content.filter((b) => b.type === 'thinking'),
    );

  it('goes back to Claude on Vertex only when Vertex produced it for the same model', async () => {
    server.enqueue(first('text'), first('text'));
    const vertex = adapter({ thinking: { budget_tokens: 2048 } });
    const fromAnthropic = turn('anthropic:claude-sonnet-4-5', [
      thinking,
      { type: 'text', text: 'a' },
    ]);
    await vertex.complete(ask([user('q'), fromAnthropic, user('again')]));
    expect(sentThinking(server.requests[0]?.body)).toEqual([]);

    const fromVertex = turn(MODEL, [thinking, { type: 'text', text: 'a' }]);
    await vertex.complete(ask([user('q'), fromVertex, user('again')]));
    expect(sentThinking(server.requests[1]?.body)).toEqual([
      { type: 'thinking', thinking: 'Think first.', signature: thinking.signature },
    ]);
  });

  it('keeps tool ids of Claude on Vertex under its own provider key', async () => {
    server.enqueue(first('tool-call'));
    const toolIdMap = new ToolIdMap();
    const res = await adapter().complete(
      ask([user('Read NOTES.md')], {
        tools: [
          {
            name: 'read_file',
            description: 'Reads a file',
            input_schema: { type: 'object', properties: { path: { type: 'string' } } },
            side_effects: 'read',
          },
        ],
      }),
      { toolIdMap },
    );
    const call = res.content.find((b) => b.type === 'tool_use');
    expect(call).toBeDefined();
    const id = call?.type === 'tool_use' ? call.id : '';
    expect(toolIdMap.getProviderId('vertex-anthropic', id)).toMatch(/^toolu_/);
    expect(toolIdMap.getProviderId('anthropic', id)).toBeUndefined();
  });
});
